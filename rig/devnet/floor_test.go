package devnet

import (
	"testing"
)

// Three direct rigs, one task: each commits and reveals alone. The simulated lone commit and
// reveal on top of the draw's block cost what the mined ones did (means over the three rigs;
// calldata bytes differ with the commitments, hence the 0.5 % slack).
func TestSoloAnswerGasIsWhatLoneAnswersCost(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	d, ctx := startDevnet(t, Options{NoRelayer: true})
	start, err := d.client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := d.Order(ctx, []string{"SPY"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Wait(ctx, ids); err != nil {
		t.Fatal(err)
	}
	head, err := d.client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txs, err := d.Mined(ctx, start+1, head)
	if err != nil {
		t.Fatal(err)
	}
	var drawn uint64
	gas := map[string][]uint64{}
	for _, tx := range txs {
		if tx.Reverted {
			continue
		}
		if tx.Method == "draw" {
			drawn = tx.Block
		}
		gas[tx.Method] = append(gas[tx.Method], tx.GasUsed)
	}
	if drawn == 0 || len(gas["commit"]) != 3 || len(gas["reveal"]) != 3 {
		t.Fatalf("mined: draw in block %d, %d lone commits, %d lone reveals; want 3 each", drawn, len(gas["commit"]), len(gas["reveal"]))
	}
	commit, reveal, err := d.SoloAnswerGas(ctx, ids[0], drawn)
	if err != nil {
		t.Fatal(err)
	}
	near := func(sim, mined uint64) bool { return sim*1000 >= mined*995 && sim*1000 <= mined*1005 }
	if c, r := mean(gas["commit"]), mean(gas["reveal"]); !near(commit, c) || !near(reveal, r) {
		t.Fatalf("simulated commit %d, reveal %d; mined %d and %d (%v, %v)", commit, reveal, c, r, gas["commit"], gas["reveal"])
	}
	t.Logf("commit: simulated %d, mined %v; reveal: simulated %d, mined %v", commit, gas["commit"], reveal, gas["reveal"])
}
