package feeds

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// freshBudget is what a rig has to price a task it was drawn for at once: the seed's 4-minute
// commit window less the default 60 s commit margin.
const freshBudget = 3 * time.Minute

// freshOutcome is how an answer compares with the final truth of its minute.
type freshOutcome struct {
	final, stale, provisional, other, none int
	latency                                []time.Duration // from the minute's end to the answer
	worstBps                               float64
}

func (o *freshOutcome) add(answer, truth, previous, early numeric.Scaled, agreed bool, latency time.Duration) {
	switch {
	case !agreed:
		o.none++
		return
	case answer == truth:
		o.final++
	case answer == previous:
		o.stale++
	case answer == early:
		o.provisional++
	default:
		o.other++
	}
	o.latency = append(o.latency, latency)
	o.worstBps = max(o.worstBps, float64(numeric.DistanceCentiBps(answer, truth))/100)
}

func (o *freshOutcome) report(b *testing.B, name string, n int) {
	slices.Sort(o.latency)
	median, worst := o.latency[len(o.latency)/2], o.latency[len(o.latency)-1]
	share := func(k int) float64 { return float64(k) / float64(n) }
	b.ReportMetric(share(o.final), name+"-final/tasks")
	b.ReportMetric(share(o.stale), name+"-stale/tasks")
	b.ReportMetric(share(o.provisional), name+"-provisional/tasks")
	b.ReportMetric(share(o.other+o.none), name+"-other/tasks")
	b.ReportMetric(o.worstBps, name+"-worst-bps")
	b.ReportMetric(median.Seconds(), name+"-median-s")
	b.ReportMetric(worst.Seconds(), name+"-worst-s")
	b.Logf("%-8s %d tasks: final %d, stale %d, provisional %d, other %d, no answer %d; worst %.2f bps from the final truth; minute end → answer median %s, worst %s",
		name, n, o.final, o.stale, o.provisional, o.other, o.none, o.worstBps, median, worst)
}

// BenchmarkFreshMinutes prices tasks 1–60 s after their minute closes, against the shipped spec's
// sources publishing 25–45 s late and revising within 40 s, as a rig does with its budget
// (feeds.WaitFinal to the commit deadline less the margin, feeds.LastResort), and, in the same
// run over the same simulator, as pricerig did before finality (every source's final_after 0:
// the bar trusted, or the one before carried, the moment the minute ends, answered at once). For
// each it reports the share of tasks answered at the final price (0 bps from the truth), at the
// minute before's close (stale), at the provisional close, and otherwise, the worst distance to
// the final truth, and the median and worst time from the minute's end to the answer. One task
// per minute of the regular session of 2026-11-24 and 25, ordered 1 + (i mod 60) s after it
// closes, rotating the symbols. The clock is the simulator's: a wait moves it.
func BenchmarkFreshMinutes(b *testing.B) {
	clock := &fakeClock{}
	srv := sim.New(sim.Options{Seed: 7, Now: clock.Now})
	for p, pub := range sim.LateWorld() {
		srv.SetPublication(p, pub)
	}
	hs := httptest.NewServer(srv)
	b.Cleanup(func() { srv.Close(); hs.Close() })
	spec := simSpec(b, hs.URL)
	before := *spec
	before.Sources = slices.Clone(spec.Sources)
	for i := range before.Sources {
		before.Sources[i].FinalAfter = sources.FinalAtClose
	}
	wait := func(_ context.Context, until time.Time) error {
		clock.mu.Lock()
		defer clock.mu.Unlock()
		clock.now = latest(clock.now, until)
		return nil
	}
	build := func(s *Spec) *Reconciler {
		r, err := New(s, Deps{Deps: sources.Deps{Now: clock.Now}, Wait: wait})
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	finality, old := build(spec), build(&before)
	var minutes []time.Time
	for _, day := range []time.Time{time.Date(2026, 11, 24, 0, 0, 0, 0, market.NewYork), time.Date(2026, 11, 25, 0, 0, 0, 0, market.NewYork)} {
		info := market.Day(day.Year(), day.Month(), day.Day())
		open, closes, _ := info.Bounds(market.Regular)
		for m := open; m.Before(closes); m = m.Add(time.Minute) {
			minutes = append(minutes, m.UTC())
		}
	}
	symbols := []string{"NVDA", "TSLA", "SPY"}
	truths := sim.NewTape(7, func() time.Time { return time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC) }) // the simulator's tape, every minute closed
	for b.Loop() {
		var withFinality, without freshOutcome
		for i, m := range minutes {
			symbol := symbols[i%len(symbols)]
			end := m.Add(time.Minute)
			asked := end.Add(time.Duration(1+i%60) * time.Second)
			truth, ok := truths.Bar(symbol, m)
			if !ok {
				continue // no trade in the minute: nothing to tell apart
			}
			prev, _ := truths.Bar(symbol, m.Add(-time.Minute))
			early, _ := truths.Provisional(symbol, m)

			set(clock, asked)
			res, _ := old.Price(context.Background(), symbol, m)
			without.add(res.Price, truth.Close, prev.Close, early, res.Agreed, clock.Now().Sub(end))

			set(clock, asked)
			res, _ = finality.Price(context.Background(), symbol, m, WaitFinal(asked.Add(freshBudget)), LastResort())
			withFinality.add(res.Price, truth.Close, prev.Close, early, res.Agreed, clock.Now().Sub(end))
		}
		n := withFinality.final + withFinality.stale + withFinality.provisional + withFinality.other + withFinality.none
		if n == 0 {
			b.Fatal("no task")
		}
		withFinality.report(b, "finality", n)
		without.report(b, "before", n)
		if withFinality.final != n {
			b.Errorf("%d of %d tasks not at the final price with finality", n-withFinality.final, n)
		}
	}
}

// set moves the fake clock to t (backwards too: each task starts when it is ordered).
func set(c *fakeClock, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}
