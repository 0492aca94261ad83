package rig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/internal/nodetest"
	rigtask "github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

func TestScheduleOrderIsTheSameEverywhereAndDrawnRigsGoFirst(t *testing.T) {
	rigs := []uint64{1, 2, 3, 4, 5, 6, 7}
	for task := uint64(1); task <= 50; task++ {
		order := ScheduleOrder(task, nil, rigs)
		// Any process, whatever order it listed the rigs in, gets the same schedule.
		shuffled := slices.Clone(rigs)
		slices.Reverse(shuffled)
		if got := ScheduleOrder(task, nil, shuffled); !slices.Equal(got, order) {
			t.Fatalf("task %d: %v and %v", task, order, got)
		}
		sorted := slices.Clone(order)
		slices.Sort(sorted)
		if !slices.Equal(sorted, rigs) {
			t.Fatalf("task %d: %v is not a permutation of %v", task, order, rigs)
		}
		for i := 1; i < len(order); i++ {
			a, b := ScheduleKey(task, order[i-1]), ScheduleKey(task, order[i])
			if strings.Compare(a.Hex(), b.Hex()) >= 0 {
				t.Fatalf("task %d: not sorted by key at %d", task, i)
			}
		}
		drawn := []uint64{6, 2, 4}
		settle := ScheduleOrder(task, drawn, rigs)
		if len(settle) != len(rigs) || !slices.Equal(slices.Sorted(slices.Values(settle[:3])), []uint64{2, 4, 6}) {
			t.Fatalf("task %d: settle order %v does not start with the drawn rigs", task, settle)
		}
	}
	// The key is keccak256(abi.encode(uint256 taskId, uint64 rigId)).
	want := crypto.Keccak256Hash(append(make([]byte, 31), append([]byte{7}, append(make([]byte, 31), 3)...)...))
	if got := ScheduleKey(7, 3); got != want {
		t.Fatalf("key %s, want %s", got.Hex(), want.Hex())
	}
	// Rank 0 goes first on some tasks and not on others: the load spreads over the rigs.
	firsts := map[uint64]int{}
	for task := uint64(1); task <= 300; task++ {
		firsts[ScheduleOrder(task, nil, rigs)[0]]++
	}
	if len(firsts) != len(rigs) {
		t.Fatalf("first senders over 300 tasks: %v", firsts)
	}
	ours := func(ids ...uint64) func(uint64) bool {
		return func(id uint64) bool { return slices.Contains(ids, id) }
	}
	order := []uint64{5, 3, 9}
	if ScheduleRank(order, ours(9, 3)) != 1 || ScheduleRank(order, ours(5)) != 0 || ScheduleRank(order, ours(42)) != 3 {
		t.Fatal("rank is the place of our first rig, or last")
	}
}

// blindChain is a node that cannot simulate against its pending state (its pending is its latest
// block and knows nothing yet): what slips past the simulation must still be logged with why it
// reverted.
type blindChain struct{ *nodetest.GatedChain }

func (blindChain) PendingCallContract(context.Context, ethereum.CallMsg) ([]byte, error) {
	return nil, nil
}

func (blindChain) EstimateGas(context.Context, ethereum.CallMsg) (uint64, error) { return 100_000, nil }

