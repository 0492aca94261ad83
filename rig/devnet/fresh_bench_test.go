package devnet

import (
	"context"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources/sim"
)

// freshTask is one task of the benchmark: a symbol at a minute, ordered offset after it closed.
type freshTask struct {
	symbol string
	minute time.Time
	offset time.Duration
}

// freshDevnet is one world of the benchmark: a devnet, its head clock and the tasks it ordered.
type freshDevnet struct {
	name  string
	d     *Devnet
	clock *HeadClock
	head  uint64
	ids   []uint64
	tasks map[uint64]freshTask
}

// BenchmarkFreshMinutesOnTheDevnet orders twelve tasks on two devnets side by side, each 1–56 s
// after its minute closes (four minutes, one task a symbol and minute, offsets 5 s apart),
// against providers that publish 25–45 s late and revise within 40 s: one devnet's rigs read the
// spec as it is (finality: they wait for final bars inside the commit window), the other's with
// every source's final_after 0, as pricerig did before. It reports, for each, the share of tasks
// every rig committed at the final price, at the minute before's close (stale) and at the
// provisional close, and the median and worst wall time from the minute's end to the block
// holding the task's last commit. The devnets' clock is the wall clock moved back to 2026-11-24
// (a regular session): the benchmark waits for real. About five minutes.
//
//	go test ./rig/devnet/ -run '^$' -bench BenchmarkFreshMinutesOnTheDevnet -benchtime 1x
func BenchmarkFreshMinutesOnTheDevnet(b *testing.B) {
	m0 := time.Date(2026, 11, 24, 15, 30, 0, 0, time.UTC)
	var tasks []freshTask
	for i := range 4 {
		for j, symbol := range []string{"NVDA", "TSLA", "SPY"} {
			tasks = append(tasks, freshTask{symbol, m0.Add(time.Duration(i) * time.Minute), time.Duration(1+5*(i+4*j)) * time.Second})
		}
	}
	slices.SortFunc(tasks, func(a, c freshTask) int { return a.minute.Add(a.offset).Compare(c.minute.Add(c.offset)) })
	truths := sim.NewTape(1, func() time.Time { return m0.Add(24 * time.Hour) })
	for b.Loop() {
		// the devnets start 20 s before the first minute closes, by their clock
		shift := time.Until(m0.Add(40 * time.Second))
		now := func() time.Time { return time.Now().Add(shift) }
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		worlds := []*freshDevnet{{name: "finality", tasks: map[uint64]freshTask{}}, {name: "before", tasks: map[uint64]freshTask{}}}
		specs := []string{testSpec, regexp.MustCompile(`(?m)^(  \w+: \{type: \w+)`).ReplaceAllString(testSpec, "$1, final_after: 0")}
		for i, w := range worlds {
			d, err := Start(ctx, Options{Spec: []byte(specs[i]), Now: now, Publications: sim.LateWorld()})
			if err != nil {
				b.Fatal(err)
			}
			w.d = d
			if w.clock, err = d.Chain.WatchHeads(ctx); err != nil {
				b.Fatal(err)
			}
			if w.head, err = d.Head(ctx); err != nil {
				b.Fatal(err)
			}
		}
		for _, t := range tasks {
			time.Sleep(time.Until(t.minute.Add(time.Minute + t.offset).Add(-shift)))
			var wg sync.WaitGroup
			for _, w := range worlds {
				wg.Go(func() {
					ids, err := w.d.Order(ctx, []string{t.symbol}, t.minute)
					if err != nil {
						b.Error(err)
						return
					}
					w.ids = append(w.ids, ids...)
					for _, id := range ids {
						w.tasks[id] = t
					}
				})
			}
			wg.Wait()
		}
		for _, w := range worlds {
			w.report(ctx, b, truths, shift)
			w.clock.Close()
			w.d.Close()
		}
		cancel()
	}
}

// report reads how the world's tasks were committed and reports it.
func (w *freshDevnet) report(ctx context.Context, b *testing.B, truths *sim.Tape, shift time.Duration) {
	last, err := w.d.WaitCommitted(ctx, w.head+1, w.ids, 3)
	if err != nil {
		b.Fatal(err)
	}
	timelines, err := w.d.Timelines(ctx, w.head+1, last, w.ids)
	if err != nil {
		b.Fatal(err)
	}
	reports, err := w.d.Wait(ctx, w.ids)
	if err != nil {
		b.Fatal(err)
	}
	var final, stale, provisional, other int
	var latency []time.Duration
	for _, rep := range reports {
		t := w.tasks[rep.TaskID]
		truth, _ := truths.Bar(t.symbol, t.minute)
		prev, _ := truths.Bar(t.symbol, t.minute.Add(-time.Minute))
		early, _ := truths.Provisional(t.symbol, t.minute)
		kind := map[string]*int{truth.Close.String(): &final, prev.Close.String(): &stale, early.String(): &provisional}
		for _, r := range rep.Rigs {
			if n, ok := kind[r.Price]; ok {
				*n++
			} else {
				other++
			}
		}
		at, ok := w.clock.At(timelines[rep.TaskID].Committed)
		if !ok {
			b.Fatalf("task %d: the commit block %d was not seen", rep.TaskID, timelines[rep.TaskID].Committed)
		}
		latency = append(latency, at.Sub(t.minute.Add(time.Minute).Add(-shift)))
	}
	slices.Sort(latency)
	n := float64(final + stale + provisional + other)
	b.ReportMetric(float64(final)/n, w.name+"-final/commits")
	b.ReportMetric(float64(stale)/n, w.name+"-stale/commits")
	b.ReportMetric(float64(provisional)/n, w.name+"-provisional/commits")
	b.ReportMetric(latency[len(latency)/2].Seconds(), w.name+"-median-s")
	b.ReportMetric(latency[len(latency)-1].Seconds(), w.name+"-worst-s")
	b.Logf("%-8s %d tasks, %.0f commits: final %d, stale %d, provisional %d, other %d; minute end → last commit median %s, worst %s",
		w.name, len(reports), n, final, stale, provisional, other, latency[len(latency)/2].Round(100*time.Millisecond), latency[len(latency)-1].Round(100*time.Millisecond))
}
