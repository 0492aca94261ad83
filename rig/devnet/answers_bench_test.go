package devnet

import (
	"context"
	"testing"
	"time"
)

// BenchmarkAnswerGas orders 30 tasks at once and runs them to settlement, sources answering
// instantly, and reports what the rigs' answers cost: the commit and reveal transactions mined
// (commit, reveal, commitMany, revealMany) and their gas, per rig-answer (a rig's commit and
// reveal of one task, 3 per task). Layouts: three processes of one rig sending their own, one
// process of two rigs beside one of one, and one relayed process of three rigs.
func BenchmarkAnswerGas(b *testing.B) {
	const tasks = 30
	for _, l := range []struct {
		name      string
		layout    []int
		noRelayer bool
	}{
		{"direct-1+1+1", []int{1, 1, 1}, true},
		{"direct-2+1", []int{2, 1}, true},
		{"relayed-3", []int{3}, false},
	} {
		b.Run(l.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			d, err := Start(ctx, Options{Instant: true, L1Interval: testL1Interval, Spec: []byte(testSpec), WrapPricer: instantPricer, Stake: 2 * tasks, Layout: l.layout, NoRelayer: l.noRelayer})
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			var answers, txs, reverted int
			var gas uint64
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				reports, mined := d.settleRound(ctx, b, benchSymbols(tasks))
				for _, r := range reports {
					answers += r.Reveals
				}
				for _, tx := range mined {
					switch tx.method {
					case "commit", "reveal", "commitMany", "revealMany":
						txs++
						gas += tx.gas
						if tx.reverted {
							reverted++
						}
					}
				}
			}
			b.StopTimer()
			if answers == 0 {
				b.Fatal("no rig revealed")
			}
			b.ReportMetric(float64(txs)/float64(answers), "txs/rig-answer")
			b.ReportMetric(float64(gas)/float64(answers), "gas/rig-answer")
			b.ReportMetric(float64(reverted), "reverted")
			b.Logf("%s: %d rig-answers (commit+reveal), %d transactions, %d gas, %d reverted", l.name, answers, txs, gas, reverted)
		})
	}
}

// benchSymbols is n symbols, NVDA, TSLA and SPY in turn.
func benchSymbols(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = []string{"NVDA", "TSLA", "SPY"}[i%3]
	}
	return out
}

// settleRound orders one task per symbol at the test minute, waits until each is settled or
// refunded, and returns how they ended and every transaction mined meanwhile.
func (d *Devnet) settleRound(ctx context.Context, tb testing.TB, symbols []string) ([]TaskReport, []sentTx) {
	tb.Helper()
	start, err := d.client.BlockNumber(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	ids, err := d.Order(ctx, symbols, testMinute())
	if err != nil {
		tb.Fatal(err)
	}
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		tb.Fatal(err)
	}
	return reports, d.minedTxs(ctx, tb, start+1)
}
