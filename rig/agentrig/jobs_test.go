package agentrig_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

func TestWindowsAreConstructorParameters(t *testing.T) {
	c := newChain(t)
	if got := call(c, c.ABI.PackCommitWindow(), c.ABI.UnpackCommitWindow); time.Duration(got)*time.Second != agentrig.DefaultWindow {
		t.Fatalf("default commit window %d s", got)
	}
	if got := call(c, c.ABI.PackRevealWindow(), c.ABI.UnpackRevealWindow); time.Duration(got)*time.Second != agentrig.DefaultWindow {
		t.Fatalf("default reveal window %d s", got)
	}
	if got := call(c, c.ABI.PackTreasury(), c.ABI.UnpackTreasury); got != c.Addr(deployer) {
		t.Fatalf("treasury %s, want the deployer", got.Hex())
	}
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 1, CommitWindow: 60 * time.Second, RevealWindow: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	cw, err := bind.Call(sim.Contract, nil, sim.ABI.PackCommitWindow(), sim.ABI.UnpackCommitWindow)
	if err != nil || cw != 60 {
		t.Fatalf("commit window %d, %v", cw, err)
	}
	rw, err := bind.Call(sim.Contract, nil, sim.ABI.PackRevealWindow(), sim.ABI.UnpackRevealWindow)
	if err != nil || rw != 90 {
		t.Fatalf("reveal window %d, %v", rw, err)
	}
	if _, _, err := agentrig.Deploy(sim.Opts(0, nil), sim.Client, 1500*time.Millisecond, 0); err == nil {
		t.Fatal("a window of 1.5 s was accepted")
	}
}

// TestPublishJobLimits walks the seed's job table: kind, quorum 2–5, price 0.000001–1 ETH,
// slash ≤ 0.01 ETH, tolerance 1–2000 for NUMERIC and 0 for EXACT.
func TestPublishJobLimits(t *testing.T) {
	c := newChain(t)
	one := big.NewInt(1)
	minus := func(a *big.Int) *big.Int { return new(big.Int).Sub(a, one) }
	plus := func(a *big.Int) *big.Int { return new(big.Int).Add(a, one) }
	tests := []struct {
		name   string
		kind   uint8
		quorum uint8
		price  *big.Int
		slash  *big.Int
		tol    uint32
		revert string
	}{
		{"job 2 as launched", 1, 3, testPrice, testSlash, 50, ""},
		{"job 1 as launched", 0, 3, big.NewInt(20_000_000_000_000), testSlash, 0, ""},
		{"quorum 2", 0, 2, testPrice, testSlash, 0, ""},
		{"quorum 5", 0, 5, testPrice, testSlash, 0, ""},
		{"quorum 1", 0, 1, testPrice, testSlash, 0, "BadQuorum"},
		{"quorum 6", 0, 6, testPrice, testSlash, 0, "BadQuorum"},
		{"lowest price", 0, 3, agentrig.MinPrice, testSlash, 0, ""},
		{"highest price", 0, 3, agentrig.MaxPrice, testSlash, 0, ""},
		{"price below", 0, 3, minus(agentrig.MinPrice), testSlash, 0, "BadPrice"},
		{"price above", 0, 3, plus(agentrig.MaxPrice), testSlash, 0, "BadPrice"},
		{"no slash", 0, 3, testPrice, new(big.Int), 0, ""},
		{"highest slash", 0, 3, testPrice, agentrig.MaxSlash, 0, ""},
		{"slash above", 0, 3, testPrice, plus(agentrig.MaxSlash), 0, "BadSlash"},
		{"numeric tolerance 1", 1, 3, testPrice, testSlash, 1, ""},
		{"numeric tolerance 2000", 1, 3, testPrice, testSlash, 2000, ""},
		{"numeric tolerance 0", 1, 3, testPrice, testSlash, 0, "BadTolerance"},
		{"numeric tolerance 2001", 1, 3, testPrice, testSlash, 2001, "BadTolerance"},
		{"exact with tolerance", 0, 3, testPrice, testSlash, 1, "BadTolerance"},
		{"kind 2", 2, 3, testPrice, testSlash, 0, "BadKind"},
	}
	var published uint32
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := c.ABI.PackPublishJob(tc.kind, tc.quorum, tc.price, tc.slash, tc.tol, "ipfs://"+tc.name)
			if tc.revert != "" {
				c.t = t
				c.reverts(tc.revert, builder, nil, data)
				return
			}
			rcpt, err := c.Send(builder, nil, data)
			if err != nil {
				t.Fatal(err)
			}
			ev := only(t, events(rcpt, c.ABI.UnpackJobPublishedEvent))
			published++
			if ev.JobId != published || ev.Builder != c.Addr(builder) {
				t.Fatalf("job id %d builder %s, want %d", ev.JobId, ev.Builder.Hex(), published)
			}
			job, err := bind.Call(c.Contract, nil, c.ABI.PackJobOf(ev.JobId), c.ABI.UnpackJobOf)
			if err != nil {
				t.Fatal(err)
			}
			if job.Kind != tc.kind || job.Quorum != tc.quorum || job.Price.Cmp(tc.price) != 0 || job.Slash.Cmp(tc.slash) != 0 ||
				job.ToleranceBps != tc.tol || job.SpecURI != "ipfs://"+tc.name || job.ActiveRigs.Sign() != 0 || job.Builder != c.Addr(builder) {
				t.Fatalf("jobOf = %+v", job)
			}
		})
	}
	c.t = t
	if n := call(c, c.ABI.PackJobCount(), c.ABI.UnpackJobCount); n != published {
		t.Fatalf("jobCount %d, published %d", n, published)
	}
	if err := c.callErr(c.ABI.PackJobOf(published + 1)); !agentrig.IsRevert(err, "UnknownJob") {
		t.Fatalf("jobOf(unknown): %v", err)
	}
}

