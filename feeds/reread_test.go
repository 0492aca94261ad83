package feeds

import (
	"context"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
)

// Reread asks every source of the feed again for a window the ledger holds final, which no fetch
// does, and keeps the answers: a close a source changed since is what the ledger then holds.
func TestRereadAsksForWhatTheLedgerHoldsFinal(t *testing.T) {
	ctx := context.Background()
	m := mustTime("2026-11-24T15:30:00Z")
	fakes := []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.10", m), src("c", regularOnly, "180.05", m)}
	r, _ := ledgerFeed(m.Add(3*time.Hour), NewMemoryLedger(), fakes...)
	if _, err := r.Price(ctx, "NVDA", m, WaitAll()); err != nil {
		t.Fatal(err)
	}
	// a corrects its finished 15:30 bar
	bars := fakes[0].bars["NVDA"]
	var was numeric.Scaled
	for i := range bars {
		if bars[i].Start.Equal(m) {
			was = bars[i].Close
			bars[i].Close += 10_000_000
		}
	}
	asked := requests(fakes)
	if again, _ := r.Price(ctx, "NVDA", m, WaitAll()); requests(fakes) != asked || again.Quotes[0].Price != was {
		t.Fatalf("a second price asked %d more and read a at %s: the ledger held its bar final", requests(fakes)-asked, again.Quotes[0].Price)
	}
	n, err := r.Reread(ctx, "NVDA", m.Add(-10*time.Minute), m)
	if err != nil || n != 3 || requests(fakes) != asked+3 {
		t.Fatalf("reread: %d asked (%d requests), err %v; want every source once", n, requests(fakes)-asked, err)
	}
	for _, f := range fakes {
		c := f.seen()[len(f.seen())-1]
		if !c.from.Equal(m.Add(-10*time.Minute)) || !c.to.Equal(m.Add(time.Minute)) {
			t.Errorf("%s asked for [%s, %s)", f.name, c.from, c.to)
		}
	}
	after, err := r.Price(ctx, "NVDA", m, WaitAll())
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Quotes[0].Price; got != was+10_000_000 || requests(fakes) != asked+3 {
		t.Errorf("after the reread a reads %s (was %s) with %d more requests", got, was, requests(fakes)-asked-3)
	}
}
