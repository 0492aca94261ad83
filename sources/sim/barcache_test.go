package sim

import (
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
)

// TestWalkThroughTheCacheMatchesTheTape walks several days of each symbol from many goroutines
// at once — overlapping ranges cut at odd minutes, so days are filled piece by piece and shared —
// and holds every bar to the one the tape computes afresh.
func TestWalkThroughTheCacheMatchesTheTape(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := New(Options{Seed: 7, Now: func() time.Time { return now }})
	rq := &Request{Now: now, s: s, view: view{now: now}}
	sessions := []market.Session{market.Overnight, market.Pre, market.Regular, market.Post}
	from := time.Date(2024, 6, 5, 0, 0, 0, 0, time.UTC) // NVDA splits on 2024-06-10
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	count := map[bool]int{}
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, sym := range []string{"NVDA", "TSLA", "SPY", "NOPE"} {
				a := from.Add(time.Duration(g*397) * time.Minute)
				b := a.Add(time.Duration(4+g) * 24 * time.Hour).Add(time.Duration(g*13) * time.Minute)
				adjusted := g%2 == 0
				rq.Walk(sym, a, b, sessions, adjusted, func(bar OHLCV, ok bool) bool {
					want, wantOK := s.tape.barIn(sym, bar.Start, bar.Session)
					if wantOK {
						want = rq.view.apply(sym, want, adjusted)
					} else {
						want = OHLCV{Start: bar.Start, Session: bar.Session}
					}
					mu.Lock()
					defer mu.Unlock()
					count[ok]++
					if ok != wantOK || bar != want {
						problems = append(problems, sym+" "+bar.Start.String())
					}
					return true
				})
			}
		}()
	}
	wg.Wait()
	if len(problems) > 0 {
		t.Fatalf("%d bars differ from the tape, first %s", len(problems), problems[0])
	}
	if count[true] < 10_000 || count[false] == 0 {
		t.Fatalf("the walks saw %d traded and %d untraded minutes; the test should see many of both", count[true], count[false])
	}
	if n := len(s.tape.days); n == 0 || n > maxDayBars {
		t.Fatalf("%d cached days, want 1..%d", n, maxDayBars)
	}
}

// TestDayBarsCacheIsBounded fills more days than the bound and checks the cache never holds more.
func TestDayBarsCacheIsBounded(t *testing.T) {
	tape := NewTape(3, nil)
	for day := civilDay(2021, time.January, 1); day < civilDay(2021, time.January, 1)+maxDayBars+50; day++ {
		c := time.Unix(day*86400, 0).UTC()
		tape.dayBarsOf("SPY", day, market.Day(c.Year(), c.Month(), c.Day()))
		if len(tape.days) > maxDayBars {
			t.Fatalf("%d cached days after day %d, bound %d", len(tape.days), day, maxDayBars)
		}
	}
}
