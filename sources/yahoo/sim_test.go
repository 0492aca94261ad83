package yahoo_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
	"github.com/pricerig/pricerig/sources/yahoo"
)

// fast keeps the client's rate limiter from pacing the test in real time.
var fast = sources.Rate{N: 1000, Per: time.Second}

// tapeBars is what the tape traded in [from, to) in the sessions a source covers.
func tapeBars(tape *sim.Tape, symbol string, from, to time.Time, sessions []market.Session) []sources.Bar {
	var out []sources.Bar
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		if !market.InSessions(m, sessions) {
			continue
		}
		if b, ok := tape.Bar(symbol, m); ok {
			out = append(out, b)
		}
	}
	return out
}

// TestSimRoundTrip reads the simulator's Yahoo emulation and checks the bars against the tape.
// Yahoo is split-adjusted; the windows lie in the last 29 days, where the tape has no split, so
// adjusted and raw are the same numbers.
func TestSimRoundTrip(t *testing.T) {
	now := time.Date(2026, 9, 18, 21, 30, 0, 0, time.UTC) // a Friday, 17:30 New York
	srv := sim.New(sim.Options{Seed: 11, Now: func() time.Time { return now }})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()
	src, err := yahoo.New(sources.Settings{Name: "yahoo", BaseURL: srv.BaseURL(ts.URL, "yahoo"), Rate: fast}, sources.Deps{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	cov := src.Coverage()
	windows := []struct{ from, to time.Time }{
		{time.Date(2026, 9, 18, 13, 30, 0, 0, time.UTC), time.Date(2026, 9, 18, 14, 30, 0, 0, time.UTC)}, // the open
		{time.Date(2026, 9, 17, 8, 0, 0, 0, time.UTC), time.Date(2026, 9, 17, 13, 35, 0, 0, time.UTC)},   // pre-market into the open
		{time.Date(2026, 9, 18, 19, 50, 0, 0, time.UTC), now.Add(time.Hour)},                             // the close, post, and the future
		{time.Date(2026, 9, 4, 0, 0, 0, 0, time.UTC), time.Date(2026, 9, 16, 0, 0, 0, 0, time.UTC)},      // 12 days: two requests, a weekend and Labor Day
	}
	for _, sym := range []string{"NVDA", "TSLA", "SPY"} {
		for _, split := range srv.Tape().Splits(sym) {
			if split.Effective.After(now.Add(-yahoo.Lookback)) {
				t.Fatalf("%s split %s inside the lookback: compare adjusted prices", sym, split.Date)
			}
		}
		for _, w := range windows {
			got, err := src.Bars(context.Background(), sym, w.from, w.to)
			if err != nil {
				t.Fatalf("%s %s: %v", sym, w.from, err)
			}
			want := tapeBars(srv.Tape(), sym, w.from, w.to, cov.Sessions)
			if len(want) == 0 {
				t.Fatalf("%s %s: the tape has no bars there; pick a window with trades", sym, w.from)
			}
			if len(got) != len(want) {
				t.Fatalf("%s %s: %d bars, tape has %d", sym, w.from, len(got), len(want))
			}
			for i := range want {
				if !got[i].Start.Equal(want[i].Start) || got[i].Close != want[i].Close || got[i].Volume != want[i].Volume {
					t.Fatalf("%s bar %d: got %+v, tape %+v", sym, i, got[i], want[i])
				}
			}
		}
	}
}
