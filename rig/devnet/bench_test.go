package devnet

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig"
)

// instantPricer answers at once, so the benchmark measures the rig and the chain, not sources.
func instantPricer(_ int, _ rig.Pricer) rig.Pricer {
	return pricerFunc(func(_ context.Context, s string, m time.Time, _ ...feeds.PriceOption) (feeds.Result, error) {
		p := numeric.MustPrice("177.12")
		return feeds.Result{Symbol: s, Minute: m, Effective: m, Agreed: true, Price: p, Median: p, Survivors: 3}, nil
	})
}

// BenchmarkDrawToCommit measures, with sources answering instantly, the wall time from the block
// that drew a task to the block holding the last of its three commits, for one task and for 100
// tasks drawn at once; two rig processes send their own commits, the third is relayed. Blocks
// are read from the chain's events and timed by when they reached a newHeads subscription.
func BenchmarkDrawToCommit(b *testing.B) {
	for _, tasks := range []int{1, 100} {
		b.Run(fmt.Sprintf("tasks=%d", tasks), func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			d, err := Start(ctx, Options{Instant: true, L1Interval: testL1Interval, Spec: []byte(testSpec), WrapPricer: instantPricer, Stake: 2 * tasks})
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			clock, err := d.Chain.WatchHeads(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer clock.Close()
			symbols := make([]string, tasks)
			for i := range symbols {
				symbols[i] = []string{"NVDA", "TSLA", "SPY"}[i%3]
			}
			var lat LatencyReport
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				d.drawToCommit(ctx, b, clock, symbols, &lat)
			}
			b.StopTimer()
			b.ReportMetric(float64(lat.P50().Milliseconds()), "p50-ms/task")
			b.ReportMetric(float64(lat.Max().Milliseconds()), "max-ms/task")
			b.ReportMetric(lat.P50Blocks(), "p50-blocks/task")
			b.ReportMetric(float64(lat.AllCommitted().Milliseconds()), "ms/all-committed")
		})
	}
}

// drawToCommit orders symbols, waits for the tasks' three commits and adds their draw→commit
// times, read from the chain's events and timed by clock, to lat.
func (d *Devnet) drawToCommit(ctx context.Context, b *testing.B, clock *HeadClock, symbols []string, lat *LatencyReport) {
	b.Helper()
	start, err := d.Head(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := d.Order(ctx, symbols, testMinute())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := d.WaitCommitted(ctx, start+1, ids, 3); err != nil {
		b.Fatal(err)
	}
	head, err := d.Head(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tl, err := d.Timelines(ctx, start+1, head, ids)
	if err != nil {
		b.Fatal(err)
	}
	if err := lat.Add(clock, tl); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRevertedPerTask runs tasks to settlement over the devnet's three rig processes (two
// direct, one relayed), sources answering instantly, and reports what was mined per task: every
// transaction, the reverted ones, the draws and the settles (one each is the floor).
func BenchmarkRevertedPerTask(b *testing.B) {
	const tasks = 20
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	d, err := Start(ctx, Options{Instant: true, L1Interval: testL1Interval, Spec: []byte(testSpec), WrapPricer: instantPricer, Stake: 2 * tasks})
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
