package feeds

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
)

// ledgerFeed is a reconciler over fakes sharing ledger, with the clock at now.
func ledgerFeed(now time.Time, ledger Ledger, fakes ...*fakeSource) (*Reconciler, *fakeClock) {
	feed, members := nvdaFeed(fakes)
	clock := &fakeClock{now: now}
	return NewReconciler(Config{Rules: DefaultRules(), Feeds: []Feed{feed}, Members: members},
		Deps{Deps: sources.Deps{Now: clock.Now}, Ledger: ledger}), clock
}

func requests(fakes []*fakeSource) (n int) {
	for _, f := range fakes {
		n += len(f.seen())
	}
	return n
}

// Every minute of a date a source answered costs nothing again, in this process or in another
// one on the same ledger, and the answer is the one a reconciler with nothing kept gives.
func TestMinutesTheLedgerHoldsCostNoRequest(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	now := m.Add(3 * time.Hour)
	mk := func() []*fakeSource {
		return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.10", m), src("c", regularOnly, "180.05", m)}
	}
	ledger := NewMemoryLedger()
	fakes := mk()
	r, _ := ledgerFeed(now, ledger, fakes...)
	for i, minute := range []time.Time{m, m.Add(-2 * time.Hour), m.Add(47 * time.Minute), m.Add(-5*time.Hour - 30*time.Minute)} {
		res, err := r.Price(context.Background(), "NVDA", minute, WaitAll())
		if err != nil {
			t.Fatalf("%s: %v", minute, err)
		}
		if n := requests(fakes); n != 3 {
			t.Errorf("after %d minutes of one date, %d requests, want one a source", i+1, n)
		}
		// the same minute from a reconciler with nothing kept, asking the sources itself
		fresh, _ := ledgerFeed(now, nil, mk()...)
		want, err := fresh.Price(context.Background(), "NVDA", minute, WaitAll())
		if err != nil {
			t.Fatal(err)
		}
		if res.Price != want.Price || !reflect.DeepEqual(statuses(res), statuses(want)) {
			t.Errorf("%s: from the ledger %s %v, asked afresh %s %v", minute, res.Price, statuses(res), want.Price, statuses(want))
		}
	}
	// another process on the same ledger asks nobody
	others := mk()
	r2, _ := ledgerFeed(now, ledger, others...)
	if _, err := r2.Price(context.Background(), "NVDA", m.Add(3*time.Minute), WaitAll()); err != nil {
		t.Fatal(err)
	}
	if n := requests(others); n != 0 {
		t.Errorf("a second reconciler on the ledger made %d requests", n)
	}
}

// A carry from before the minute's date is one more request, the rest of the carry's reach
// whole; the date and that reach are then known, and cost nothing again.
func TestACarryPastTheDateIsOneMoreRequest(t *testing.T) {
	// Monday 09:30 EST, a source whose Monday has no bar before 09:35: it carries Friday's close
	m := mustTime("2026-11-23T14:30:00Z")
	a, b := src("a", extended, "180", m), src("b", extended, "180", m)
	c := src("c", regularOnly, "180", m)
	var kept []sources.Bar
	for _, bar := range c.bars["NVDA"] {
		if bar.Start.Before(m.Add(-48*time.Hour)) || !bar.Start.Before(m.Add(5*time.Minute)) {
			kept = append(kept, bar)
		}
	}
	c.bars["NVDA"] = kept
	r, _ := ledgerFeed(m.Add(time.Hour), nil, a, b, c)
	res, err := r.Price(context.Background(), "NVDA", m, WaitAll())
	if err != nil {
		t.Fatal(err)
	}
	q := quoteOf(t, res, "c")
	if q.Status != StatusCarried || !q.BarTime.Equal(mustTime("2026-11-20T20:59:00Z")) || !q.Final {
		t.Fatalf("c: %s at %s (%s), want Friday's 15:59 close carried", q.Status, q.BarTime, q.Err)
	}
	calls := c.seen()
	if len(calls) != 2 || !calls[0].from.Equal(mustTime("2026-11-23T05:00:00Z")) || !calls[1].to.Equal(calls[0].from) ||
		!calls[1].from.Equal(m.Add(-96*time.Hour)) {
		t.Errorf("c asked %+v, want Monday's date, then the carry's reach before it", calls)
	}
	if _, err := r.Price(context.Background(), "NVDA", m.Add(time.Minute), WaitAll()); err != nil {
		t.Fatal(err)
	}
	if n := len(c.seen()); n != 2 {
		t.Errorf("the next minute cost %d more requests", n-2)
	}
}

// A day still growing is extended from its last final bar, not read again: a minute that just
// closed costs one request, and the next one asks only for what became final since.
func TestAGrowingDayIsExtendedFromItsLastFinalBar(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	fakes := []*fakeSource{src("a", extended, "180", m), src("b", extended, "180", m)}
	for _, f := range fakes {
		f.cov.FinalAfter = 30 * time.Second
	}
	r, clock := ledgerFeed(m.Add(2*time.Minute), nil, fakes...)
	if _, err := r.Price(context.Background(), "NVDA", m, WaitAll()); err != nil {
		t.Fatal(err)
	}
	clock.mu.Lock()
	clock.now = m.Add(10 * time.Minute)
	clock.mu.Unlock()
	if _, err := r.Price(context.Background(), "NVDA", m.Add(8*time.Minute), WaitAll()); err != nil {
		t.Fatal(err)
	}
	for _, f := range fakes {
		calls := f.seen()
		// the first: the date up to 15:32; final through 15:31 (15:31's bar was 30 s young),
		// so the second starts there
		if len(calls) != 2 || !calls[0].to.Equal(m.Add(2*time.Minute)) || !calls[1].from.Equal(m.Add(time.Minute)) || !calls[1].to.Equal(m.Add(10*time.Minute)) {
			t.Errorf("%s asked %+v, want the date to 15:32, then [15:31, 15:40)", f.name, calls)
		}
	}
}
