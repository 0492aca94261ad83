package backfill

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// stopper lets after requests through, then cancels the run as the next one leaves (which it
// does not send): the run stops with exactly after pages fetched.
type stopper struct {
	next   http.RoundTripper
	after  int
	cancel context.CancelFunc
	mu     sync.Mutex
	sent   int
}

func (s *stopper) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.sent++
	stop := s.sent > s.after
	s.mu.Unlock()
	if stop {
		s.cancel()
		return nil, context.Canceled
	}
	return s.next.RoundTrip(r)
}

// tapeBars counts, from the simulator's tape itself (not through an adapter or the backfill),
// the bars a provider holds of symbol in [from, to): one a minute of its sessions that traded.
func tapeBars(t *testing.T, e *env, provider, symbol string, from, to time.Time) int {
	t.Helper()
	sessions := sim.Sessions(provider)
	n := 0
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		s, ok := market.SessionAt(m)
		if !ok || !slices.Contains(sessions, s) {
			continue
		}
		if _, ok := e.sim.Tape().Bar(symbol, m); ok {
			n++
		}
	}
	return n
}

// tapeMonths counts the New York months in which the tape has a bar of symbol in [from, to).
func tapeMonths(t *testing.T, e *env, provider, symbol string, from, to time.Time) int {
	t.Helper()
	months := map[string]bool{}
	sessions := sim.Sessions(provider)
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		if s, ok := market.SessionAt(m); !ok || !slices.Contains(sessions, s) {
			continue
		}
		if _, ok := e.sim.Tape().Bar(symbol, m); ok {
			months[m.In(market.NewYork).Format("2006-01")] = true
		}
	}
	return len(months)
}

// tapeWindows counts the windows of at most width a provider needs for the tape's bars of symbol
// in [from, to): each starts at the first bar not yet covered.
func tapeWindows(t *testing.T, e *env, provider, symbol string, from, to time.Time, width time.Duration) int {
	t.Helper()
	sessions := sim.Sessions(provider)
	n := 0
	end := from
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		if m.Before(end) {
			continue
		}
		if s, ok := market.SessionAt(m); !ok || !slices.Contains(sessions, s) {
			continue
		}
		if _, ok := e.sim.Tape().Bar(symbol, m); ok {
			n++
			end = m.Add(width)
		}
	}
	return n
}

func ceilTo(a, b int) int { return (a + b - 1) / b }

// floorCase is a backfill of one provider whose floor is counted from the tape.
type floorCase struct {
	provider string
	symbols  []string
	from, to time.Time
	now      time.Time
	floor    func(t *testing.T, e *env) int
}

func floorCases() []floorCase {
	now := ny(2025, time.December, 20, 12, 0)
	// Monday 9:30: the first minute traded on every symbol, so no lead-in is asked for. Two
	// weeks of three symbols are three pages at Alpaca; four weeks two pages of one symbol at
	// Alpaca and, of the regular session, at Twelve Data; three months two pages at Massive.
	from, to := ny(2025, time.September, 8, 9, 30), ny(2025, time.September, 20, 0, 0)
	tfrom, tto := from, ny(2025, time.October, 4, 0, 0)
	paged := func(provider string, page int, batch bool, symbols []string, from, to time.Time) func(t *testing.T, e *env) int {
		return func(t *testing.T, e *env) int {
			total, floor := 0, 0
			for _, sym := range symbols {
				n := tapeBars(t, e, provider, sim.ProviderSymbol(provider, sym), from, to)
				total += n
				floor += ceilTo(n, page)
			}
			if batch {
				return ceilTo(total, page)
			}
			return floor
		}
	}
	yfrom, yto := ny(2025, time.November, 24, 9, 30), ny(2025, time.December, 19, 0, 0)
	mfrom, mto := ny(2025, time.July, 7, 9, 30), ny(2025, time.October, 4, 0, 0)
	three := []string{"NVDA", "TSLA", "SPY"}
	return []floorCase{
		{"alpaca", []string{"NVDA"}, tfrom, tto, now, paged("alpaca", 10000, false, []string{"NVDA"}, tfrom, tto)},
		{"alpaca", three, from, to, now, paged("alpaca", 10000, true, three, from, to)},
		{"massive", []string{"TSLA"}, mfrom, mto, now, paged("massive", 50000, false, []string{"TSLA"}, mfrom, mto)},
		{"twelvedata", []string{"SPY"}, tfrom, tto, now, paged("twelvedata", 5000, false, []string{"SPY"}, tfrom, tto)},
		{"alphavantage", []string{"NVDA", "SPY"}, tfrom, tto, now, func(t *testing.T, e *env) int {
			return tapeMonths(t, e, "alphavantage", "NVDA", tfrom, tto) + tapeMonths(t, e, "alphavantage", "SPY", tfrom, tto)
		}},
		{"yahoo", []string{"TSLA"}, yfrom, yto, now, func(t *testing.T, e *env) int {
			return tapeWindows(t, e, "yahoo", "TSLA", yfrom, yto, 8*24*time.Hour)
		}},
	}
}

