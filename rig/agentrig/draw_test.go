package agentrig_test

import (
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

// TestDrawFollowsTheSeed checks every draw against predictDraw on a job whose list is longer
// than the 64-rig scan and where operator keys repeat: 100 rigs, rig 0 run by B, rig 50 by C
// and all others by A. A quorum-3 task is drawn only when its 64-rig window reaches both B and
// C; otherwise it is refunded on the spot. Tasks are ordered until both outcomes happened.
func TestDrawFollowsTheSeed(t *testing.T) {
	c := newChain(t)
	job := c.publish(numeric.Exact, 3, 0)
	a, b, cc := firstOp, firstOp+1, firstOp+2
	for i := range 100 {
		op := a
		switch i {
		case 0:
			op = b
		case 50:
			op = cc
		}
		c.register(job, op, 1000)
	}
	list := call(c, c.ABI.PackJobRigs(job), c.ABI.UnpackJobRigs)
	if len(list) != 100 {
		t.Fatalf("jobRigs has %d rigs", len(list))
	}
	operators := map[uint64]common.Address{}
	for _, id := range list {
		operators[id] = c.rigInfo(id).Operator
	}
	operator := func(id uint64) common.Address { return operators[id] }
	always := func(uint64) bool { return true }

	drawn, refunded := 0, 0
	for round := 0; round < 8 && (drawn == 0 || refunded == 0); round++ {
		uris := make([]string, 10)
		hashes := make([][32]byte, 10)
		for i := range uris {
			uris[i] = fmt.Sprintf("data:application/json,{\"symbol\":\"NVDA\",\"minute\":%d}", 60*(round*10+i))
			hashes[i] = rigtask.InputHash(uris[i])
		}
		rcpt := c.send(orderer, mul(testPrice, 10), c.ABI.PackOrderMany(job, hashes, uris))
		for _, ev := range events(rcpt, c.ABI.UnpackTaskOrderedEvent) {
			task := ev.TaskId
			want := predictDraw(c.orderBlockHash(task), task, list, operator, always, 3)
			credited := c.credits(c.Addr(orderer))
			got, drawRcpt := c.draw(task)
			if len(want) < 3 {
				refunded++
				if got != nil {
					t.Fatalf("task %s: drawn %v, but the model finds only %v", task, got.RigIds, want)
				}
				r := only(t, events(drawRcpt, c.ABI.UnpackRefundedEvent))
				if r.TaskId.Cmp(task) != 0 || r.Amount.Cmp(testPrice) != 0 || r.Orderer != c.Addr(orderer) {
					t.Fatalf("Refunded %+v", r)
				}
				if now := c.credits(c.Addr(orderer)); new(big.Int).Sub(now, credited).Cmp(testPrice) != 0 {
					t.Fatalf("orderer credited %s, want the price", new(big.Int).Sub(now, credited))
				}
				c.wantPhase(task, agentrig.PhaseRefunded)
				continue
			}
			drawn++
			if got == nil || !slices.Equal(got.RigIds, want) {
				t.Fatalf("task %s: drawn %v, model %v", task, got, want)
			}
			c.wantPhase(task, agentrig.PhaseCommit)
			block, _ := c.Client.HeaderByNumber(t.Context(), drawRcpt.BlockNumber)
			window := uint64(agentrig.DefaultWindow / time.Second)
			if got.CommitDeadline != block.Time+window || got.RevealDeadline != block.Time+2*window || got.JobId != job {
				t.Fatalf("TaskDrawn %+v at block time %d", got, block.Time)
			}
			for _, id := range got.RigIds {
				if c.rigInfo(id).Locked.Sign() == 0 {
					t.Fatalf("drawn rig %d has nothing locked", id)
				}
			}
		}
	}
	if drawn == 0 || refunded == 0 {
		t.Fatalf("after 80 tasks: %d drawn, %d refunded; the scan limit went untested", drawn, refunded)
	}
	t.Logf("%d tasks drawn, %d refunded on the spot", drawn, refunded)
	c.checkSolvent()
}

// TestDrawSkipsLockedRigs: a rig whose free stake cannot lock one more slash is not drawn, and
// when too few rigs are left the task is refunded on the spot (the order itself went through,
// since the job has enough active rigs).
func TestDrawSkipsLockedRigs(t *testing.T) {
	c := newChain(t)
	job := c.publish(numeric.Numeric, 2, 50)
	low := c.register(job, firstOp, 1) // one slash: one task at a time
	// No task settles here, so every draw keeps a slash of each drawn rig locked: the two others
	// can stand the 20 tasks of the first loop and the 5 after it (with 10 slashes each, a draw
	// that passed over the low rig for its first five tasks left them too little, and the test
	// failed on a draw the seed allowed)
	c.register(job, firstOp+1, 30)
	c.register(job, firstOp+2, 30)
	// Draw tasks until the low-stake rig is locked in one.
	for range 20 {
		task, _ := c.order(job, "data:application/json,{}")
		if ev, _ := c.draw(task); ev == nil {
			t.Fatal("not drawn")
		}
		if c.rigInfo(low).Locked.Sign() > 0 {
			break
		}
	}
	if c.rigInfo(low).Locked.Cmp(testSlash) != 0 {
		t.Fatal("the low-stake rig was never drawn in 20 tasks")
	}
	for range 5 {
		task, _ := c.order(job, "data:application/json,{}")
		ev, _ := c.draw(task)
		if ev == nil || slices.Contains(ev.RigIds, low) {
			t.Fatalf("draw with rig %d locked: %v", low, ev)
		}
	}

	// Two rigs with one slash each: the first task locks both, the second finds nobody free.
	job2 := c.publish(numeric.Exact, 2, 0)
	c.register(job2, firstOp, 1)
	c.register(job2, firstOp+1, 1)
	first, _ := c.order(job2, "data:application/json,{}")
	if ev, _ := c.draw(first); ev == nil {
		t.Fatal("first task not drawn")
	}
	second, _ := c.order(job2, "data:application/json,{}")
	ev, rcpt := c.draw(second)
	if ev != nil || len(events(rcpt, c.ABI.UnpackRefundedEvent)) != 1 {
		t.Fatalf("second task drawn %v instead of refunded", ev)
	}
	c.wantPhase(second, agentrig.PhaseRefunded)
	c.checkSolvent()
}

// TestDrawTooEarlyAndReanchor: no draw in the order block itself; a draw 256 blocks later still
// reaches blockhash(orderBlock); one block later the draw re-anchors on the current block and
// must be called again, which then draws from the new anchor's hash.
func TestDrawTooEarlyAndReanchor(t *testing.T) {
	c := newChain(t)
	job := c.publish(numeric.Exact, 2, 0)
	for i := range 4 {
		c.register(job, firstOp+i, 10)
	}
	uris := []string{"data:application/json,{\"n\":1}", "data:application/json,{\"n\":2}"}
	rcpt := c.send(orderer, mul(testPrice, 2), c.ABI.PackOrderMany(job, [][32]byte{rigtask.InputHash(uris[0]), rigtask.InputHash(uris[1])}, uris))
	orderBlock := rcpt.BlockNumber.Uint64()
	tasks := events(rcpt, c.ABI.UnpackTaskOrderedEvent)
	first, second := tasks[0].TaskId, tasks[1].TaskId

	// eth_call at the latest block runs with block.number == orderBlock.
	if err := c.callErr(c.ABI.PackDraw(first)); !agentrig.IsRevert(err, "TooEarly") {
		t.Fatalf("draw in the order block: %v", err)
	}

	list := call(c, c.ABI.PackJobRigs(job), c.ABI.UnpackJobRigs)
	op := func(id uint64) common.Address { return c.rigInfo(id).Operator }
	always := func(uint64) bool { return true }
	hashN := c.orderBlockHash(first)

	c.Mine(255) // the next transaction lands in orderBlock + 256
	got, drawRcpt := c.draw(first)
	if drawRcpt.BlockNumber.Uint64() != orderBlock+256 {
		t.Fatalf("draw landed in block %d, want %d", drawRcpt.BlockNumber, orderBlock+256)
	}
	if want := predictDraw(hashN, first, list, op, always, 2); got == nil || !slices.Equal(got.RigIds, want) {
		t.Fatalf("draw at 256 blocks: %v, model with blockhash(orderBlock) %v", got, want)
	}

	// The second task is now 257 blocks old: re-anchor, no draw, still in the draw phase.
	got, reRcpt := c.draw(second)
	if got != nil {
		t.Fatalf("a draw out of blockhash's reach drew %v", got.RigIds)
	}
	re := only(t, events(reRcpt, c.ABI.UnpackReanchoredEvent))
	if re.TaskId.Cmp(second) != 0 || re.OrderBlock != reRcpt.BlockNumber.Uint64() || re.OrderBlock != orderBlock+257 {
		t.Fatalf("Reanchored %+v in block %d", re, reRcpt.BlockNumber)
	}
	c.wantPhase(second, agentrig.PhaseDraw)
	if info := c.task(second); info.OrderBlock != re.OrderBlock {
		t.Fatalf("taskOf.orderBlock %d, want %d", info.OrderBlock, re.OrderBlock)
	}
	got, _ = c.draw(second)
	if want := predictDraw(c.orderBlockHash(second), second, list, op, always, 2); got == nil || !slices.Equal(got.RigIds, want) {
		t.Fatalf("draw after re-anchoring: %v, model %v", got, want)
	}
	c.wantPhase(second, agentrig.PhaseCommit)
	c.reverts("WrongPhase", stranger, nil, c.ABI.PackDraw(second))
}

// TestRefundAfterAnHour: an undrawn task is refundable by anyone from one hour after its order,
// not a second earlier, and only once; a drawn task is not.
func TestRefundAfterAnHour(t *testing.T) {
	c := newChain(t)
	job := c.publish(numeric.Exact, 2, 0)
	c.register(job, firstOp, 10)
	c.register(job, firstOp+1, 10)
	task, rcpt := c.order(job, "data:application/json,{}")
	drawnTask, _ := c.order(job, "data:application/json,{}")
	if ev, _ := c.draw(drawnTask); ev == nil {
		t.Fatal("not drawn")
	}
	orderBlock, _ := c.Client.HeaderByNumber(t.Context(), rcpt.BlockNumber)
	c.reverts("TooEarly", stranger, nil, c.ABI.PackRefund(task))

	// The refund transaction lands one second after the head: put the head at +3598 s, then
	// +3599 s, and the refund lands at exactly one hour.
	c.advanceTo(orderBlock.Time + 3598)
	c.reverts("TooEarly", stranger, nil, c.ABI.PackRefund(task))
	c.Mine(1)
	if c.headTime() != orderBlock.Time+3599 {
		t.Fatalf("head at +%d s", c.headTime()-orderBlock.Time)
	}
	before := c.credits(c.Addr(orderer))
	r := only(t, events(c.send(stranger, nil, c.ABI.PackRefund(task)), c.ABI.UnpackRefundedEvent))
	if r.Amount.Cmp(testPrice) != 0 || r.Orderer != c.Addr(orderer) {
		t.Fatalf("Refunded %+v", r)
	}
	if got := new(big.Int).Sub(c.credits(c.Addr(orderer)), before); got.Cmp(testPrice) != 0 {
		t.Fatalf("orderer credited %s", got)
	}
	c.wantPhase(task, agentrig.PhaseRefunded)
	if re := c.reverts("WrongPhase", stranger, nil, c.ABI.PackRefund(task)); re.Value.(*agentrig.AgentRigWrongPhase).Phase != uint8(agentrig.PhaseRefunded) {
		t.Fatalf("%+v", re.Value)
	}
	c.reverts("WrongPhase", stranger, nil, c.ABI.PackDraw(task))
	// The drawn task is past its windows by now, but a drawn task is never refunded: it settles.
	c.reverts("WrongPhase", stranger, nil, c.ABI.PackRefund(drawnTask))
	c.wantPhase(drawnTask, agentrig.PhaseSettle)
	c.checkSolvent()
}
