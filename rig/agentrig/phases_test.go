package agentrig_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

// drawnTask is an ordered and drawn task, with its rigs' operators as account indexes.
type drawnTask struct {
	id     *big.Int
	rigs   []uint64
	ops    []int
	commit uint64 // commit deadline
	reveal uint64 // reveal deadline as drawn
}

func (c *chain) newDrawnTask(job uint32) drawnTask {
	c.t.Helper()
	id, _ := c.order(job, "data:application/json,{}")
	ev, _ := c.draw(id)
	if ev == nil {
		c.t.Fatal("task not drawn")
	}
	d := drawnTask{id: id, rigs: ev.RigIds, commit: ev.CommitDeadline, reveal: ev.RevealDeadline}
	for _, r := range ev.RigIds {
		d.ops = append(d.ops, c.operatorOf(r))
	}
	return d
}

// commitDirect commits for slot i of a task from its operator's own account.
func (c *chain) commitDirect(d drawnTask, i int, answer numeric.Answer, salt rigtask.Salt) *agentrig.AgentRigCommitted {
	c.t.Helper()
	h := commitmentFor(c.t, d.id, d.rigs[i], answer, salt)
	rcpt := c.send(d.ops[i], nil, c.ABI.PackCommit(d.id, h))
	ev := only(c.t, events(rcpt, c.ABI.UnpackCommittedEvent))
	if ev.TaskId.Cmp(d.id) != 0 || ev.RigId != d.rigs[i] || ev.Commitment != h {
		c.t.Fatalf("Committed %+v", ev)
	}
	return ev
}

func (c *chain) revealDirect(d drawnTask, i int, answer numeric.Answer, salt rigtask.Salt) {
	c.t.Helper()
	rcpt := c.send(d.ops[i], nil, c.ABI.PackReveal(d.id, answer, salt))
	ev := only(c.t, events(rcpt, c.ABI.UnpackRevealedEvent))
	if ev.RigId != d.rigs[i] || ev.Answer != answer {
		c.t.Fatalf("Revealed %+v", ev)
	}
}

func wrongPhase(t *testing.T, re *agentrig.RevertError, want agentrig.Phase) {
	t.Helper()
	if got := agentrig.Phase(re.Value.(*agentrig.AgentRigWrongPhase).Phase); got != want {
		t.Fatalf("WrongPhase(%s), want WrongPhase(%s)", got, want)
	}
}

// TestPhasesOfATask walks one task through every phase and every refusal on the way: a
// stranger's commit, a double commit, a reveal before its window, the commit window closing with
// a rig missing, a reveal from a rig that never committed, a reveal that does not match, a settle
// before the reveal window closed, and settlement with the missing rig slashed.
func TestPhasesOfATask(t *testing.T) {
	c := newChain(t)
	job := c.publish(numeric.Numeric, 3, 50)
	for i := range 3 {
		c.register(job, firstOp+i, 10)
	}
	c.wantPhase(big.NewInt(1), agentrig.PhaseNone)
	d := c.newDrawnTask(job)
	c.wantPhase(d.id, agentrig.PhaseCommit)
	if info := c.task(d.id); info.CommitDeadline != d.commit || info.RevealDeadline != d.reveal || len(info.RigIds) != 3 {
		t.Fatalf("taskOf %+v", info)
	}
	answers := []numeric.Answer{answerOf(17_712_000_000), answerOf(17_705_000_000), answerOf(17_700_000_000)}
	salts := []rigtask.Salt{{1}, {2}, {3}}

	c.reverts("NotDrawn", stranger, nil, c.ABI.PackCommit(d.id, commitmentFor(t, d.id, d.rigs[0], answers[0], salts[0])))
	wrongPhase(t, c.reverts("WrongPhase", d.ops[0], nil, c.ABI.PackReveal(d.id, answers[0], salts[0])), agentrig.PhaseCommit)
	wrongPhase(t, c.reverts("WrongPhase", stranger, nil, c.ABI.PackSettle(d.id)), agentrig.PhaseCommit)

	c.commitDirect(d, 0, answers[0], salts[0])
	c.reverts("AlreadyDone", d.ops[0], nil, c.ABI.PackCommit(d.id, common.Hash{9}))
	c.commitDirect(d, 1, answers[1], salts[1])
	c.wantPhase(d.id, agentrig.PhaseCommit)
	if info := c.task(d.id); info.CommittedMask != 0b011 || info.Commitments[0] != commitmentFor(t, d.id, d.rigs[0], answers[0], salts[0]) {
		t.Fatalf("taskOf after two commits %+v", info)
	}

	// One second before the deadline it is still the commit window; at the deadline the reveal
	// window opens although rig 2 never committed.
	c.advanceTo(d.commit - 1)
	c.wantPhase(d.id, agentrig.PhaseCommit)
	c.Mine(1)
	c.wantPhase(d.id, agentrig.PhaseReveal)
	wrongPhase(t, c.reverts("WrongPhase", d.ops[2], nil, c.ABI.PackCommit(d.id, commitmentFor(t, d.id, d.rigs[2], answers[2], salts[2]))), agentrig.PhaseReveal)

	c.reverts("NotCommitted", d.ops[2], nil, c.ABI.PackReveal(d.id, answers[2], salts[2]))
	c.reverts("CommitmentMismatch", d.ops[0], nil, c.ABI.PackReveal(d.id, answers[0], salts[1]))
	c.reverts("CommitmentMismatch", d.ops[0], nil, c.ABI.PackReveal(d.id, answers[1], salts[0]))
	c.reverts("NotDrawn", stranger, nil, c.ABI.PackReveal(d.id, answers[0], salts[0]))
	c.revealDirect(d, 0, answers[0], salts[0])
	c.reverts("AlreadyDone", d.ops[0], nil, c.ABI.PackReveal(d.id, answers[0], salts[0]))
	c.revealDirect(d, 1, answers[1], salts[1])
	c.wantPhase(d.id, agentrig.PhaseReveal) // rig 2 never committed, so not everyone revealed
	wrongPhase(t, c.reverts("WrongPhase", stranger, nil, c.ABI.PackSettle(d.id)), agentrig.PhaseReveal)
	if st, _, _, _, reveals := answerOfTask(c, d.id); st != agentrig.PhaseReveal || reveals != 2 {
		t.Fatalf("answerOf before settle: status %s reveals %d", st, reveals)
	}

	c.advanceTo(d.reveal - 1)
	c.wantPhase(d.id, agentrig.PhaseReveal)
	c.Mine(1)
	c.wantPhase(d.id, agentrig.PhaseSettle)
	wrongPhase(t, c.reverts("WrongPhase", d.ops[1], nil, c.ABI.PackReveal(d.id, answers[1], salts[1])), agentrig.PhaseSettle)

	rcpt := c.send(stranger, nil, c.ABI.PackSettle(d.id))
	want, _ := numeric.Agree(numeric.Rule{Kind: numeric.Numeric, Quorum: 3, ToleranceBps: 50}, answers[:2])
	settled := only(t, events(rcpt, c.ABI.UnpackSettledEvent))
	if settled.Agreed != want.Agreed || settled.Answer != want.Answer || int(settled.Agree) != want.Agree || settled.Reveals != 2 {
		t.Fatalf("Settled %+v, want %+v", settled, want)
	}
	slashed := only(t, events(rcpt, c.ABI.UnpackSlashedEvent))
	if slashed.RigId != d.rigs[2] || agentrig.SlashReason(slashed.Reason) != agentrig.SlashMissedCommit || slashed.Amount.Cmp(testSlash) != 0 {
		t.Fatalf("Slashed %+v", slashed)
	}
	c.wantPhase(d.id, agentrig.PhaseSettled)
	st, agreed, answer, agree, reveals := answerOfTask(c, d.id)
	if st != agentrig.PhaseSettled || agreed != want.Agreed || answer != want.Answer || int(agree) != want.Agree || reveals != 2 {
		t.Fatalf("answerOf = %s %v %x %d %d", st, agreed, answer, agree, reveals)
	}
	wrongPhase(t, c.reverts("WrongPhase", stranger, nil, c.ABI.PackSettle(d.id)), agentrig.PhaseSettled)
	for i, r := range d.rigs {
		info := c.rigInfo(r)
		wantStake := mul(testSlash, 10)
		if i == 2 {
			wantStake.Sub(wantStake, testSlash)
		}
		if info.Locked.Sign() != 0 || info.Stake.Cmp(wantStake) != 0 {
			t.Fatalf("rig %d after settlement: %+v", r, info)
		}
	}
	c.checkSolvent()
}