// Every provider is asked at its own floor: the pages its bars fill (alpaca's page counts the
// bars of every symbol of a batch), or the windows it allows (alphavantage's months, yahoo's 8
// days), counted here from the simulator's tape.
func TestBackfillReachesTheProviderFloor(t *testing.T) {
	for _, tc := range floorCases() {
		t.Run(fmt.Sprintf("%s×%d", tc.provider, len(tc.symbols)), func(t *testing.T) {
			e := newEnv(t, tc.now, sim.Options{})
			store := openStore(t, "floor.db")
			sum := e.run(t, context.Background(), store, Options{Spec: e.spec(t, []string{tc.provider}, "1000/s"), From: tc.from, To: tc.to, Symbols: tc.symbols})
			src := sourceSummary(t, sum, tc.provider)
			floor := tc.floor(t, e)
			if floor < 2 && tc.provider != "alpaca" {
				t.Fatalf("the floor is %d: the case needs more than one request to mean anything", floor)
			}
			if src.LeadIns != 0 || src.Failed != 0 || src.RateLimited != 0 {
				t.Fatalf("lead-ins %d, failed %d, 429s %d: the case needs none", src.LeadIns, src.Failed, src.RateLimited)
			}
			if src.Requests != floor || e.sim.Requests(tc.provider) != floor {
				t.Errorf("%d requests (the simulator saw %d), the provider's floor is %d", src.Requests, e.sim.Requests(tc.provider), floor)
			}
			if src.MinRequests != floor {
				t.Errorf("the summary's floor is %d, the tape's %d", src.MinRequests, floor)
			}
			t.Logf("%s %v: %d requests, floor %d, %d bars", tc.provider, tc.symbols, src.Requests, floor, src.Bars)
		})
	}
}

// Interrupted after any page of a paged provider's window, a re-run asks only for what the
// committed pages did not prove: the floor less the pages committed, and the store ends as an
// uninterrupted run leaves it.
func TestPageLevelResume(t *testing.T) {
	for _, tc := range floorCases() {
		if tc.provider != "alpaca" && tc.provider != "massive" && tc.provider != "twelvedata" {
			continue
		}
		t.Run(fmt.Sprintf("%s×%d", tc.provider, len(tc.symbols)), func(t *testing.T) {
			e := newEnv(t, tc.now, sim.Options{})
			spec := e.spec(t, []string{tc.provider}, "1000/s")
			whole := openStore(t, "whole.db")
			o := Options{Spec: spec, From: tc.from, To: tc.to, Symbols: tc.symbols}
			ref := e.run(t, context.Background(), whole, o)
			floor := tc.floor(t, e)
			if ref.Requests != floor || floor < 2 {
				t.Fatalf("uninterrupted: %d requests, floor %d: the case needs a floor of two pages or more, reached", ref.Requests, floor)
			}
			wholeDump := dump(t, whole)
			for stopAfter := 1; stopAfter < floor; stopAfter++ {
				t.Run(fmt.Sprint(stopAfter), func(t *testing.T) {
					e := newEnv(t, tc.now, sim.Options{})
					store := openStore(t, "resumed.db")
					ctx, cancel := context.WithCancel(context.Background())
					// the stop comes as the request after the stopAfter-th page leaves
					stop := &stopper{next: http.DefaultTransport, after: stopAfter, cancel: cancel}
					pages := 0
					o := o
					o.Spec = e.spec(t, []string{tc.provider}, "1000/s")
					o.Deps = sources.Deps{Transport: stop}
					o.OnWindow = func(w WindowDone) {
						if !w.Page {
							t.Errorf("a paged provider's window committed whole: %+v", w)
						}
						pages++
					}
					first := e.run(t, ctx, store, o)
					cancel()
					if !first.Interrupted || pages != stopAfter {
						t.Fatalf("stopped after page %d: interrupted %v, %d pages committed", stopAfter, first.Interrupted, pages)
					}
					o.Deps = sources.Deps{}
					// Alpaca's token resumes the same request; the others resume from what
					// their pages proved
					cs, err := store.Cursors(context.Background(), tc.provider)
					if wantCursors := map[bool]int{true: 1, false: 0}[tc.provider == "alpaca"]; err != nil || len(cs) != wantCursors {
						t.Errorf("after the stop: %d cursors (%v), want %d", len(cs), err, wantCursors)
					}
					e.sim.ResetCounts()
					o.OnWindow = nil
					second := e.run(t, context.Background(), store, o)
					src := sourceSummary(t, second, tc.provider)
					if second.Interrupted || second.Failed != 0 || src.LeadIns != 0 {
						t.Fatalf("re-run: interrupted %v, failed %d, lead-ins %d", second.Interrupted, second.Failed, src.LeadIns)
					}
					if second.Requests != floor-stopAfter {
						t.Errorf("re-run after %d of %d pages: %d requests, want %d", stopAfter, floor, second.Requests, floor-stopAfter)
					}
					if cs, err := store.Cursors(context.Background(), tc.provider); err != nil || len(cs) != 0 {
						t.Errorf("after the re-run: cursors %v (%v), want none", cs, err)
					}
					got := dump(t, store)
					sameTables(t, wholeDump, got, "bars", "answers", "quotes")
					if tc.provider == "alpaca" {
						// resumed with the same request, the window's record ends with the
						// whole run's totals of requests and bars
						sameTables(t, wholeDump, got, "windows")
					}
					// the coverage rows differ (a page's proof and the rest), what they cover does not
					for _, sym := range tc.symbols {
						a, _ := whole.Gaps(context.Background(), tc.provider, sym, history.Span{From: tc.from, To: tc.to}, sim.Sessions(tc.provider))
						b, _ := store.Gaps(context.Background(), tc.provider, sym, history.Span{From: tc.from, To: tc.to}, sim.Sessions(tc.provider))
						if len(a) != 0 || len(b) != 0 {
							t.Errorf("%s: gaps %v after the whole run, %v after the resumed one", sym, a, b)
						}
					}
				})
			}
		})
	}
}
