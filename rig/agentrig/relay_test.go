package agentrig_test

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/task"
)

// TestRelayedBatches: one commitMany and one revealMany from a relayer carry every rig's signed
// entry; entries that do not apply (a malformed signature, a stranger's key, a signature for
// another chain, a duplicate, a reveal that does not match, an unknown task) are skipped with a
// reason and the rest are applied.
func TestRelayedBatches(t *testing.T) {
	c := newChain(t)
	job := c.publish(numeric.Numeric, 3, 50)
	for i := range 3 {
		c.register(job, firstOp+i, 10)
	}
	d := c.newDrawnTask(job)
	answers := []numeric.Answer{answerOf(10_000), answerOf(10_010), answerOf(10_020)}
	salts := []task.Salt{{0x11}, {0x22}, {0x33}}
	commits := make([]common.Hash, 3)
	for i := range commits {
		commits[i] = commitmentFor(t, d.id, d.rigs[i], answers[i], salts[i])
	}
	signCommit := func(account int, dom task.Domain, h common.Hash) []byte {
		digest, err := dom.CommitDigest(d.id, h)
		return c.sign(account, digest, err)
	}
	badV := signCommit(d.ops[1], c.domain, commits[1])
	badV[64] = 30
	otherChain := task.Domain{ChainID: big.NewInt(4663), Contract: c.Address}

	entries := []agentrig.AgentRigCommit{
		{TaskId: d.id, Commitment: commits[0]}, // 0: applies
		{TaskId: d.id, Commitment: commits[1]}, // 1: malformed v
		{TaskId: d.id, Commitment: commits[1]}, // 2: signed by a stranger
		{TaskId: d.id, Commitment: commits[1]}, // 3: signed for chain 4663
		{TaskId: d.id, Commitment: commits[2]}, // 4: applies
		{TaskId: d.id, Commitment: commits[0]}, // 5: rig 0 again
	}
	sigs := [][]byte{
		signCommit(d.ops[0], c.domain, commits[0]),
		badV,
		signCommit(stranger, c.domain, commits[1]),
		signCommit(d.ops[1], otherChain, commits[1]),
		signCommit(d.ops[2], c.domain, commits[2]),
		signCommit(d.ops[0], c.domain, commits[0]),
	}
	c.reverts("LengthMismatch", relayer, nil, c.ABI.PackCommitMany(entries, sigs[:5]))
	rcpt := c.send(relayer, nil, c.ABI.PackCommitMany(entries, sigs))
	committed := events(rcpt, c.ABI.UnpackCommittedEvent)
	if len(committed) != 2 || committed[0].RigId != d.rigs[0] || committed[1].RigId != d.rigs[2] {
		t.Fatalf("Committed events %+v", committed)
	}
	wantSkips(t, events(rcpt, c.ABI.UnpackSkippedEvent), map[int]agentrig.SkipReason{
		1: agentrig.SkipBadSignature, 2: agentrig.SkipNotDrawn, 3: agentrig.SkipNotDrawn, 5: agentrig.SkipAlreadyDone,
	})
	// The rig whose relayed entry was skipped still has its window: it commits itself.
	c.wantPhase(d.id, agentrig.PhaseCommit)
	rcpt = c.send(d.ops[1], nil, c.ABI.PackCommit(d.id, commits[1]))
	if len(events(rcpt, c.ABI.UnpackRevealOpenedEvent)) != 1 {
		t.Fatal("the last commit did not open the reveal window")
	}

	signReveal := func(account int, answer numeric.Answer, salt task.Salt) []byte {
		digest, err := c.domain.RevealDigest(d.id, answer, salt)
		return c.sign(account, digest, err)
	}
	unknown := big.NewInt(999)
	unknownDigest, err := c.domain.RevealDigest(unknown, answers[0], salts[0])
	reveals := []agentrig.AgentRigReveal{
		{TaskId: d.id, Answer: answers[0], Salt: salts[0]},    // 0: applies
		{TaskId: d.id, Answer: answers[1], Salt: salts[0]},    // 1: wrong salt, properly signed
		{TaskId: unknown, Answer: answers[0], Salt: salts[0]}, // 2: no such task
		{TaskId: d.id, Answer: answers[2], Salt: salts[2]},    // 3: applies
		{TaskId: d.id, Answer: answers[2], Salt: salts[2]},    // 4: signature cut short
	}
	short := signReveal(d.ops[2], answers[2], salts[2])[:64]
	rsigs := [][]byte{
		signReveal(d.ops[0], answers[0], salts[0]),
		signReveal(d.ops[1], answers[1], salts[0]),
		c.sign(d.ops[0], unknownDigest, err),
		signReveal(d.ops[2], answers[2], salts[2]),
		short,
	}
	rcpt = c.send(relayer, nil, c.ABI.PackRevealMany(reveals, rsigs))
	revealed := events(rcpt, c.ABI.UnpackRevealedEvent)
	if len(revealed) != 2 || revealed[0].RigId != d.rigs[0] || revealed[1].RigId != d.rigs[2] || revealed[1].Answer != answers[2] {
		t.Fatalf("Revealed events %+v", revealed)
	}
	wantSkips(t, events(rcpt, c.ABI.UnpackSkippedEvent), map[int]agentrig.SkipReason{
		1: agentrig.SkipMismatch, 2: agentrig.SkipWrongPhase, 4: agentrig.SkipBadSignature,
	})
	c.wantPhase(d.id, agentrig.PhaseReveal)
	rcpt = c.send(relayer, nil, c.ABI.PackRevealMany(
		[]agentrig.AgentRigReveal{{TaskId: d.id, Answer: answers[1], Salt: salts[1]}},
		[][]byte{signReveal(d.ops[1], answers[1], salts[1])}))
	if len(events(rcpt, c.ABI.UnpackRevealedEvent)) != 1 {
		t.Fatal("the corrected relayed reveal did not apply")
	}
	c.wantPhase(d.id, agentrig.PhaseSettle)
	settled := only(t, events(c.send(relayer, nil, c.ABI.PackSettle(d.id)), c.ABI.UnpackSettledEvent))
	want, _ := numeric.Agree(numeric.Rule{Kind: numeric.Numeric, Quorum: 3, ToleranceBps: 50}, answers)
	if !settled.Agreed || settled.Answer != want.Answer || settled.Agree != 3 {
		t.Fatalf("Settled %+v", settled)
	}
	// The relayer paid the gas but earned nothing: no fee was consented to.
	if got := c.credits(c.Addr(relayer)); got.Sign() != 0 {
		t.Fatalf("relayer credited %s without a consent", got)
	}
	c.checkSolvent()
}

