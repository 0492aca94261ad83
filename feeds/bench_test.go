package feeds

import (
	"context"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// benchProviders are the six sources the benchmark reconciles: each covers the regular session
// and answers a regular minute in one request.
var benchProviders = []string{"yahoo", "alpaca", "massive", "twelvedata", "tiingo", "pyth"}

const benchLatency = 200 * time.Millisecond

// benchRig is the shipped spec cut to benchProviders over a simulator whose every answer takes
// benchLatency.
func benchRig(b *testing.B, deadline time.Duration) (*simRig, *Reconciler) {
	b.Helper()
	m := benchMinute
	s := newSimRig(b, m.Add(25*time.Hour))
	keep := map[string]bool{}
	for _, p := range benchProviders {
		keep[p] = true
		s.srv.SetLatency(p, benchLatency)
	}
	var kept []SourceSpec
	for _, src := range s.spec.Sources {
		if keep[src.Name] {
			kept = append(kept, src)
		}
	}
	s.spec.Sources = kept
	for i := range s.spec.Feeds {
		var fs []FeedSource
		for _, x := range s.spec.Feeds[i].Sources {
			if keep[x.Source] {
				fs = append(fs, x)
			}
		}
		s.spec.Feeds[i].Sources = fs
	}
	s.spec.Rules.Deadline = deadline
	return s, s.reconciler(b)
}

var benchMinute = time.Date(2026, 11, 24, 15, 30, 0, 0, time.UTC)

// BenchmarkPrice measures one Price call over six simulated sources that each answer after
// 200 ms. wall/slowest is the wall time of the call over the latency of the slowest source that
// answered: about 1 when the sources are asked concurrently, about 6 if they were asked one after
// another.
//
//   - all-answer: every source answers; Price waits for all (WaitAll).
//   - one-hangs/early-quorum: one source never answers; the default early quorum (a majority, 4
//     of 6) ends the call when the others agree.
//   - one-hangs/deadline: the same hanging source with WaitAll; the call ends at the 1 s deadline.
//     wall/deadline is reported instead.
func BenchmarkPrice(b *testing.B) {
	b.Run("all-answer", func(b *testing.B) {
		s, _ := benchRig(b, 20*time.Second)
		runPriceBench(b, s, []PriceOption{WaitAll()}, 0)
	})
	b.Run("one-hangs/early-quorum", func(b *testing.B) {
		s, _ := benchRig(b, 20*time.Second)
		s.srv.SetFault("tiingo", sim.FaultTimeout)
		runPriceBench(b, s, nil, 0)
	})
	b.Run("one-hangs/deadline", func(b *testing.B) {
		s, _ := benchRig(b, time.Second)
		s.srv.SetFault("tiingo", sim.FaultTimeout)
		runPriceBench(b, s, []PriceOption{WaitAll()}, time.Second)
	})
}

// runPriceBench prices the minute once an iteration, each time with a reconciler of its own:
// since the bar ledger (issue 26) a reconciler asks a source once for a window it then holds, so
// a second Price of the same minute would ask no source and time nothing of the fetch.
func runPriceBench(b *testing.B, s *simRig, opts []PriceOption, deadline time.Duration) {
	var wall, slowest time.Duration
	for b.Loop() {
		r := s.reconciler(b)
		start := time.Now()
		res, err := r.Price(context.Background(), "NVDA", benchMinute, opts...)
		elapsed := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		var s time.Duration
		answered := 0
		for _, q := range res.Quotes {
			if q.Status.Priced() {
				answered++
				s = max(s, q.Latency)
			}
		}
		if answered < 4 {
			b.Fatalf("only %d sources answered: %+v", answered, res.Quotes)
		}
		wall += elapsed
		slowest += s
	}
	b.ReportMetric(float64(slowest)/float64(b.N)/1e6, "slowest-ms")
	if deadline > 0 {
		b.ReportMetric(float64(wall)/float64(b.N)/float64(deadline), "wall/deadline")
		return
	}
	b.ReportMetric(float64(wall)/float64(slowest), "wall/slowest")
}

// BenchmarkPriceSequentialReference asks the same six sources one after another, as a reconciler
// without concurrency would: its wall/slowest is what the concurrent one is compared with.
func BenchmarkPriceSequentialReference(b *testing.B) {
	s, _ := benchRig(b, 20*time.Second)
	members, err := BuildSources(s.spec, sources.Deps{Now: s.clock.Now})
	if err != nil {
		b.Fatal(err)
	}
	feed, _ := s.spec.Feed("NVDA")
	var wall, slowest time.Duration
	for b.Loop() {
		start := time.Now()
		var most time.Duration
		for _, m := range members {
			sym, _ := feed.ProviderSymbol(m.Name)
			t0 := time.Now()
			if _, err := m.Source.Bars(context.Background(), sym, benchMinute.Add(-30*time.Minute), benchMinute.Add(time.Minute)); err != nil {
				b.Fatal(err)
			}
			most = max(most, time.Since(t0))
		}
		wall += time.Since(start)
		slowest += most
	}
	b.ReportMetric(float64(slowest)/float64(b.N)/1e6, "slowest-ms")
	b.ReportMetric(float64(wall)/float64(slowest), "wall/slowest")
}
