package rig

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig/agentrig"
)

// countingNode is a Backend that counts the requests a runner makes of its node: each call, and
// each JSON-RPC batch with the requests it carried.
type countingNode struct {
	Backend
	taskOf []byte // taskOf's selector

	mu            sync.Mutex
	calls         map[string]int
	taskOfSingles int // taskOf read one call at a time
	taskOfBatches int // JSON-RPC batches carrying taskOf reads
	taskOfInBatch int
	// estimatesInBatch counts the eth_estimateGas requests carried by batches.
	estimatesInBatch int
}

func newCountingNode(b Backend) *countingNode {
	return &countingNode{Backend: b, taskOf: agentrig.NewAgentRig().PackTaskOf(big.NewInt(0))[:4], calls: map[string]int{}}
}

func (c *countingNode) count(method string) {
	c.mu.Lock()
	c.calls[method]++
	c.mu.Unlock()
}

func (c *countingNode) snapshot() (calls map[string]int, singles, batches, inBatch int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls = map[string]int{}
	for k, v := range c.calls {
		calls[k] = v
	}
	return calls, c.taskOfSingles, c.taskOfBatches, c.taskOfInBatch
}

func (c *countingNode) reset() {
	c.mu.Lock()
	c.calls, c.taskOfSingles, c.taskOfBatches, c.taskOfInBatch, c.estimatesInBatch = map[string]int{}, 0, 0, 0, 0
	c.mu.Unlock()
}

func (c *countingNode) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	c.count("eth_call")
	if bytes.HasPrefix(msg.Data, c.taskOf) {
		c.mu.Lock()
		c.taskOfSingles++
		c.mu.Unlock()
	}
	return c.Backend.CallContract(ctx, msg, block)
}

func (c *countingNode) PendingCallContract(ctx context.Context, msg ethereum.CallMsg) ([]byte, error) {
	c.count("eth_call@pending")
	return c.Backend.PendingCallContract(ctx, msg)
}

func (c *countingNode) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	c.count("eth_estimateGas")
	return c.Backend.EstimateGas(ctx, msg)
}

func (c *countingNode) EstimateGasAtBlock(ctx context.Context, msg ethereum.CallMsg, block *big.Int) (uint64, error) {
	c.count("eth_estimateGas@" + block.String())
	return c.Backend.(pendingEstimator).EstimateGasAtBlock(ctx, msg, block)
}

func (c *countingNode) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	c.count("eth_sendRawTransaction")
	return c.Backend.SendTransaction(ctx, tx)
}

func (c *countingNode) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	c.count("eth_getLogs")
	return c.Backend.FilterLogs(ctx, q)
}

func (c *countingNode) BatchCallContext(ctx context.Context, b []rpc.BatchElem) error {
	c.count("batch")
	n := 0
	for _, e := range b {
		if args, ok := e.Args[0].(map[string]any); ok && e.Method == "eth_call" {
			if data, ok := args["data"].(hexutil.Bytes); ok && bytes.HasPrefix(data, c.taskOf) {
				n++
			}
		}
	}
	c.mu.Lock()
	if n > 0 {
		c.taskOfBatches++
		c.taskOfInBatch += n
	}
	c.mu.Unlock()
	// The simulated backend's client hides its raw JSON-RPC client, so the batch's calls are
	// made here one by one on the same chain (the devnet tests batch over real JSON-RPC).
	for i := range b {
		e := &b[i]
		args, ok := e.Args[0].(map[string]any)
		if !ok || len(e.Args) != 2 {
			e.Error = fmt.Errorf("countingNode: cannot relay %s %v", e.Method, e.Args)
			continue
		}
		msg := ethereum.CallMsg{Data: args["data"].(hexutil.Bytes)}
		to := args["to"].(common.Address)
		msg.To = &to
		msg.From, _ = args["from"].(common.Address)
		if v, ok := args["value"].(*hexutil.Big); ok {
			msg.Value = v.ToInt()
		}
		var block *big.Int
		switch tag := e.Args[1].(string); tag {
		case "latest":
		case "pending":
			block = pendingBlock
		default:
			block = hexutil.MustDecodeBig(tag)
		}
		switch e.Method {
		case "eth_call":
			out, err := c.Backend.CallContract(ctx, msg, block)
			if err != nil {
				e.Error = err
				continue
			}
			*e.Result.(*hexutil.Bytes) = out
		case "eth_estimateGas":
			c.mu.Lock()
			c.estimatesInBatch++
			c.mu.Unlock()
			gas, err := c.Backend.(pendingEstimator).EstimateGasAtBlock(ctx, msg, block)
			if err != nil {
				e.Error = err
				continue
			}
			*e.Result.(*hexutil.Uint64) = hexutil.Uint64(gas)
		default:
			e.Error = fmt.Errorf("countingNode: cannot relay %s", e.Method)
		}
	}
	return nil
}

