package agentrig_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/task"
)

// creditsOf snapshots the credits of every account.
func (c *chain) creditsOf() map[common.Address]*big.Int {
	out := map[common.Address]*big.Int{}
	for i := range c.Keys {
		out[c.Addr(i)] = c.credits(c.Addr(i))
	}
	return out
}

// wantCredited checks how much each account was credited since a snapshot; accounts not named
// must not have moved.
func (c *chain) wantCredited(before map[common.Address]*big.Int, want map[int]*big.Int) {
	c.t.Helper()
	for i := range c.Keys {
		got := new(big.Int).Sub(c.credits(c.Addr(i)), before[c.Addr(i)])
		w := want[i]
		if w == nil {
			w = new(big.Int)
		}
		if got.Cmp(w) != 0 {
			c.t.Errorf("account %d credited %s, want %s", i, got, w)
		}
	}
}

// TestSettlementPayouts pins the economics the README states. Agreed: 10% of the price to the
// builder, the rest in equal shares to the agreeing rigs' operators (less the relayer's consented
// fee), the slashes of the rig outside the agreement and the rig that missed its reveal in equal
// shares to the agreeing rigs' owners, division dust to the treasury. Not agreed: the price back
// to the orderer, missed-window slashes to the treasury, and no slash for answers that merely
// disagree.
func TestSettlementPayouts(t *testing.T) {
	c := newChain(t)
	job := c.publish(numeric.Numeric, 5, 50)
	for i := range 5 {
		c.register(job, firstOp+i, 10)
	}
	d := c.newDrawnTask(job)
	// The operator of the first drawn rig lets the relayer take 25% of its earnings.
	fee := task.OperatorFee{Operator: c.Addr(d.ops[0]), Bps: 2500, Payee: c.Addr(relayer), Nonce: big.NewInt(1)}
	digest, err := c.domain.OperatorFeeDigest(fee)
	c.send(relayer, nil, c.ABI.PackSetOperatorFee(agentrig.AgentRigOperatorFee{Operator: fee.Operator, Bps: fee.Bps, Payee: fee.Payee, Nonce: fee.Nonce}, c.sign(d.ops[0], digest, err)))

	// Median of [10000 10040 10010 20000] is 10010: three agree, 20000 is outside, rig 4 commits
	// and never reveals.
	answers := []numeric.Answer{answerOf(10_000), answerOf(10_040), answerOf(10_010), answerOf(20_000), answerOf(10_000)}
	for i := range 5 {
		c.commitDirect(d, i, answers[i], task.Salt{byte(i + 1)})
	}
	for i := range 4 {
		c.revealDirect(d, i, answers[i], task.Salt{byte(i + 1)})
	}
	c.advanceTo(c.task(d.id).RevealDeadline)
	before := c.creditsOf()
	rcpt := c.send(stranger, nil, c.ABI.PackSettle(d.id))
	settled := only(t, events(rcpt, c.ABI.UnpackSettledEvent))
	if !settled.Agreed || settled.Answer != answerOf(10_010) || settled.Agree != 3 || settled.Reveals != 4 {
		t.Fatalf("Settled %+v", settled)
	}
	reasons := map[uint64]agentrig.SlashReason{}
	for _, s := range events(rcpt, c.ABI.UnpackSlashedEvent) {
		reasons[s.RigId] = agentrig.SlashReason(s.Reason)
	}
	if len(reasons) != 2 || reasons[d.rigs[3]] != agentrig.SlashOutsideAgreement || reasons[d.rigs[4]] != agentrig.SlashMissedReveal {
		t.Fatalf("slashes %v", reasons)
	}
	// price 1e13: builder 1e12; 9e12 in three shares of 3e12; the first operator's share splits
	// 2.25e12 / 0.75e12 with the relayer. Slashes 2e13 in three staker shares of 6666666666666,
	// 2 wei of dust to the treasury. All rigs are owned by the staker account.
	share := big.NewInt(3_000_000_000_000)
	slashShare := big.NewInt(6_666_666_666_666)
	c.wantCredited(before, map[int]*big.Int{
		builder:  big.NewInt(1_000_000_000_000),
		d.ops[0]: big.NewInt(2_250_000_000_000),
		relayer:  big.NewInt(750_000_000_000),
		d.ops[1]: share,
		d.ops[2]: share,
		staker:   mul(slashShare, 3),
		deployer: big.NewInt(2),
	})
	for _, e := range events(rcpt, c.ABI.UnpackCreditedEvent) {
		if e.TaskId.Cmp(d.id) != 0 || e.Reason == 0 || e.Reason > uint8(agentrig.CreditStake) {
			t.Fatalf("Credited %+v", e)
		}
	}
	for i, r := range d.rigs {
		info := c.rigInfo(r)
		want := mul(testSlash, 10)
		if i >= 3 {
			want.Sub(want, testSlash)
		}
		if info.Stake.Cmp(want) != 0 || info.Locked.Sign() != 0 {
			t.Fatalf("rig %d: %+v", r, info)
		}
	}
	c.checkSolvent()

	// Not agreed: 10000 and 20000 disagree (one agreeing answer of five), three rigs miss the
	// commit window. The stored answer is still the median.
	d2 := c.newDrawnTask(job)
	c.commitDirect(d2, 0, answers[0], task.Salt{9})
	c.commitDirect(d2, 1, answers[3], task.Salt{8})
	c.advanceTo(d2.commit)
	c.revealDirect(d2, 0, answers[0], task.Salt{9})
	c.revealDirect(d2, 1, answers[3], task.Salt{8})
	c.advanceTo(c.task(d2.id).RevealDeadline)
	before = c.creditsOf()
	rcpt = c.send(stranger, nil, c.ABI.PackSettle(d2.id))
	settled = only(t, events(rcpt, c.ABI.UnpackSettledEvent))
	if settled.Agreed || settled.Answer != answerOf(10_000) || settled.Agree != 1 || settled.Reveals != 2 {
		t.Fatalf("Settled %+v", settled)
	}
	slashes := events(rcpt, c.ABI.UnpackSlashedEvent)
	if len(slashes) != 3 {
		t.Fatalf("%d slashes, want the 3 rigs that missed the commit window", len(slashes))
	}
	for _, s := range slashes {
		if agentrig.SlashReason(s.Reason) != agentrig.SlashMissedCommit || s.RigId == d2.rigs[0] || s.RigId == d2.rigs[1] {
			t.Fatalf("Slashed %+v", s)
		}
	}
	c.wantCredited(before, map[int]*big.Int{
		orderer:  testPrice,
		deployer: mul(testSlash, 3),
	})
	c.checkSolvent()

	// Everyone can take their credits out; the contract then holds exactly the stakes.
	for i := range c.Keys {
		if c.credits(c.Addr(i)).Sign() > 0 {
			c.send(i, nil, c.ABI.PackWithdraw())
		}
	}
	if c.sumCredits().Sign() != 0 {
		t.Fatal("credits left after everyone withdrew")
	}
	c.checkSolvent()
}
