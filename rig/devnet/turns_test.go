package devnet

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	rigtask "github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// sentTx is one transaction mined on the devnet.
type sentTx struct {
	from     common.Address
	method   string // the contract method called, "" for anything else
	task     uint64 // for draw and settle
	reverted bool
	gas      uint64 // gas used
}

// minedTxs lists every transaction to the contract mined from block from on, with its status.
func (d *Devnet) minedTxs(ctx context.Context, t testing.TB, from uint64) []sentTx {
	t.Helper()
	head, err := d.client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txs, err := d.Mined(ctx, from, head)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]sentTx, 0, len(txs))
	for _, tx := range txs {
		s := sentTx{from: tx.From, method: tx.Method, reverted: tx.Reverted, gas: tx.GasUsed}
		if (tx.Method == "draw" || tx.Method == "settle") && len(tx.Tasks) > 0 {
			s.task = tx.Tasks[0]
		}
		out = append(out, s)
	}
	return out
}

// pooled reports whether a transaction sent for rig process i waits in the chain's pool.
func (d *Devnet) pooled(ctx context.Context, t *testing.T, i int) bool {
	t.Helper()
	c, err := rpc.DialContext(ctx, d.Chain.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var content struct {
		Pending map[common.Address]map[string]json.RawMessage `json:"pending"`
	}
	if err := c.CallContext(ctx, &content, "txpool_content"); err != nil {
		t.Fatal(err)
	}
	for addr, n := range d.senders() {
		if n == i && len(content.Pending[addr]) > 0 {
			return true
		}
	}
	return false
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
	t.Parallel()
	bothChains(t, oneSenderPerDrawAndSettleAndNothingReverts)
}

func oneSenderPerDrawAndSettleAndNothingReverts(t *testing.T, l1 uint64) {
	d, ctx := startDevnet(t, Options{L1Block: l1})
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
	var committed journal.Entry
	waitFor(ctx, t, "process 1's commit", func() bool {
		e, ok := d.entryOf(ctx, 0, ids[0])
		committed = e
		return ok && e.State != journal.StateDrawn && e.State != journal.StateAnswered
	})
	k := d.configs[0].Operators[0]
	again := txm.NewSender(d.client, k, big.NewInt(ChainID), txm.SenderConfig{Poll: 20 * time.Millisecond})
	_, err = again.Send(ctx, d.Contract, d.abi.PackCommit(new(big.Int).SetUint64(ids[0]), committed.Commitment), nil)
	if !errors.Is(err, txm.ErrWouldRevert) || agentrig.RevertReason(err) == "" {
		t.Fatalf("re-sent commit: %v (reason %q), want it refused before sending", err, agentrig.RevertReason(err))
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
	t.Parallel()
	bothChains(t, whenRankZeroIsDownTheNextRankDraws)
}

func whenRankZeroIsDownTheNextRankDraws(t *testing.T, l1 uint64) {
	d, ctx := startDevnet(t, Options{L1Block: l1})
	contract := agentrig.NewContract(d.client, d.Contract)
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
	order := rigtask.ScheduleOrder(task, nil, jobRigs)
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

// TestScheduleHoldsWhenEachRankIsKilled: five rig processes of one rig each. In round k the
// processes of the rigs ranked 0..k-1 for the task's draw are down when the task is ordered,
// and those ranked 0..k-1 for its settle are killed before the settle can come due: the chain
// holds itself in the block that mines the draw (HoldAfter), so no commit, reveal or settle can
// land before this test seals the blocks, and the victims' reveals wait in its pool when they are
// killed. The draw and the settle are each mined once, from the process ranked k — the handover
// reaches every rank, not only rank 1 — with no reverted transaction; all
// read from the chain. A round the test could not hold fails: it would not test the handover.
func TestScheduleHoldsWhenEachRankIsKilled(t *testing.T) {
	t.Parallel()
	bothChains(t, scheduleHoldsWhenEachRankIsKilled)
}

func scheduleHoldsWhenEachRankIsKilled(t *testing.T, l1 uint64) {
	const processes = 5
	// Five rounds of kills and restarts: 360 s under -race at a load of 10-13 on 2 cores, so
	// more than testbound.Cap.
	d, ctx := startDevnetWithin(t, Options{L1Block: l1, Layout: []int{1, 1, 1, 1, 1}}, 15*time.Minute)
	contract := agentrig.NewContract(d.client, d.Contract)
	jobRigs, err := contract.JobRigs(ctx, PriceJobID)
	if err != nil || len(jobRigs) != processes {
		t.Fatalf("job rigs %v %v", jobRigs, err)
	}
	processOf := map[uint64]int{}
	for i, r := range d.Runners {
		for _, id := range r.RigIDs() {
			processOf[id] = i
		}
	}
	senders := d.senders()
	phase := func(task uint64) agentrig.AgentRigTaskInfo {
		info, err := contract.Task(ctx, new(big.Int).SetUint64(task))
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	ranked := func(order []uint64, k int) (victims []int, sender int) {
		for _, id := range order[:k] {
			victims = append(victims, processOf[id])
		}
		return victims, processOf[order[k]]
	}
	seal := func() { // one block, while the chain is held
		if err := d.Chain.Do(func(b *Sequencer) error { b.Commit(); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	for k := range processes {
		task := uint64(k + 1) // the devnet orders tasks 1, 2, …
		drawOrder := rigtask.ScheduleOrder(task, nil, jobRigs)
		drawDown, drawer := ranked(drawOrder, k)
		for _, i := range drawDown {
			if err := d.Kill(i); err != nil {
				t.Fatal(err)
			}
		}
		start, err := d.client.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Hold the chain in the block that mines the draw: from there the commits gather in its
		// pool and go in by blocks this test seals, so no reveal can land, and no settle come
		// due, before the kill. (The rigs learn of the draw only from that block, so none of
		// their commits can be in it.)
		d.Chain.HoldAfter(func() bool {
			info, err := contract.Task(ctx, new(big.Int).SetUint64(task))
			return err == nil && agentrig.Phase(info.Phase) >= agentrig.PhaseCommit
		})
		ids, err := d.Order(ctx, []string{"SPY"}, testMinute())
		if err != nil || ids[0] != task {
			t.Fatalf("round %d: order %v %v", k, ids, err)
		}
		waitFor(ctx, t, "the draw", func() bool { return agentrig.Phase(phase(task).Phase) >= agentrig.PhaseCommit })
		info := phase(task)
		if !d.Chain.Held() || agentrig.Phase(info.Phase) != agentrig.PhaseCommit || info.CommittedMask != 0 {
			d.Chain.Resume()
			t.Fatalf("round %d: the chain did not hold in the draw's block (held %v, phase %d, commits %b): the settle's handover cannot be tested",
				k, d.Chain.Held(), info.Phase, info.CommittedMask)
		}
		for _, i := range drawDown { // a drawn one commits late
			if err := d.Restart(ctx, i); err != nil {
				t.Fatal(err)
			}
		}
		settleOrder := rigtask.ScheduleOrder(task, info.RigIds, jobRigs)
		settleDown, settler := ranked(settleOrder, k)
		for agentrig.Phase(phase(task).Phase) == agentrig.PhaseCommit {
			waitFor(ctx, t, "every missing commit in the pool", func() bool {
				info := phase(task)
				for idx, id := range info.RigIds {
					if info.CommittedMask&(1<<idx) == 0 && !d.pooled(ctx, t, processOf[id]) {
						return false
					}
				}
				return true
			})
			seal()
		}
		// Each drawn victim's reveal must be in (or waiting in the pool), or the task would wait
		// out the reveal window for it.
		for _, i := range settleDown {
			if idx := slices.IndexFunc(info.RigIds, func(id uint64) bool { return processOf[id] == i }); idx >= 0 {
				waitFor(ctx, t, "a victim's reveal", func() bool {
					return phase(task).RevealedMask&(1<<idx) != 0 || d.pooled(ctx, t, i)
				})
			}
		}
		// Still held short of the settle phase: no rank can have sent the settle before the kill.
		if now := phase(task); !d.Chain.Held() || agentrig.Phase(now.Phase) >= agentrig.PhaseSettle {
			d.Chain.Resume()
			t.Fatalf("round %d: the task reached phase %d (chain held %v) before ranks 0..%d were killed: the settle's handover cannot be tested",
				k, now.Phase, d.Chain.Held(), k-1)
		}
		for _, i := range settleDown {
			if err := d.Kill(i); err != nil {
				d.Chain.Resume()
				t.Fatal(err)
			}
		}
		d.Chain.Resume()
		waitFor(ctx, t, "the settle", func() bool { return agentrig.Phase(phase(task).Phase) == agentrig.PhaseSettled })
		for _, i := range settleDown {
			if err := d.Restart(ctx, i); err != nil {
				t.Fatal(err)
			}
		}
		var drawers, settlers []int
		reverted := 0
		for _, tx := range d.minedTxs(ctx, t, start+1) {
			if tx.reverted {
				reverted++
				t.Logf("round %d: reverted %s from process %d", k, tx.method, senders[tx.from]+1)
				continue
			}
			switch {
			case tx.method == "draw" && tx.task == task:
				drawers = append(drawers, senders[tx.from])
			case tx.method == "settle" && tx.task == task:
				settlers = append(settlers, senders[tx.from])
			}
		}
		if !slices.Equal(drawers, []int{drawer}) {
			t.Errorf("round %d: draws mined from processes %v, want one from process %d (rank %d; ranks 0..%d, processes %v, down)", k, drawers, drawer, k, k-1, drawDown)
		}
		if !slices.Equal(settlers, []int{settler}) {
			t.Errorf("round %d: settles mined from processes %v, want one from process %d (rank %d; ranks 0..%d, processes %v, killed)", k, settlers, settler, k, k-1, settleDown)
		}
		if reverted > 0 {
			t.Errorf("round %d: %d reverted transactions, want none", k, reverted)
		}
	}
}
