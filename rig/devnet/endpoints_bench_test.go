package devnet

import (
	"context"
	"testing"
	"time"

	"github.com/pricerig/pricerig/rig/internal/nodetest"
)

// BenchmarkDrawToCommitThroughEndpoints measures, in one run, the wall time from the block that
// drew a task to the block holding its third commit when every rig process reaches the node
// through one healthy endpoint, and when each has three endpoints of which one stalls (frozen:
// accepting connections, never answering) just before each task is ordered, after the pool had
// it back in rotation. Sources answer instantly; blocks are timed by a newHeads subscription.
func BenchmarkDrawToCommitThroughEndpoints(b *testing.B) {
	for _, c := range []struct {
		name    string
		several bool
	}{{"endpoints=1-healthy", false}, {"endpoints=3-one-stalled", true}} {
		b.Run(c.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			var stalled []*nodetest.Proxy
			d, err := Start(ctx, Options{Instant: true, L1Interval: testL1Interval, Spec: []byte(testSpec), WrapPricer: instantPricer, Stake: 2 * b.N,
				RPCURLs: func(_ int, url string) []string {
					n := 1
					if c.several {
						n = 3
					}
					var urls []string
					for i := range n {
						p, err := nodetest.NewProxy(url)
						if err != nil {
							b.Fatal(err)
						}
						b.Cleanup(p.Close)
						if i == 0 && c.several {
							stalled = append(stalled, p)
						}
						urls = append(urls, p.URL)
					}
					return urls
				}})
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			clock, err := d.Chain.WatchHeads(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer clock.Close()
			var lat LatencyReport
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				b.StopTimer()
				for _, p := range stalled {
					p.Thaw()
				}
				time.Sleep(3 * time.Second) // the pools' probes (1 s) take the endpoint back
				for _, p := range stalled {
					p.Freeze()
				}
				b.StartTimer()
				d.drawToCommit(ctx, b, clock, []string{"NVDA"}, &lat)
			}
			b.StopTimer()
			for _, p := range stalled {
				p.Thaw()
			}
			b.ReportMetric(float64(lat.P50().Milliseconds()), "p50-ms/task")
			b.ReportMetric(float64(lat.Max().Milliseconds()), "max-ms/task")
			b.ReportMetric(lat.P50Blocks(), "p50-blocks/task")
		})
	}
}
