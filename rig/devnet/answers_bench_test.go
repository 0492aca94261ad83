package devnet

import (
	"context"
	"math/big"
	"testing"
	"time"
)

// BenchmarkAnswerGas orders 30 tasks at once and runs them to settlement, sources answering
// instantly, and reports what the rigs' answers cost: the commit and reveal transactions mined
// (commit, reveal, commitMany, revealMany) and their gas, per rig-answer (a rig's commit and
// reveal of one task, 3 per task). Layouts: three processes of one rig sending their own, one
// process of two rigs beside one of one, and one relayed process of three rigs; and "lone": the
// three processes of one rig with one task at a time (5 in turn), so that each rig sends its
// own commit and reveal, batched with nothing. With each rig-answer's share of its task's draw
// and settle, the gas is set against what an agreeing rig is credited: the gas price at which
// job 2 breaks even (break-even-gwei).
func BenchmarkAnswerGas(b *testing.B) {
	const tasks = 30
	for _, l := range []struct {
		name      string
		layout    []int
		noRelayer bool
		rounds    int // of tasks/rounds tasks each
	}{
		{"lone-1+1+1", []int{1, 1, 1}, true, tasks},
		{"direct-1+1+1", []int{1, 1, 1}, true, 1},
		{"direct-2+1", []int{2, 1}, true, 1},
		{"relayed-3", []int{3}, false, 1},
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
			var gas, shared uint64 // commits and reveals; draws and settles
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				rounds := l.rounds
				if rounds > 1 {
					rounds = 5 // one task at a time takes a task's whole life each
				}
				var reports []TaskReport
				var mined []sentTx
				for range rounds {
					rep, m := d.settleRound(ctx, b, benchSymbols(tasks/l.rounds))
					reports, mined = append(reports, rep...), append(mined, m...)
				}
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
					case "draw", "settle":
						shared += tx.gas
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
			// What a rig-answer costs with its share of the task's draw and settle, against what
			// an agreeing rig is credited: the gas price at which job 2 breaks even.
			perAnswer := float64(gas+shared) / float64(answers)
			b.ReportMetric(perAnswer, "gas/rig-answer+draw+settle")
			b.ReportMetric(breakEvenGwei(perAnswer), "break-even-gwei")
			b.Logf("%s: %d rig-answers (commit+reveal), %d transactions, %d gas, %d reverted; with draws and settles %.0f gas a rig-answer, break-even at %.4f gwei (%s gwei now)",
				l.name, answers, txs, gas, reverted, perAnswer, breakEvenGwei(perAnswer), weiToGwei(DefaultGasPrice))
		})
	}
}

// breakEvenGwei is the gas price (gwei) at which gasPerAnswer gas costs what an agreeing rig of
// job 2 is credited for its answer: the price less the builder's share (AgentRig.sol's
// BUILDER_BPS, 10 %), in equal shares among the quorum's rigs (_payAgreed).
func breakEvenGwei(gasPerAnswer float64) float64 {
	const builderBps = 1000
	job := launchJobs[PriceJobID-1]
	credit, _ := new(big.Float).SetInt(job.price).Float64()
	credit = credit * (10_000 - builderBps) / 10_000 / float64(job.quorum)
	return credit / gasPerAnswer / 1e9
}

func weiToGwei(wei *big.Int) string {
	return new(big.Float).Quo(new(big.Float).SetInt(wei), big.NewFloat(1e9)).Text('f', 4)
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
