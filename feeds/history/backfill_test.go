package history

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

var three = []string{"alpaca", "massive", "alphavantage"}

// expected is what the tape says the answer of a minute is: the close of its bar, or of the
// latest bar of the sessions within max_carry (every simulated provider serves the same tape,
// so the sources agree exactly).
func expected(tape *sim.Tape, symbol string, t time.Time, sessions []market.Session) (numeric.Scaled, bool) {
	for back := time.Duration(0); back <= 96*time.Hour; back += time.Minute {
		m := t.Add(-back)
		if !market.InSessions(m, sessions) {
			continue
		}
		if b, ok := tape.Bar(symbol, m); ok {
			return b.Close, true
		}
	}
	return 0, false
}

func TestBackfillStoresTheTapeAndReconcilesIt(t *testing.T) {
	e := newEnv(t, ny(2025, time.November, 20, 12, 0), sim.Options{})
	spec := e.spec(t, three, "1000/s")
	store := openStore(t, "p.db")
	from, to := ny(2025, time.October, 30, 0, 0), ny(2025, time.November, 4, 0, 0)
	sum := e.run(t, context.Background(), store, Options{Spec: spec, From: from, To: to})

	if sum.Interrupted || sum.Failed != 0 {
		t.Fatalf("summary: interrupted %v, failed %d", sum.Interrupted, sum.Failed)
	}
	if sum.Requests != sum.MinRequests {
		t.Errorf("requests %d, minimum %d", sum.Requests, sum.MinRequests)
	}
	for _, p := range three {
		s := sourceSummary(t, sum, p)
		if got := e.sim.Requests(p); got != s.Requests {
			t.Errorf("%s: the simulator saw %d requests, the backfill counted %d", p, got, s.Requests)
		}
	}
	sessions := spec.Rules.Sessions
	tape := e.sim.Tape()
	// every bar of the tape in the range, from every source, and nothing else
	for _, sym := range []string{"NVDA", "TSLA", "SPY"} {
		for _, p := range three {
			n := 0
			err := store.Bars(context.Background(), sym, p, from, to, func(b StoredBar) error {
				n++
				want, ok := tape.Bar(sym, b.Start)
				if !ok || want.Close != b.Close || want.Volume != b.Volume {
					t.Fatalf("%s %s %s: stored %s/%d, tape %v %s/%d", p, sym, b.Start, b.Close, b.Volume, ok, want.Close, want.Volume)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			walkSessions(from, to, sessions, func(s sessionSpan) bool {
				for m := s.From; m.Before(s.To); m = m.Add(time.Minute) {
					if _, ok := tape.Bar(sym, m); ok {
						want++
					}
				}
				return true
			})
			if n != want || n == 0 {
				t.Errorf("%s %s: %d bars stored, the tape has %d", p, sym, n, want)
			}
		}
	}
	// every minute of the sessions has its answer, the tape's price
	minutes := sessionMinutes(from, to, sessions)
	if sum.Minutes != 3*minutes {
		t.Errorf("%d minutes reconciled, want 3 × %d", sum.Minutes, minutes)
	}
	n := 0
	err := store.Answers(context.Background(), Query{}, func(a Answer) error {
		n++
		want, ok := expected(tape, a.Symbol, a.Minute, sessions)
		if !ok || !a.Agreed || !a.Complete || a.Price != want {
			t.Fatalf("%s %s: agreed %v complete %v price %s (%s), tape %s", a.Symbol, a.Minute, a.Agreed, a.Complete, a.Price, a.Reason, want)
		}
		if len(a.Quotes) != 3 {
			t.Fatalf("%s %s: %d quotes", a.Symbol, a.Minute, len(a.Quotes))
		}
		for _, q := range a.Quotes {
			if q.Price != want || q.DistanceCentiBps != 0 {
				t.Fatalf("%s %s: quote %+v", a.Symbol, a.Minute, q)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3*minutes {
		t.Errorf("%d answers stored, want %d", n, 3*minutes)
	}
}

func sourceSummary(t *testing.T, sum *Summary, name string) SourceSummary {
	t.Helper()
	for _, s := range sum.Sources {
		if s.Source == name {
			return s
		}
	}
	t.Fatalf("no summary of %s", name)
	return SourceSummary{}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, ny(2025, time.November, 20, 12, 0), sim.Options{})
	spec := e.spec(t, three, "1000/s")
	store := openStore(t, "p.db")
	mon := ny(2025, time.November, 3, 9, 30)
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"empty range", Options{From: mon, To: mon}, "empty range"},
		{"reversed range", Options{From: mon, To: mon.Add(-time.Hour)}, "reversed range"},
		{"unknown symbol", Options{From: mon, To: mon.Add(time.Hour), Symbols: []string{"NVDA", "AAPL"}}, `unknown symbol "AAPL"`},
		{"unknown source", Options{From: mon, To: mon.Add(time.Hour), Sources: []string{"polygon"}}, `unknown source "polygon"`},
		{"a weekend", Options{From: ny(2025, time.November, 1, 0, 0), To: ny(2025, time.November, 2, 12, 0)}, "holds no minute"},
		{"the future", Options{From: ny(2025, time.November, 21, 9, 30), To: ny(2025, time.November, 22, 0, 0)}, "has closed yet"},
		{"unaligned", Options{From: mon.Add(time.Second), To: mon.Add(time.Hour)}, "whole minutes"},
		{"missing end", Options{From: mon}, "both ends"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Spec = spec
			tc.o.Clock = e.clock
			_, err := New(store, tc.o)
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrBadInput with %q", err, tc.want)
			}
		})
	}
	if n := e.sim.Requests("alpaca") + e.sim.Requests("massive") + e.sim.Requests("alphavantage"); n != 0 {
		t.Errorf("bad input made %d requests", n)
	}
}

var _ = feeds.StatusOK
var _ = sources.ErrNoData
