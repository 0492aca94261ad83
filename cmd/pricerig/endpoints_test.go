package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/pricerig/pricerig/feeds"
)

// --rpc repeated and comma-separated names every endpoint; without it, the spec's
// networks.NAME.rpcs; without those, the network's public RPC. Shown, each URL's key is
// redacted.
func TestSeveralRPCEndpointsResolve(t *testing.T) {
	const contract = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	f := chainFlags{network: "robinhood", contract: contract,
		rpc: []string{"https://a.example/v2/abcdef0123456789abcdef, https://b.example", "wss://c.example"}}
	_, urls, _, err := f.resolve(nil)
	want := []string{"https://a.example/v2/abcdef0123456789abcdef", "https://b.example", "wss://c.example"}
	if err != nil || !slices.Equal(urls, want) {
		t.Fatalf("--rpc a,b --rpc c: %v (%v), want %v", urls, err, want)
	}
	if shown := shownRPCs(urls); strings.Contains(shown, "abcdef0123456789abcdef") || strings.Count(shown, ",") != 2 {
		t.Errorf("shown %q: every endpoint, no key", shown)
	}
	spec := &feeds.Spec{Networks: map[string]feeds.Network{"robinhood": {RPCs: []string{"https://x.example", "https://y.example"}}}}
	f.rpc = nil
	if _, urls, _, err = f.resolve(spec); err != nil || !slices.Equal(urls, spec.Networks["robinhood"].RPCs) {
		t.Fatalf("networks.robinhood.rpcs: %v (%v)", urls, err)
	}
	if _, urls, _, err = f.resolve(nil); err != nil || len(urls) != 1 || !strings.HasPrefix(urls[0], "https://rpc.mainnet") {
		t.Fatalf("no --rpc, no rpcs: %v (%v), want the network's public RPC", urls, err)
	}
}
