package backfill

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
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
	eachBackend(t, testBackfillStoresTheTapeAndReconcilesIt)
}

func testBackfillStoresTheTapeAndReconcilesIt(t *testing.T, be storeBackend) {
	e := newEnv(t, ny(2025, time.November, 20, 12, 0), sim.Options{})
	spec := e.spec(t, three, "1000/s")
	store := be.open(t, "p.db")
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
			err := store.Bars(context.Background(), sym, p, from, to, func(b history.StoredBar) error {
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
			market.WalkSessions(from, to, sessions, func(s market.SessionSpan) bool {
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
	err := store.Answers(context.Background(), history.Query{}, func(a history.Answer) error {
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
		{"into the future", Options{From: mon, To: ny(2040, time.January, 1, 0, 0)}, "reaches into the future"},
		{"before the calendar", Options{From: time.Date(1969, 12, 31, 23, 59, 0, 0, time.UTC), To: mon}, "before 1970, the first year of the market calendar"},
		{"before every source", Options{From: ny(1999, time.March, 1, 0, 0), To: ny(1999, time.April, 1, 0, 0), Sources: []string{"alphavantage"}},
			"no source serves a minute of 1999-03-01T05:00:00Z … 1999-04-01T05:00:00Z (alphavantage's 1-minute history begins at 2000-01-01T05:00:00Z)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Spec = spec
			tc.o.Clock = e.clock
			_, err := New(store, tc.o)
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrBadInput with %q", err, tc.want)
			}
			if err := Check(tc.o); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check: error %v, want ErrBadInput with %q", err, tc.want)
			}
		})
	}
	if n := e.sim.Requests("alpaca") + e.sim.Requests("massive") + e.sim.Requests("alphavantage"); n != 0 {
		t.Errorf("bad input made %d requests", n)
	}
}

// checkAgainstTape fails unless every stored answer of the symbols is agreed, complete and the
// tape's price of the minute, and returns the answers.
func checkAgainstTape(t *testing.T, store *history.Store, tape *sim.Tape, sessions []market.Session) []history.Answer {
	t.Helper()
	var out []history.Answer
	err := store.Answers(context.Background(), history.Query{}, func(a history.Answer) error {
		want, ok := expected(tape, a.Symbol, a.Minute, sessions)
		if !ok || !a.Agreed || !a.Complete || a.Price != want {
			t.Fatalf("%s %s: agreed %v complete %v price %s (%s), tape %s", a.Symbol, a.Minute, a.Agreed, a.Complete, a.Price, a.Reason, want)
		}
		out = append(out, a)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAcrossNVDASplit(t *testing.T) { eachBackend(t, testAcrossNVDASplit) }

func testAcrossNVDASplit(t *testing.T, be storeBackend) {
	// Yahoo only gives split-adjusted prices; within its 29 days the split of 2024-06-10 lies
	e := newEnv(t, ny(2024, time.June, 20, 12, 0), sim.Options{})
	providers := []string{"yahoo", "alpaca", "massive"}
	spec := e.spec(t, providers, "1000/s")
	store := be.open(t, "split.db")
	sum := e.run(t, context.Background(), store, Options{Spec: spec, From: ny(2024, time.June, 6, 0, 0), To: ny(2024, time.June, 12, 0, 0), Symbols: []string{"NVDA"}})
	if sum.Failed != 0 || sum.Incomplete != 0 {
		t.Fatalf("failed %d, incomplete %d", sum.Failed, sum.Incomplete)
	}
	tape := e.sim.Tape()
	for _, p := range providers {
		n := 0
		err := store.Bars(context.Background(), "NVDA", p, ny(2024, time.June, 6, 0, 0), ny(2024, time.June, 12, 0, 0), func(b history.StoredBar) error {
			n++
			if want, ok := tape.Bar("NVDA", b.Start); !ok || want.Close != b.Close {
				t.Fatalf("%s %s: stored %s, the tape traded %s", p, b.Start, b.Close, want.Close)
			}
			return nil
		})
		if err != nil || n == 0 {
			t.Fatalf("%s: %d bars, %v", p, n, err)
		}
	}
	answers := checkAgainstTape(t, store, tape, spec.Rules.Sessions)
	split := ny(2024, time.June, 10, 4, 0)
	var before, after numeric.Scaled
	for _, a := range answers {
		if a.Minute.Before(split) {
			before = a.Price
		} else if after == 0 {
			after = a.Price
		}
	}
	// the last minute in old shares and the first in new: a tenth apart, give or take a move
	if before < 8*after || before > 12*after {
		t.Errorf("last price before the split %s, first after %s: not 10:1", before, after)
	}
}

func TestAcrossTheSpringDSTSwitch(t *testing.T) { eachBackend(t, testAcrossTheSpringDSTSwitch) }

func testAcrossTheSpringDSTSwitch(t *testing.T, be storeBackend) {
	e := newEnv(t, ny(2025, time.March, 20, 12, 0), sim.Options{})
	spec := e.spec(t, three, "1000/s")
	store := be.open(t, "dst.db")
	// Thursday 6 March (EST) to Tuesday 11 March (EDT); the clocks went forward on Sunday the 9th
	sum := e.run(t, context.Background(), store, Options{Spec: spec, From: ny(2025, time.March, 6, 0, 0), To: ny(2025, time.March, 12, 0, 0), Symbols: []string{"SPY"}})
	if sum.Failed != 0 || sum.Minutes != 4*960 {
		t.Fatalf("failed %d, %d minutes: want the 960 minutes of each of 4 days", sum.Failed, sum.Minutes)
	}
	answers := checkAgainstTape(t, store, e.sim.Tape(), spec.Rules.Sessions)
	firstOfDay := map[string]time.Time{}
	for _, a := range answers {
		day := a.Minute.In(market.NewYork).Format(time.DateOnly)
		if _, ok := firstOfDay[day]; !ok {
			firstOfDay[day] = a.Minute
		}
	}
	for day, want := range map[string]time.Time{
		"2025-03-07": time.Date(2025, 3, 7, 9, 0, 0, 0, time.UTC),  // 04:00 EST
		"2025-03-10": time.Date(2025, 3, 10, 8, 0, 0, 0, time.UTC), // 04:00 EDT
	} {
		if got := firstOfDay[day]; !got.Equal(want) {
			t.Errorf("%s: first minute %s, want %s", day, got, want)
		}
	}
	// the New York month holds the whole range, and the carry's reach back is free within it
	if got := e.sim.Requests("alphavantage"); got != 1 {
		t.Errorf("alphavantage: %d requests for one March", got)
	}
}

// TestBackfillStopsAtTheLastFinalMinute: a backfill reaching now keeps no bar younger than its
// source's final_after (a provisional bar stored as an answer is what `price --db` would then
// serve); the minutes after the last final one are a gap that says so.
func TestBackfillStopsAtTheLastFinalMinute(t *testing.T) {
	now := ny(2025, time.November, 20, 12, 0).Add(30 * time.Second)
	e := newEnv(t, now, sim.Options{Instant: true})
	spec := e.spec(t, three, "1000/s")
	alpaca, _ := sources.Lookup("alpaca")
	ready := now.Add(-alpaca.FinalAfter).Truncate(time.Minute) // 11:59: its bar is not final at 12:00:30
	store := sqliteStore.open(t, "p.db")
	sum := e.run(t, context.Background(), store, Options{Spec: spec, From: now.Add(-10 * time.Minute).Truncate(time.Minute), To: now.Truncate(time.Minute)})
	last := time.Time{}
	err := store.Bars(context.Background(), "NVDA", "alpaca", now.Add(-time.Hour), now, func(b history.StoredBar) error {
		last = b.Start
		return nil
	})
	if err != nil || !last.Before(ready) || last.IsZero() {
		t.Fatalf("alpaca's last stored bar %v (%v), want one before %v, the first minute not final", last, err, ready)
	}
	gaps := sourceSummary(t, sum, "alpaca").Gaps
	if len(gaps) == 0 || !strings.Contains(gaps[len(gaps)-1].Reason, "final 35s after it closes") {
		t.Errorf("alpaca's gaps %+v, want the minutes not final yet", gaps)
	}
}
