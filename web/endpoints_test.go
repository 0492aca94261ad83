package web

import (
	"strings"
	"testing"
)

// The page's header shows each RPC endpoint of a rig that has several: in rotation with its
// head, or out with why; never a key from a URL's path.
func TestThePageShowsEveryEndpoint(t *testing.T) {
	s := New(Options{Endpoints: func() []Endpoint {
		return []Endpoint{{URL: "https://a.example/v2/KEY", Up: true, Head: 120, LatencyMilli: 35},
			{URL: "https://b.example", Reason: "lagging: head 110, 10 blocks behind 120", Head: 110, Lag: 10, Errors: 2}}
	}})
	p := s.Build(t.Context())
	var rpc []string
	for _, f := range p.Facts {
		if f.Label == "rpc" {
			rpc = append(rpc, f.Value)
		}
	}
	if len(rpc) != 2 || rpc[0] != "https://a.example/… up, head 120, 35 ms" ||
		!strings.Contains(rpc[1], "https://b.example OUT (lagging: head 110, 10 blocks behind 120), head 110, 10 behind, 2 errors") {
		t.Fatalf("endpoint facts %q", rpc)
	}
}