func answerOfTask(c *chain, task *big.Int) (agentrig.Phase, bool, [32]byte, uint8, uint8) {
	c.t.Helper()
	out := call(c, c.ABI.PackAnswerOf(task), c.ABI.UnpackAnswerOf)
	return agentrig.Phase(out.Status), out.Agreed, out.Answer, out.Agree, out.Reveals
}

// TestEarlyOpenings: the reveal window opens as soon as every drawn rig committed (with a full
// window from then), and the task can be settled as soon as every drawn rig revealed.
func TestEarlyOpenings(t *testing.T) {
	c := newChain(t)
	job := c.publish(numeric.Exact, 2, 0)
	c.register(job, firstOp, 10)
	c.register(job, firstOp+1, 10)
	d := c.newDrawnTask(job)
	a := numeric.Answer{0xaa}
	c.commitDirect(d, 0, a, rigtask.Salt{1})
	c.wantPhase(d.id, agentrig.PhaseCommit)
	h := commitmentFor(t, d.id, d.rigs[1], a, rigtask.Salt{2})
	rcpt := c.send(d.ops[1], nil, c.ABI.PackCommit(d.id, h))
	opened := only(t, events(rcpt, c.ABI.UnpackRevealOpenedEvent))
	block, _ := c.Client.HeaderByNumber(t.Context(), rcpt.BlockNumber)
	window := call(c, c.ABI.PackRevealWindow(), c.ABI.UnpackRevealWindow)
	if opened.RevealDeadline != block.Time+window || opened.RevealDeadline >= d.reveal {
		t.Fatalf("RevealOpened %+v at %d (drawn deadline %d)", opened, block.Time, d.reveal)
	}
	if c.headTime() >= d.commit {
		t.Fatal("the commit window closed by itself; the test proves nothing")
	}
	c.wantPhase(d.id, agentrig.PhaseReveal)
	if info := c.task(d.id); info.RevealDeadline != opened.RevealDeadline {
		t.Fatalf("taskOf.revealDeadline %d", info.RevealDeadline)
	}
	c.revealDirect(d, 0, a, rigtask.Salt{1})
	c.wantPhase(d.id, agentrig.PhaseReveal)
	c.revealDirect(d, 1, a, rigtask.Salt{2})
	c.wantPhase(d.id, agentrig.PhaseSettle)
	if c.headTime() >= opened.RevealDeadline {
		t.Fatal("the reveal window closed by itself; the test proves nothing")
	}
	settled := only(t, events(c.send(stranger, nil, c.ABI.PackSettle(d.id)), c.ABI.UnpackSettledEvent))
	if !settled.Agreed || settled.Answer != a || settled.Agree != 2 || settled.Reveals != 2 {
		t.Fatalf("Settled %+v", settled)
	}
	c.wantPhase(d.id, agentrig.PhaseSettled)
	c.checkSolvent()
}
