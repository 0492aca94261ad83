package feeds

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
)

// One process pricing several symbols at once (a rig's tasks of one minute) asks a source paced
// slower than the round's deadline (massive and alphavantage, whose one request is a day or a
// month, at 1/min here) for the first symbol only: the others find no request free before their
// deadline and are not sent. Their quote says so, "paced" with the rate in its error, and is not
// an "error" of the source (which the operator's page showed for them, in a few milliseconds,
// for a regular-session minute). A daily allowance (fmp's shipped 250/day) is no pace: fmp
// prices all three (issue 32: it was paced for two of them, one request every 5m45s).
func TestPricingSymbolsAtOnceLeavesASlowPacedSourcePacedNotFailed(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	s := newSimRig(t, m.Add(25*time.Hour)) // past the free plans' 24 h delay of massive and alphavantage
	slow := map[string]sources.Rate{
		"massive":      {N: 1, Per: time.Minute},
		"alphavantage": {N: 1, Per: time.Minute},
	}
	allowance := map[string]sources.Rate{"fmp": {N: 250, Per: 24 * time.Hour}}
	maps.Copy(slow, allowance)
	for i, src := range s.spec.Sources {
		if r, ok := slow[src.Name]; ok {
			s.spec.Sources[i].Rate = r
		}
	}
	r := s.reconciler(t)
	symbols := []string{"NVDA", "TSLA", "SPY"}
	results := make([]Result, len(symbols))
	var wg sync.WaitGroup
	for i, symbol := range symbols {
		wg.Go(func() {
			res, err := r.Price(context.Background(), symbol, m, WaitAll())
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		})
	}
	wg.Wait()
	for name := range slow {
		priced, paced := 0, 0
		for _, res := range results {
			q := quoteOf(t, res, name)
			switch {
			case q.Status.Priced():
				priced++
			case q.Status == StatusPaced && q.Kind == sources.KindPaced && q.Requests == 1 &&
				strings.Contains(q.Err, "the rate (one request every") && strings.Contains(q.Err, "no request free before the deadline"):
				paced++
			default:
				t.Errorf("%s %s: %s (%s, kind %s), want priced or paced", res.Symbol, name, q.Status, q.Err, q.Kind)
			}
		}
		if _, ok := allowance[name]; ok {
			if priced != len(symbols) {
				t.Errorf("%s, at a daily allowance: priced for %d symbols and paced for %d, want all %d priced", name, priced, paced, len(symbols))
			}
			continue
		}
		if priced != 1 || paced != len(symbols)-1 {
			t.Errorf("%s: priced for %d symbols and paced for %d, want 1 and %d", name, priced, paced, len(symbols)-1)
		}
	}
	for _, res := range results {
		want, _ := s.expected(t, res.Symbol, m)
		agreeing(t, res, want)
	}
}
