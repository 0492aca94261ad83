package backfill

import (
	"net/http"
	"testing"

	"github.com/pricerig/pricerig/sources"
)

// With no transport of its own, a backfill's sources read each connection through a buffer
// sized for bodies of megabytes, not the default transport's 4 KiB (a syscall per 3 KiB of
// body), and leave http.DefaultTransport as it was.
func TestPacerReadsThroughALargeBuffer(t *testing.T) {
	p := newPacer(nil, RealClock{}, sources.Rate{})
	tr, ok := p.next.(*http.Transport)
	if !ok {
		t.Fatalf("the pacer sends through %T, want an *http.Transport", p.next)
	}
	if tr.ReadBufferSize < 64<<10 {
		t.Fatalf("read buffer %d bytes, want at least 64 KiB", tr.ReadBufferSize)
	}
	if tr == http.DefaultTransport || http.DefaultTransport.(*http.Transport).ReadBufferSize != 0 {
		t.Fatal("the default transport itself was changed")
	}
	given := &http.Transport{}
	if q := newPacer(given, RealClock{}, sources.Rate{}); q.next != given {
		t.Fatal("a transport given in Deps was replaced")
	}
}
