package devnet

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
)

// instantPricer answers at once, so the benchmark measures the rig and the chain, not sources.
func instantPricer(_ int, _ rig.Pricer) rig.Pricer {
	return pricerFunc(func(_ context.Context, s string, m time.Time, _ ...feeds.PriceOption) (feeds.Result, error) {
		p := numeric.MustPrice("177.12")
		return feeds.Result{Symbol: s, Minute: m, Effective: m, Agreed: true, Price: p, Median: p, Survivors: 3}, nil
	})
}

// BenchmarkDrawToCommit measures, with sources answering instantly, the wall time from a task's
// draw being visible on chain to every drawn rig's commit being mined, for one task and for 100
// tasks drawn at once. Two rig processes send their own commits, the third is relayed.
func BenchmarkDrawToCommit(b *testing.B) {
	for _, tasks := range []int{1, 100} {
		b.Run(fmt.Sprintf("tasks=%d", tasks), func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			d, err := Start(ctx, Options{Spec: []byte(testSpec), WrapPricer: instantPricer, Stake: 2 * tasks})
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			contract := rig.NewContract(d.client, d.Contract)
			symbols := make([]string, tasks)
			for i := range symbols {
				symbols[i] = []string{"NVDA", "TSLA", "SPY"}[i%3]
			}
			var perTask []time.Duration
			var whole []time.Duration
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				ids, err := d.Order(ctx, symbols, testMinute())
				if err != nil {
					b.Fatal(err)
				}
				drawnAt := map[uint64]time.Time{}
				doneAt := map[uint64]time.Time{}
				for len(doneAt) < len(ids) {
					for _, id := range ids {
						if _, ok := doneAt[id]; ok {
							continue
						}
						info, err := contract.Task(ctx, new(big.Int).SetUint64(id))
						if err != nil {
							b.Fatal(err)
						}
						if agentrig.Phase(info.Phase) >= agentrig.PhaseCommit {
							if _, ok := drawnAt[id]; !ok {
								drawnAt[id] = time.Now()
							}
						}
						if info.CommittedMask == 0b111 {
							doneAt[id] = time.Now()
						}
					}
					time.Sleep(5 * time.Millisecond)
				}
				first, last := time.Time{}, time.Time{}
				for _, id := range ids {
					perTask = append(perTask, doneAt[id].Sub(drawnAt[id]))
					if first.IsZero() || drawnAt[id].Before(first) {
						first = drawnAt[id]
					}
					if doneAt[id].After(last) {
						last = doneAt[id]
					}
				}
				whole = append(whole, last.Sub(first))
			}
			b.StopTimer()
			sort.Slice(perTask, func(i, j int) bool { return perTask[i] < perTask[j] })
			b.ReportMetric(float64(perTask[len(perTask)/2].Milliseconds()), "p50-ms/task")
			b.ReportMetric(float64(perTask[len(perTask)-1].Milliseconds()), "max-ms/task")
			sort.Slice(whole, func(i, j int) bool { return whole[i] < whole[j] })
			b.ReportMetric(float64(whole[len(whole)/2].Milliseconds()), "ms/all-committed")
		})
	}
}

// BenchmarkRevertedPerTask runs tasks to settlement over the devnet's three rig processes (two
// direct, one relayed), sources answering instantly, and reports what was mined per task: every
// transaction, the reverted ones, the draws and the settles (one each is the floor).
func BenchmarkRevertedPerTask(b *testing.B) {
	const tasks = 20
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	d, err := Start(ctx, Options{Spec: []byte(testSpec), WrapPricer: instantPricer, Stake: 2 * tasks})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	symbols := make([]string, tasks)
	for i := range symbols {
		symbols[i] = []string{"NVDA", "TSLA", "SPY"}[i%3]
	}
	var mined, reverted, draws, settles, ordered int
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		start, err := d.client.BlockNumber(ctx)
		if err != nil {
			b.Fatal(err)
		}
		ids, err := d.Order(ctx, symbols, testMinute())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.Wait(ctx, ids); err != nil {
			b.Fatal(err)
		}
		ordered += len(ids)
		for _, tx := range d.minedTxs(ctx, b, start+1) {
			mined++
			if tx.reverted {
				reverted++
			}
			switch tx.method {
			case "draw":
				draws++
			case "settle":
				settles++
			}
		}
	}
	b.StopTimer()
	per := func(v int) float64 { return float64(v) / float64(ordered) }
	b.ReportMetric(per(mined), "txs/task")
	b.ReportMetric(per(reverted), "reverted/task")
	b.ReportMetric(per(draws), "draws/task")
	b.ReportMetric(per(settles), "settles/task")
}
