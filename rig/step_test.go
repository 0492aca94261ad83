package rig

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/internal/nodetest"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
)

// countingJournal counts the journal's calls.
type countingJournal struct {
	rigjournal.Journal
	mu    sync.Mutex
	calls map[string]int
}

func (j *countingJournal) count(name string) {
	j.mu.Lock()
	j.calls[name]++
	j.mu.Unlock()
}

func (j *countingJournal) snapshot() map[string]int {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string]int{}
	for k, v := range j.calls {
		out[k] = v
	}
	return out
}

func (j *countingJournal) reset() {
	j.mu.Lock()
	j.calls = map[string]int{}
	j.mu.Unlock()
}

func (j *countingJournal) Drawn(ctx context.Context, taskID, rigID uint64, d time.Time) error {
	j.count("Drawn")
	return j.Journal.Drawn(ctx, taskID, rigID, d)
}

func (j *countingJournal) Advance(ctx context.Context, taskID, rigID uint64, to rigjournal.State, update func(*rigjournal.Entry)) error {
	j.count("Advance")
	return j.Journal.Advance(ctx, taskID, rigID, to, update)
}

func (j *countingJournal) Get(ctx context.Context, taskID, rigID uint64) (rigjournal.Entry, bool, error) {
	j.count("Get")
	return j.Journal.Get(ctx, taskID, rigID)
}

func (j *countingJournal) SetCursor(ctx context.Context, name string, block uint64) error {
	j.count("SetCursor")
	return j.Journal.SetCursor(ctx, name, block)
}

// One look at the chain reads every open task in one JSON-RPC batch, whatever their number, and
// re-asserts nothing through the journal: only what changed is written. Its answers are checked
// and estimated with one eth_estimateGas each at the pending state, the batch once more, all in
// one JSON-RPC batch, and the batch is sent on that estimate without being simulated again.
func TestStepRoundTripsDoNotGrowWithOpenTasks(t *testing.T) {
	for _, tasks := range []int{2, 8} {
		b := newBatchRig(t, false, tasks)
		node := nodetest.NewCountingNode(b.sim.Client)
		journal := &countingJournal{Journal: b.journal, calls: map[string]int{}}
		r, err := NewRunner(b.ctx, node, journal, nil, b.cfg)
		if err != nil {
			t.Fatal(err)
		}
		b.r = r
		// First look: every rig's commit of every task goes out as one commitMany.
		b.step()
		b.mineUntil("commits", b.all(rigjournal.StateCommitted))
		b.r.wg.Wait()

		// Second look, every task now in its reveal window: the reveals go out.
		node.Reset()
		journal.reset()
		b.step()
		b.mineUntil("reveals", b.all(rigjournal.StateRevealed))
		b.r.wg.Wait()
		calls, singles, batches, inBatch := node.Snapshot()
		if singles != 0 || batches != 1 || inBatch != tasks {
			t.Fatalf("%d open tasks: taskOf read %d times alone and in %d batches carrying %d; want one batch of %d", tasks, singles, batches, inBatch, tasks)
		}
		entries := 3 * tasks
		node.Mu.Lock()
		estimates := node.EstimatesInBatch
		node.Mu.Unlock()
		// Two round trips in all: the step's read of the tasks, and the plan's estimates.
		if calls["batch"] != 2 || estimates != entries+1 || calls["eth_estimateGas@"+nodetest.PendingBlock.String()] != 0 || calls["eth_estimateGas"] != 0 ||
			calls["eth_call@pending"] != 0 || calls["eth_sendRawTransaction"] != 1 {
			t.Fatalf("%d reveals: %v, %d estimates in batches; want one batch carrying an estimate at the pending state per reveal and one for "+
				"their batch, nothing simulated or estimated apart, one transaction", entries, calls, estimates)
		}
		jc := journal.snapshot()
		// Each reveal mined is one write; the draws, the answers and the commits the step
		// saw again are not read or written again.
		if jc["Get"] != 0 || jc["Drawn"] != 0 || jc["Advance"] != entries || jc["SetCursor"] > 1 {
			t.Fatalf("%d reveals: journal calls %v; want %d Advance (the reveals), at most one SetCursor, nothing else", entries, jc, entries)
		}
	}
}

// Contract.Tasks reads the same views as one taskOf call each, in order, in a batch or without
// (a backend with no batch caller).
func TestTasksReadsWhatTaskOfReads(t *testing.T) {
	b := newBatchRig(t, false, 3)
	ids := append([]uint64{}, b.tasks...)
	ids = append(ids, 99) // no such task: the contract answers a zero view
	node := nodetest.NewCountingNode(b.sim.Client)
	c := agentrig.NewContract(b.sim.Client, b.sim.Address)
	for name, contract := range map[string]*agentrig.Contract{"batched": agentrig.NewContract(node, b.sim.Address), "one by one": c} {
		head, err := b.sim.Client.BlockNumber(b.ctx)
		if err != nil {
			t.Fatal(err)
		}
		infos, errs, err := contract.Tasks(b.ctx, ids, new(big.Int).SetUint64(head))
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			want, werr := c.Task(b.ctx, new(big.Int).SetUint64(id))
			if errs[i] != nil || werr != nil {
				t.Fatalf("%s: task %d: error %v, taskOf alone %v", name, id, errs[i], werr)
			}
			if infos[i].Phase != want.Phase || infos[i].CommitDeadline != want.CommitDeadline || len(infos[i].RigIds) != len(want.RigIds) ||
				infos[i].InputHash != want.InputHash || (infos[i].InputHash == [32]byte{}) != (id == 99) {
				t.Fatalf("%s: task %d read %+v, taskOf alone %+v", name, id, infos[i], want)
			}
		}
	}
	if _, singles, batches, inBatch := node.Snapshot(); singles != 0 || batches != 1 || inBatch != len(ids) {
		t.Fatalf("batched: %d reads alone, %d batches carrying %d", singles, batches, inBatch)
	}
}