func wantSkips(t *testing.T, got []*agentrig.AgentRigSkipped, want map[int]agentrig.SkipReason) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d Skipped events, want %d: %+v", len(got), len(want), got)
	}
	for _, s := range got {
		r, ok := want[int(s.Index.Int64())]
		if !ok || agentrig.SkipReason(s.Reason) != r {
			t.Fatalf("entry %s skipped for %s, want %v", s.Index, agentrig.SkipReason(s.Reason), want)
		}
	}
}

// TestOperatorFeeConsent: setOperatorFee takes an operator's signed consent once per nonce and
// refuses a consent signed by anyone else.
func TestOperatorFeeConsent(t *testing.T) {
	c := newChain(t)
	op := firstOp
	fee := task.OperatorFee{Operator: c.Addr(op), Bps: 2500, Payee: c.Addr(relayer), Nonce: big.NewInt(1)}
	abiFee := func(f task.OperatorFee) agentrig.AgentRigOperatorFee {
		return agentrig.AgentRigOperatorFee{Operator: f.Operator, Bps: f.Bps, Payee: f.Payee, Nonce: f.Nonce}
	}
	digest, err := c.domain.OperatorFeeDigest(fee)
	sig := c.sign(op, digest, err)

	c.reverts("BadSignature", relayer, nil, c.ABI.PackSetOperatorFee(abiFee(fee), c.sign(relayer, digest, nil)))
	tampered := fee
	tampered.Bps = 5000
	c.reverts("BadSignature", relayer, nil, c.ABI.PackSetOperatorFee(abiFee(tampered), sig))
	c.reverts("BadSignature", relayer, nil, c.ABI.PackSetOperatorFee(abiFee(fee), sig[:64]))
	over := fee
	over.Bps = 10001
	c.reverts("BadBps", relayer, nil, c.ABI.PackSetOperatorFee(abiFee(over), sig))

	ev := only(t, events(c.send(relayer, nil, c.ABI.PackSetOperatorFee(abiFee(fee), sig)), c.ABI.UnpackOperatorFeeSetEvent))
	if ev.Operator != fee.Operator || ev.Payee != fee.Payee || ev.Bps != fee.Bps || ev.Nonce.Cmp(fee.Nonce) != 0 {
		t.Fatalf("OperatorFeeSet %+v", ev)
	}
	if used := call(c, c.ABI.PackUsedNonces(fee.Operator, fee.Nonce), c.ABI.UnpackUsedNonces); !used {
		t.Fatal("nonce not marked used")
	}
	c.reverts("NonceUsed", relayer, nil, c.ABI.PackSetOperatorFee(abiFee(fee), sig))

	// A new consent with a new nonce replaces the old one; bps 0 ends it.
	end := task.OperatorFee{Operator: c.Addr(op), Bps: 0, Payee: c.Addr(relayer), Nonce: big.NewInt(2)}
	d2, err := c.domain.OperatorFeeDigest(end)
	c.send(stranger, nil, c.ABI.PackSetOperatorFee(abiFee(end), c.sign(op, d2, err)))
	stored := call(c, c.ABI.PackOperatorFees(fee.Operator), c.ABI.UnpackOperatorFees)
	if stored.Bps != 0 || stored.Nonce.Int64() != 2 {
		t.Fatalf("stored %+v", stored)
	}
	if !bytes.Equal(stored.Payee[:], c.Addr(relayer).Bytes()) {
		t.Fatalf("payee %s", stored.Payee.Hex())
	}
}
