package devnet

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
)

// sentTx is one transaction mined on the devnet.
type sentTx struct {
	from     common.Address
	method   string // the contract method called, "" for anything else
	task     uint64 // for draw and settle
	reverted bool
}

// minedTxs lists every transaction mined from block from on, with its status.
func (d *Devnet) minedTxs(ctx context.Context, t testing.TB, from uint64) []sentTx {
	t.Helper()
	head, err := d.client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(big.NewInt(ChainID))
	abi := d.abi.GetABI()
	var out []sentTx
	for n := from; n <= head; n++ {
		block, err := d.client.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range block.Transactions() {
			rec, err := d.client.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				t.Fatal(err)
			}
			sender, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatal(err)
			}
			s := sentTx{from: sender, reverted: rec.Status != types.ReceiptStatusSuccessful}
			if data := tx.Data(); len(data) >= 4 {
				if m, err := abi.MethodById(data[:4]); err == nil {
					s.method = m.Name
					if (m.Name == "draw" || m.Name == "settle") && len(data) == 36 {
						s.task = new(big.Int).SetBytes(data[4:]).Uint64()
					}
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// senders maps each address that sends for rig process i to i.
func (d *Devnet) senders() map[common.Address]int {
	out := map[common.Address]int{}
	for i, cfg := range d.configs {
		for _, k := range cfg.Operators {
			out[k.Address] = i
		}
		if cfg.Relayer != nil {
			out[cfg.Relayer.Address] = i
		}
	}
	return out
}

// TestOneSenderPerDrawAndSettleAndNothingReverts: three rig processes follow every task, yet
// each task is drawn and settled by exactly one transaction, and no transaction of the whole
// run reverts (before the schedule, 6 of 9 draws and 6 of 9 settles did).
func TestOneSenderPerDrawAndSettleAndNothingReverts(t *testing.T) {
	d, ctx := startDevnet(t, Options{})
	start, err := d.client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := d.Order(ctx, []string{"NVDA", "TSLA", "SPY"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	// A restarted process re-sending a commit its killed predecessor got mined: the sender's
	// simulation sees it would revert, and nothing is sent.
	var committed rig.Entry
	waitFor(ctx, t, "process 1's commit", func() bool {
		e, ok := d.entryOf(ctx, 0, ids[0])
		committed = e
		return ok && e.State != rig.StateDrawn && e.State != rig.StateAnswered
	})
	k := d.configs[0].Operators[0]
	again := rig.NewSender(d.client, k, big.NewInt(ChainID), rig.SenderConfig{Poll: 20 * time.Millisecond})
	_, err = again.Send(ctx, d.Contract, d.abi.PackCommit(new(big.Int).SetUint64(ids[0]), committed.Commitment), nil)
	if !errors.Is(err, rig.ErrWouldRevert) || rig.RevertReason(err) == "" {
		t.Fatalf("re-sent commit: %v (reason %q), want it refused before sending", err, rig.RevertReason(err))
	}
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range reports {
		if !rep.Agreed || rep.Reveals != 3 {
			t.Fatalf("task %+v", rep)
		}
	}
	draws, settles := map[uint64]int{}, map[uint64]int{}
	reverted := 0
	txs := d.minedTxs(ctx, t, start+1)
	for _, tx := range txs {
		if tx.reverted {
			reverted++
			t.Errorf("reverted: %s from %s", tx.method, tx.from.Hex())
		}
		switch tx.method {
		case "draw":
			draws[tx.task]++
		case "settle":
			settles[tx.task]++
		}
	}
	for _, id := range ids {
		if draws[id] != 1 || settles[id] != 1 {
			t.Errorf("task %d: %d draws and %d settles mined, want one each", id, draws[id], settles[id])
		}
	}
	t.Logf("%d transactions mined for %d tasks, %d reverted", len(txs), len(ids), reverted)
}

// TestWhenRankZeroIsDownTheNextRankDraws: the process of the rig ranked first for a task's draw
// is down; one stage delay later the second-ranked process draws it, once, and nothing reverts.
func TestWhenRankZeroIsDownTheNextRankDraws(t *testing.T) {
	d, ctx := startDevnet(t, Options{})
	contract := rig.NewContract(d.client, d.Contract)
	jobRigs, err := contract.JobRigs(ctx, PriceJobID)
	if err != nil {
		t.Fatal(err)
	}
	processOf := map[uint64]int{}
	for i, r := range d.Runners {
		for _, id := range r.RigIDs() {
			processOf[id] = i
		}
	}
	const task = 1 // the devnet's first order
	order := rig.ScheduleOrder(task, nil, jobRigs)
	down, next := processOf[order[0]], processOf[order[1]]
	if err := d.Kill(down); err != nil {
		t.Fatal(err)
	}
	start, err := d.client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := d.Order(ctx, []string{"SPY"}, testMinute())
	if err != nil || ids[0] != task {
		t.Fatalf("order: %v %v", ids, err)
	}
	waitFor(ctx, t, "the draw", func() bool {
		info, err := contract.Task(ctx, big.NewInt(task))
		return err == nil && agentrig.Phase(info.Phase) >= agentrig.PhaseCommit
	})
	senders := d.senders()
	var drawers []int
	for _, tx := range d.minedTxs(ctx, t, start+1) {
		if tx.reverted {
			t.Errorf("reverted: %s from process %d", tx.method, senders[tx.from]+1)
		}
		if tx.method == "draw" {
			drawers = append(drawers, senders[tx.from])
		}
	}
	if !slices.Equal(drawers, []int{next}) {
		t.Fatalf("draws sent by processes %v, want only process %d (rank 1; rank 0's process %d is down)", drawers, next, down)
	}
	// The process comes back and the task ends as usual.
	if err := d.Restart(ctx, down); err != nil {
		t.Fatal(err)
	}
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reports[0].Agreed {
		t.Fatalf("task %+v", reports[0])
	}
	for _, tx := range d.minedTxs(ctx, t, start+1) {
		if tx.reverted {
			t.Errorf("reverted after the restart: %s from process %d", tx.method, senders[tx.from]+1)
		}
	}
}