func TestSenderDoesNotSendWhatWouldRevertAndNamesEveryRevert(t *testing.T) {
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	nodetest.MineWhen(t, sim.Backend, func() bool { return true })
	key := rigtask.Key{Address: sim.Addr(1), Private: sim.Keys[1], From: "test"}
	chain := &nodetest.GatedChain{Client: sim.Client}
	ctx := context.Background()

	// withdraw() with no credits reverts NothingToWithdraw: simulated, not sent.
	s := txm.NewSender(chain, key, sim.ChainID, txm.SenderConfig{Poll: time.Millisecond})
	_, err = s.Send(ctx, sim.Address, sim.ABI.PackWithdraw(), nil)
	if !errors.Is(err, txm.ErrWouldRevert) || agentrig.RevertReason(err) != "NothingToWithdraw" || chain.Sends.Load() != 0 {
		t.Fatalf("err %v (reason %q), %d sent", err, agentrig.RevertReason(err), chain.Sends.Load())
	}

	// A node that cannot simulate lets it through: it reverts on chain, and the error and the log
	// name the contract's reason, replayed at the block.
	var logs syncBuf
	blind := txm.NewSender(blindChain{chain}, key, sim.ChainID, txm.SenderConfig{Poll: time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	rec, err := blind.Send(ctx, sim.Address, sim.ABI.PackWithdraw(), nil)
	if !errors.Is(err, txm.ErrReverted) || agentrig.RevertReason(err) != "NothingToWithdraw" || rec == nil || rec.Status != 0 || chain.Sends.Load() != 1 {
		t.Fatalf("err %v (reason %q), receipt %v, %d sent", err, agentrig.RevertReason(err), rec, chain.Sends.Load())
	}
	if !strings.Contains(logs.String(), "transaction reverted") || !strings.Contains(logs.String(), "reason=NothingToWithdraw") {
		t.Fatalf("log: %s", logs.String())
	}

}

// syncBuf is a log sink safe for concurrent writers.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The stage delay stretches to twice the slowest of our recent draws and settles, or of one
// still on its way, and no further than ten stage delays; a send that was never mined (it would
// have reverted) says nothing of mining.
func TestStagePaceStretchesTheDelayToHowLongSendsTake(t *testing.T) {
	var p stagePace
	t0 := time.Unix(1_800_000_000, 0)
	base := time.Second
	if got := p.delay(base, t0); got != base {
		t.Fatalf("no sends yet: delay %s, want the base %s", got, base)
	}
	p.begin("draw/1", t0)
	p.end("draw/1", t0.Add(300*time.Millisecond), true)
	if got := p.delay(base, t0); got != base {
		t.Fatalf("a 300 ms send: delay %s, want the base", got)
	}
	p.begin("draw/2", t0)
	p.end("draw/2", t0.Add(1500*time.Millisecond), true)
	if got := p.delay(base, t0); got != 3*time.Second {
		t.Fatalf("a 1.5 s send: delay %s, want 3s", got)
	}
	p.begin("settle/3", t0)
	p.end("settle/3", t0.Add(time.Minute), false)
	if got := p.delay(base, t0); got != 3*time.Second {
		t.Fatalf("a send never mined moved the delay to %s", got)
	}
	p.begin("settle/4", t0)
	if got := p.delay(base, t0.Add(2*time.Second)); got != 4*time.Second {
		t.Fatalf("a send on its way for 2 s: delay %s, want 4s", got)
	}
	if got := p.delay(base, t0.Add(time.Hour)); got != 10*base {
		t.Fatalf("a send on its way for an hour: delay %s, want the cap of ten stage delays", got)
	}
	p.end("settle/4", t0.Add(2*time.Second), true)
	// The slow ones age out once paceSamples fast ones follow.
	for i := range paceSamples {
		key := fmt.Sprintf("draw/%d", 10+i)
		p.begin(key, t0)
		p.end(key, t0.Add(100*time.Millisecond), true)
	}
	if got := p.delay(base, t0); got != base {
		t.Fatalf("after %d fast sends: delay %s, want the base", paceSamples, got)
	}
}

// A rank k > 0 sends once the stage is k (stretched) stage delays old and k blocks deep: a
// stalled chain, whose pool holds rank 0's transaction, does not bring rank 1 in.
func TestDueWaitsForTimeAndBlocks(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	now := t0
	r := &Runner{cfg: Config{StageDelay: time.Second, Now: func() time.Time { return now }},
		rigs: map[uint64]*rigHandle{2: {id: 2}}, jobRigs: []uint64{1, 2, 3}, jobRigsAt: t0}
	var task uint64
	for task = 1; ScheduleRank(ScheduleOrder(task, nil, r.jobRigs), func(id uint64) bool { return id == 2 }) != 1; task++ {
	}
	ts := &taskState{id: task, stageSince: t0, stageBlock: 10}
	at := func(d time.Duration, block int64) bool {
		now = t0.Add(d)
		return r.due(t.Context(), ts, &types.Header{Number: big.NewInt(block)}, nil)
	}
	if at(500*time.Millisecond, 20) {
		t.Fatal("rank 1 due half a stage delay in")
	}
	if at(5*time.Second, 10) {
		t.Fatal("rank 1 due with the chain stalled at the stage's block")
	}
	if !at(time.Second, 11) {
		t.Fatal("rank 1 not due one stage delay and one block in")
	}
	r.pace.begin("draw/99", t0) // one of our sends, on its way for 1.5 s at the next look
	if at(1500*time.Millisecond, 11) {
		t.Fatal("rank 1 due while our own send has been on its way for as long")
	}
	r.pace.end("draw/99", t0.Add(1500*time.Millisecond), true)
	if at(2900*time.Millisecond, 11) {
		t.Fatal("rank 1 due before twice the time our slowest send took")
	}
	if !at(3*time.Second, 11) {
		t.Fatal("rank 1 not due at twice the time our slowest send took")
	}
}

// noJobRigsNode is a node that fails every jobRigs call as an unreachable one would, and serves
// the rest.
type noJobRigsNode struct {
	agentrig.Backend
	failed atomic.Int32
}

func (n *noJobRigsNode) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	if bytes.HasPrefix(msg.Data, agentrig.NewAgentRig().PackJobRigs(0)[:4]) {
		n.failed.Add(1)
		return nil, nodetest.Refused()
	}
	return n.Backend.CallContract(ctx, msg, block)
}

// A process whose node fails the jobRigs read does not know its place in the schedule: it waits
// at the back, not at rank 0 (where every process in that state would send its draw at once). A
// rig drawn in the task still knows its place among the drawn, who settle first.
func TestDueKeepsAProcessThatCannotReadTheJobsRigsAtTheBack(t *testing.T) {
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	node := &noJobRigsNode{Backend: sim.Client}
	t0 := time.Unix(1_800_000_000, 0)
	now := t0
	r := &Runner{cfg: Config{JobID: 2, StageDelay: time.Second, Now: func() time.Time { return now }},
		deploy: agentrig.NewReferenceDeployment(agentrig.NewContract(node, sim.Address)), log: slog.New(slog.DiscardHandler),
		rigs: map[uint64]*rigHandle{2: {id: 2}}}
	ts := &taskState{id: 7, stageSince: t0, stageBlock: 10}
	at := func(d time.Duration, block int64, drawn []uint64) bool {
		now = t0.Add(d)
		return r.due(t.Context(), ts, &types.Header{Number: big.NewInt(block)}, drawn)
	}
	if at(0, 11, nil) {
		t.Fatal("a process that cannot read the job's rigs sends its draw at once, as rank 0")
	}
	if node.failed.Load() == 0 {
		t.Fatal("the node was never asked for the job's rigs")
	}
	back := time.Duration(unknownRank) * time.Second
	if at(back-time.Millisecond, 10+unknownRank, nil) || at(back, 9+unknownRank, nil) {
		t.Fatalf("due before the back of the schedule (%d stage delays and blocks)", unknownRank)
	}
	if !at(back, 10+unknownRank, nil) {
		t.Fatal("never due: a task must still move on when every node fails that read")
	}
	// Drawn first in the settle order, our rig's place is known whatever the rest of the list.
	var task uint64
	for task = 1; ScheduleOrder(task, []uint64{2, 5}, nil)[0] != 2; task++ {
	}
	ts = &taskState{id: task, stageSince: t0, stageBlock: 10}
	if !at(0, 11, []uint64{2, 5}) {
		t.Fatal("the first drawn rig does not settle at once")
	}
}
