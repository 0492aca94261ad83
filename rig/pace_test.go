package rig

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/internal/nodetest"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

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
	r := &Runner{cfg: Config{StageDelay: time.Second, Now: func() time.Time { return now }, Clock: agentrig.EthereumClock{}},
		rigs: map[uint64]*rigHandle{2: {id: 2}}, jobRigs: []uint64{1, 2, 3}, jobRigsAt: t0}
	var task uint64
	for task = 1; rigtask.ScheduleRank(rigtask.ScheduleOrder(task, nil, r.jobRigs), func(id uint64) bool { return id == 2 }) != 1; task++ {
	}
	ts := &taskState{id: task, stageSince: t0, stageBlock: 10}
	at := func(d time.Duration, block int64) bool {
		now = t0.Add(d)
		return r.due(t.Context(), ts, agentrig.Head{Header: &types.Header{Number: big.NewInt(block)}}, nil)
	}
	if at(500*time.Millisecond, 20) {
		t.Fatal("rank 1 due half a stage delay in")
	}
	if at(4*time.Second, 10) { // rank 1's second turn of three (onTurn), the chain stalled
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
	r := &Runner{cfg: Config{JobID: 2, StageDelay: time.Second, Now: func() time.Time { return now }, Clock: agentrig.EthereumClock{}},
		deploy: agentrig.NewReferenceDeployment(agentrig.NewContract(node, sim.Address)), log: slog.New(slog.DiscardHandler),
		rigs: map[uint64]*rigHandle{2: {id: 2}}}
	ts := &taskState{id: 7, stageSince: t0, stageBlock: 10}
	at := func(d time.Duration, block int64, drawn []uint64) bool {
		now = t0.Add(d)
		return r.due(t.Context(), ts, agentrig.Head{Header: &types.Header{Number: big.NewInt(block)}}, drawn)
	}
	if at(0, 11, nil) {
		t.Fatal("a process that cannot read the job's rigs sends its draw at once, as rank 0")
	}
	if node.failed.Load() == 0 {
		t.Fatal("the node was never asked for the job's rigs")
	}
	// At the back, it sends in the second half of a turn (onTurn), when no listed rank starts one.
	back := time.Duration(unknownRank)*time.Second + time.Second/2
	if at(time.Duration(unknownRank)*time.Second-time.Millisecond, 10+unknownRank, nil) || at(back, 9+unknownRank, nil) {
		t.Fatalf("due before the back of the schedule (%d stage delays and blocks)", unknownRank)
	}
	if !at(back, 10+unknownRank, nil) {
		t.Fatal("never due: a task must still move on when every node fails that read")
	}
	// Drawn first in the settle order, our rig's place is known whatever the rest of the list.
	var task uint64
	for task = 1; rigtask.ScheduleOrder(task, []uint64{2, 5}, nil)[0] != 2; task++ {
	}
	ts = &taskState{id: task, stageSince: t0, stageBlock: 10}
	if !at(0, 11, []uint64{2, 5}) {
		t.Fatal("the first drawn rig does not settle at once")
	}
}