// countingJournal counts the journal's calls.
type countingJournal struct {
	Journal
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

func (j *countingJournal) Advance(ctx context.Context, taskID, rigID uint64, to State, update func(*Entry)) error {
	j.count("Advance")
	return j.Journal.Advance(ctx, taskID, rigID, to, update)
}

func (j *countingJournal) Get(ctx context.Context, taskID, rigID uint64) (Entry, bool, error) {
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
		node := newCountingNode(b.sim.Client)
		journal := &countingJournal{Journal: b.journal, calls: map[string]int{}}
		r, err := NewRunner(b.ctx, node, journal, nil, b.cfg)
		if err != nil {
			t.Fatal(err)
		}
		b.r = r
		// First look: every rig's commit of every task goes out as one commitMany.
		b.step()
		b.mineUntil("commits", b.all(StateCommitted))
		b.r.wg.Wait()

		// Second look, every task now in its reveal window: the reveals go out.
		node.reset()
		journal.reset()
		b.step()
		b.mineUntil("reveals", b.all(StateRevealed))
		b.r.wg.Wait()
		calls, singles, batches, inBatch := node.snapshot()
		if singles != 0 || batches != 1 || inBatch != tasks {
			t.Fatalf("%d open tasks: taskOf read %d times alone and in %d batches carrying %d; want one batch of %d", tasks, singles, batches, inBatch, tasks)
		}
		entries := 3 * tasks
		node.mu.Lock()
		estimates := node.estimatesInBatch
		node.mu.Unlock()
		// Two round trips in all: the step's read of the tasks, and the plan's estimates.
		if calls["batch"] != 2 || estimates != entries+1 || calls["eth_estimateGas@"+pendingBlock.String()] != 0 || calls["eth_estimateGas"] != 0 ||
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
	node := newCountingNode(b.sim.Client)
	c := NewContract(b.sim.Client, b.sim.Address)
	for name, contract := range map[string]*Contract{"batched": NewContract(node, b.sim.Address), "one by one": c} {
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
	if _, singles, batches, inBatch := node.snapshot(); singles != 0 || batches != 1 || inBatch != len(ids) {
		t.Fatalf("batched: %d reads alone, %d batches carrying %d", singles, batches, inBatch)
	}
}

func (c *countingNode) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	c.count("eth_maxPriorityFeePerGas")
	return c.Backend.SuggestGasTipCap(ctx)
}

// While heads come by subscription a sender asks the node for fees once a block, however many
// transactions it sends in that block, and asks again once the next head arrives.
func TestSenderQuotesFeesOncePerHead(t *testing.T) {
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	node := newCountingNode(sim.Client)
	var mu sync.Mutex
	next := make(chan struct{})
	head := func() <-chan struct{} { mu.Lock(); defer mu.Unlock(); return next }
	s := NewSender(node, Key{Address: sim.Addr(1), Private: sim.Keys[1]}, sim.ChainID, SenderConfig{NextHead: head})
	burst := func() {
		var wg sync.WaitGroup
		for range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, _, err := s.fees(t.Context()); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	burst()
	if calls, _, _, _ := node.snapshot(); calls["eth_maxPriorityFeePerGas"] != 1 {
		t.Fatalf("five sends in one block asked for fees %d times, want 1", calls["eth_maxPriorityFeePerGas"])
	}
	mu.Lock()
	close(next) // a new head
	next = make(chan struct{})
	mu.Unlock()
	burst()
	if calls, _, _, _ := node.snapshot(); calls["eth_maxPriorityFeePerGas"] != 2 {
		t.Fatalf("after a new head: asked %d times in all, want 2", calls["eth_maxPriorityFeePerGas"])
	}
	// Polling (no subscription): every send asks.
	p := NewSender(node, Key{Address: sim.Addr(1), Private: sim.Keys[1]}, sim.ChainID, SenderConfig{NextHead: func() <-chan struct{} { return nil }})
	for range 3 {
		if _, _, err := p.fees(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if calls, _, _, _ := node.snapshot(); calls["eth_maxPriorityFeePerGas"] != 5 {
		t.Fatalf("polling: asked %d times in all, want 5", calls["eth_maxPriorityFeePerGas"])
	}
}