// TestOrderRules: exact value, NotEnoughRigs before anyone can answer, task ids from 1, orderMany.
func TestOrderRules(t *testing.T) {
	c := newChain(t)
	job := c.publish(numeric.Numeric, 3, 50)
	uri, hash, err := rigtask.EncodeInput("NVDA", time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	c.register(job, firstOp, 10)
	c.register(job, firstOp+1, 10)

	re := c.reverts("NotEnoughRigs", orderer, testPrice, c.ABI.PackOrder(job, hash, uri))
	if v := re.Value.(*agentrig.AgentRigNotEnoughRigs); v.Active.Int64() != 2 || v.Quorum != 3 {
		t.Fatalf("NotEnoughRigs%+v", v)
	}
	c.reverts("NotEnoughRigs", orderer, mul(testPrice, 2), c.ABI.PackOrderMany(job, [][32]byte{hash, hash}, []string{uri, uri}))

	c.register(job, firstOp+2, 10)
	c.reverts("WrongValue", orderer, new(big.Int).Sub(testPrice, big.NewInt(1)), c.ABI.PackOrder(job, hash, uri))
	c.reverts("WrongValue", orderer, mul(testPrice, 2), c.ABI.PackOrder(job, hash, uri))
	c.reverts("WrongValue", orderer, nil, c.ABI.PackOrder(job, hash, uri))
	c.reverts("UnknownJob", orderer, testPrice, c.ABI.PackOrder(job+1, hash, uri))

	first, rcpt := c.order(job, uri)
	ev := only(t, events(rcpt, c.ABI.UnpackTaskOrderedEvent))
	if first.Int64() != 1 || ev.JobId != job || ev.Orderer != c.Addr(orderer) || ev.InputHash != hash || ev.InputURI != uri {
		t.Fatalf("TaskOrdered %+v", ev)
	}
	if in, err := rigtask.DecodeInput(ev.InputURI, ev.InputHash); err != nil || in.Symbol != "NVDA" {
		t.Fatalf("the event does not carry a decodable input: %v", err)
	}

	uris := []string{"data:application/json,{\"symbol\":\"TSLA\",\"minute\":0}", "data:application/json,{\"symbol\":\"SPY\",\"minute\":60}", uri}
	hashes := make([][32]byte, len(uris))
	for i, u := range uris {
		hashes[i] = rigtask.InputHash(u)
	}
	c.reverts("WrongValue", orderer, mul(testPrice, 2), c.ABI.PackOrderMany(job, hashes, uris))
	c.reverts("LengthMismatch", orderer, mul(testPrice, 3), c.ABI.PackOrderMany(job, hashes[:2], uris))
	c.reverts("EmptyOrder", orderer, nil, c.ABI.PackOrderMany(job, nil, nil))
	rcpt = c.send(orderer, mul(testPrice, 3), c.ABI.PackOrderMany(job, hashes, uris))
	evs := events(rcpt, c.ABI.UnpackTaskOrderedEvent)
	if len(evs) != 3 {
		t.Fatalf("%d TaskOrdered events", len(evs))
	}
	for i, e := range evs {
		if e.TaskId.Int64() != int64(2+i) || e.InputURI != uris[i] || e.InputHash != hashes[i] {
			t.Fatalf("event %d: %+v", i, e)
		}
		c.wantPhase(e.TaskId, agentrig.PhaseDraw)
		if info := c.task(e.TaskId); info.InputHash != hashes[i] || info.Paid.Cmp(testPrice) != 0 || info.OrderBlock != rcpt.BlockNumber.Uint64() || info.Orderer != c.Addr(orderer) {
			t.Fatalf("taskOf(%s) = %+v", e.TaskId, info)
		}
	}
	if n := call(c, c.ABI.PackTaskCount(), c.ABI.UnpackTaskCount); n.Int64() != 4 {
		t.Fatalf("taskCount %s", n)
	}
	c.wantPhase(big.NewInt(5), agentrig.PhaseNone)
	c.wantPhase(big.NewInt(0), agentrig.PhaseNone)
	c.checkSolvent()
}

func TestRigRegistrationAndStake(t *testing.T) {
	c := newChain(t)
	job := c.publish(numeric.Exact, 2, 0)
	c.reverts("StakeTooLow", staker, new(big.Int).Sub(testSlash, big.NewInt(1)), c.ABI.PackRegisterRig(job, c.Addr(firstOp)))
	c.reverts("ZeroOperator", staker, testSlash, c.ABI.PackRegisterRig(job, [20]byte{}))
	c.reverts("UnknownJob", staker, testSlash, c.ABI.PackRegisterRig(job+1, c.Addr(firstOp)))
	a := c.register(job, firstOp, 3)
	b := c.register(job, firstOp+1, 1)
	if info := c.rigInfo(a); info.Operator != c.Addr(firstOp) || info.Owner != c.Addr(staker) || info.JobId != job || !info.Active || info.Stake.Cmp(mul(testSlash, 3)) != 0 || info.Locked.Sign() != 0 {
		t.Fatalf("rigOf = %+v", info)
	}
	if list := call(c, c.ABI.PackJobRigs(job), c.ABI.UnpackJobRigs); len(list) != 2 || list[0] != a || list[1] != b {
		t.Fatalf("jobRigs = %v", list)
	}

	// Stake: only the owner takes it out, never below the slash while active.
	c.reverts("NotRigOwner", firstOp, nil, c.ABI.PackWithdrawStake(a, testSlash))
	c.reverts("StakeTooLow", staker, nil, c.ABI.PackWithdrawStake(a, mul(testSlash, 3)))
	c.send(staker, nil, c.ABI.PackWithdrawStake(a, mul(testSlash, 2)))
	if got := c.credits(c.Addr(staker)); got.Cmp(mul(testSlash, 2)) != 0 {
		t.Fatalf("staker credits %s", got)
	}
	c.send(stranger, testSlash, c.ABI.PackAddStake(a)) // anyone may top a rig up
	if info := c.rigInfo(a); info.Stake.Cmp(mul(testSlash, 2)) != 0 {
		t.Fatalf("stake after top-up %s", info.Stake)
	}

	// A drawn rig's locked slash cannot leave, even after deactivation.
	task, _ := c.order(job, "data:application/json,{}")
	if drawn, _ := c.draw(task); drawn == nil {
		t.Fatal("not drawn")
	}
	c.reverts("NotRigOwner", stranger, nil, c.ABI.PackDeactivateRig(b))
	c.send(firstOp+1, nil, c.ABI.PackDeactivateRig(b)) // the operator may deactivate too
	c.reverts("RigInactive", staker, nil, c.ABI.PackDeactivateRig(b))
	if info := c.rigInfo(b); info.Active || info.Locked.Cmp(testSlash) != 0 {
		t.Fatalf("deactivated drawn rig %+v", info)
	}
	c.reverts("StakeTooLow", staker, nil, c.ABI.PackWithdrawStake(b, testSlash))
	if list := call(c, c.ABI.PackJobRigs(job), c.ABI.UnpackJobRigs); len(list) != 1 || list[0] != a {
		t.Fatalf("jobRigs after deactivation = %v", list)
	}
	// With one active rig left, nobody can order a quorum-2 task.
	c.reverts("NotEnoughRigs", orderer, testPrice, c.ABI.PackOrder(job, [32]byte{}, ""))
	c.checkSolvent()

	// withdraw pays out the credits.
	before, _ := c.Client.BalanceAt(t.Context(), c.Addr(staker), nil)
	rcpt := c.send(staker, nil, c.ABI.PackWithdraw())
	ev := only(t, events(rcpt, c.ABI.UnpackWithdrawnEvent))
	after, _ := c.Client.BalanceAt(t.Context(), c.Addr(staker), nil)
	gas := new(big.Int).Mul(new(big.Int).SetUint64(rcpt.GasUsed), rcpt.EffectiveGasPrice)
	if ev.Amount.Cmp(mul(testSlash, 2)) != 0 || new(big.Int).Sub(after, before).Cmp(new(big.Int).Sub(ev.Amount, gas)) != 0 {
		t.Fatalf("withdrew %s; balance moved %s with gas %s", ev.Amount, new(big.Int).Sub(after, before), gas)
	}
	c.reverts("NothingToWithdraw", staker, nil, c.ABI.PackWithdraw())
	c.checkSolvent()
}
