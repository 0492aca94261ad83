package agentrig_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

// Accounts of the test chain, by role.
const (
	deployer = 0 // deployed the contract: its treasury
	orderer  = 1
	relayer  = 2
	stranger = 3
	builder  = 4 // publishes the jobs
	staker   = 5 // registers (owns) the rigs
	firstOp  = 6 // operators are accounts firstOp, firstOp+1, ...
	accounts = 20
)

var (
	testPrice = big.NewInt(10_000_000_000_000) // 0.00001 ETH, job 2's price
	testSlash = big.NewInt(10_000_000_000_000) // 0.00001 ETH, job 2's slash
)

// chain is a Sim with helpers that fail the test on error.
type chain struct {
	*agentrig.Sim
	t      *testing.T
	domain rigtask.Domain
}

// newChain starts a simulated chain with the contract deployed. The chain's clock is moved a day
// ahead first: sealed blocks then take parent time + 1 s instead of the wall clock, so windows
// pass only when a test moves time.
func newChain(t *testing.T) *chain {
	t.Helper()
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: accounts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	if err := sim.AdvanceTime(24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	return &chain{Sim: sim, t: t, domain: rigtask.Domain{ChainID: sim.ChainID, Contract: sim.Address}}
}

func (c *chain) send(from int, value *big.Int, data []byte) *types.Receipt {
	c.t.Helper()
	rcpt, err := c.Send(from, value, data)
	if err != nil {
		c.t.Fatalf("send: %v", err)
	}
	return rcpt
}

// reverts sends and expects the contract to refuse with the named error.
func (c *chain) reverts(name string, from int, value *big.Int, data []byte) *agentrig.RevertError {
	c.t.Helper()
	_, err := c.Send(from, value, data)
	re, ok := agentrig.DecodeRevert(err)
	if !ok || re.Name != name {
		c.t.Fatalf("want revert %s, got %v", name, err)
	}
	return re
}

func call[T any](c *chain, data []byte, unpack func([]byte) (T, error)) T {
	c.t.Helper()
	v, err := bind.Call(c.Contract, nil, data, unpack)
	if err != nil {
		c.t.Fatalf("call: %v", err)
	}
	return v
}

// callErr runs data as an eth_call at the latest block, where block.number is the head's.
func (c *chain) callErr(data []byte) error {
	_, err := c.Client.CallContract(context.Background(), ethereum.CallMsg{From: c.Addr(stranger), To: &c.Address, Data: data}, nil)
	return err
}

func (c *chain) publish(kind numeric.Kind, quorum uint8, tol uint32) uint32 {
	c.t.Helper()
	data := c.ABI.PackPublishJob(uint8(kind), quorum, testPrice, testSlash, tol, "ipfs://spec")
	rcpt := c.send(builder, nil, data)
	ev := only(c.t, events(rcpt, c.ABI.UnpackJobPublishedEvent))
	return ev.JobId
}

// register registers a rig for operator account op, staking `slashes` times the test slash.
func (c *chain) register(job uint32, op int, slashes int64) uint64 {
	c.t.Helper()
	stake := new(big.Int).Mul(testSlash, big.NewInt(slashes))
	rcpt := c.send(staker, stake, c.ABI.PackRegisterRig(job, c.Addr(op)))
	return only(c.t, events(rcpt, c.ABI.UnpackRigRegisteredEvent)).RigId
}

func (c *chain) order(job uint32, uri string) (*big.Int, *types.Receipt) {
	c.t.Helper()
	rcpt := c.send(orderer, testPrice, c.ABI.PackOrder(job, rigtask.InputHash(uri), uri))
	return only(c.t, events(rcpt, c.ABI.UnpackTaskOrderedEvent)).TaskId, rcpt
}

// draw calls draw and returns the TaskDrawn event, or nil when the draw refunded or re-anchored.
func (c *chain) draw(task *big.Int) (*agentrig.AgentRigTaskDrawn, *types.Receipt) {
	c.t.Helper()
	rcpt := c.send(stranger, nil, c.ABI.PackDraw(task))
	drawn := events(rcpt, c.ABI.UnpackTaskDrawnEvent)
	if len(drawn) == 0 {
		return nil, rcpt
	}
	return drawn[0], rcpt
}

func (c *chain) phase(task *big.Int) agentrig.Phase {
	c.t.Helper()
	return agentrig.Phase(call(c, c.ABI.PackPhaseOf(task), c.ABI.UnpackPhaseOf))
}

func (c *chain) task(task *big.Int) agentrig.AgentRigTaskInfo {
	c.t.Helper()
	return call(c, c.ABI.PackTaskOf(task), c.ABI.UnpackTaskOf)
}

func (c *chain) rigInfo(id uint64) agentrig.AgentRigRigInfo {
	c.t.Helper()
	return call(c, c.ABI.PackRigOf(id), c.ABI.UnpackRigOf)
}

func (c *chain) credits(account common.Address) *big.Int {
	c.t.Helper()
	return call(c, c.ABI.PackCredits(account), c.ABI.UnpackCredits)
}

func (c *chain) headTime() uint64 {
	c.t.Helper()
	h, err := c.Head()
	if err != nil {
		c.t.Fatal(err)
	}
	return h.Time
}

func (c *chain) wantPhase(task *big.Int, want agentrig.Phase) {
	c.t.Helper()
	if got := c.phase(task); got != want {
		c.t.Fatalf("task %s: phase %s, want %s", task, got, want)
	}
}

// commitmentFor makes a rig's commitment.
func commitmentFor(t *testing.T, task *big.Int, rigID uint64, answer numeric.Answer, salt rigtask.Salt) common.Hash {
	t.Helper()
	h, err := rigtask.Commitment(task, rigID, answer, salt)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// sign signs a digest with account i's key.
func (c *chain) sign(i int, digest common.Hash, err error) []byte {
	c.t.Helper()
	if err != nil {
		c.t.Fatal(err)
	}
	sig, err := rigtask.NewKeySigner(c.Keys[i]).SignDigest(digest)
	if err != nil {
		c.t.Fatal(err)
	}
	return sig
}

// events unpacks every log of one event type from a receipt.
func events[E any](rcpt *types.Receipt, unpack func(*types.Log) (*E, error)) []*E {
	var out []*E
	for _, l := range rcpt.Logs {
		if e, err := unpack(l); err == nil {
			out = append(out, e)
		} else if !errors.Is(err, bind.ErrEventSignatureMismatch) {
			panic(err)
		}
	}
	return out
}

func only[E any](t *testing.T, evs []*E) *E {
	t.Helper()
	if len(evs) != 1 {
		t.Fatalf("want exactly one event, got %d", len(evs))
	}
	return evs[0]
}

func answerOf(v int64) numeric.Answer {
	a, err := numeric.NumericAnswer(big.NewInt(v))
	if err != nil {
		panic(err)
	}
	return a
}

// orderBlockHash is the hash of the block a task's draw is anchored on.
func (c *chain) orderBlockHash(task *big.Int) common.Hash {
	c.t.Helper()
	info := c.task(task)
	h, err := c.Client.HeaderByNumber(context.Background(), new(big.Int).SetUint64(info.OrderBlock))
	if err != nil {
		c.t.Fatal(err)
	}
	return h.Hash()
}

// predictDraw is the seed's draw written in Go: seed keccak256(blockhash(orderBlock), taskId),
// a start at seed mod n in the job's rig list, then the first eligible rigs with distinct
// operators, looking at no more than 64 rigs.
func predictDraw(hash common.Hash, task *big.Int, list []uint64, operator func(uint64) common.Address, eligible func(uint64) bool, quorum int) []uint64 {
	n := len(list)
	if n == 0 {
		return nil
	}
	seed := new(big.Int).SetBytes(crypto.Keccak256(hash[:], common.LeftPadBytes(task.Bytes(), 32)))
	start := int(new(big.Int).Mod(seed, big.NewInt(int64(n))).Int64())
	seen := map[common.Address]bool{}
	var chosen []uint64
	for i := 0; i < min(n, agentrig.MaxScan) && len(chosen) < quorum; i++ {
		id := list[(start+i)%n]
		if !eligible(id) || seen[operator(id)] {
			continue
		}
		seen[operator(id)] = true
		chosen = append(chosen, id)
	}
	return chosen
}

// advanceTo moves the chain's clock so that the head's timestamp is at least ts.
func (c *chain) advanceTo(ts uint64) {
	c.t.Helper()
	if now := c.headTime(); now < ts {
		if err := c.AdvanceTime(time.Duration(ts-now) * time.Second); err != nil {
			c.t.Fatal(err)
		}
	}
}

// operatorOf maps a drawn rig to the account index of its operator.
func (c *chain) operatorOf(rigID uint64) int {
	c.t.Helper()
	op := c.rigInfo(rigID).Operator
	for i := range c.Keys {
		if c.Addr(i) == op {
			return i
		}
	}
	c.t.Fatalf("rig %d has an operator outside the test accounts", rigID)
	return -1
}

// sumCredits adds the credits of every test account.
func (c *chain) sumCredits() *big.Int {
	sum := new(big.Int)
	for i := range c.Keys {
		sum.Add(sum, c.credits(c.Addr(i)))
	}
	return sum
}

// sumStakes adds every rig's stake.
func (c *chain) sumStakes() *big.Int {
	n := call(c, c.ABI.PackRigCount(), c.ABI.UnpackRigCount)
	sum := new(big.Int)
	for id := uint64(1); id <= n; id++ {
		sum.Add(sum, c.rigInfo(id).Stake)
	}
	return sum
}

// sumEscrow adds the price of every task not yet settled or refunded.
func (c *chain) sumEscrow() *big.Int {
	n := call(c, c.ABI.PackTaskCount(), c.ABI.UnpackTaskCount)
	sum := new(big.Int)
	for id := int64(1); id <= n.Int64(); id++ {
		info := c.task(big.NewInt(id))
		if p := agentrig.Phase(info.Phase); p >= agentrig.PhaseDraw && p <= agentrig.PhaseSettle {
			sum.Add(sum, info.Paid)
		}
	}
	return sum
}

// checkSolvent asserts the contract holds exactly what it owes: every credit, every stake and
// the price of every open task.
func (c *chain) checkSolvent() {
	c.t.Helper()
	bal, err := c.Client.BalanceAt(context.Background(), c.Address, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	credits, stakes, escrow := c.sumCredits(), c.sumStakes(), c.sumEscrow()
	owed := new(big.Int).Add(credits, stakes)
	owed.Add(owed, escrow)
	if bal.Cmp(owed) != 0 {
		c.t.Fatalf("contract holds %s wei but owes %s (credits %s + stakes %s + open tasks %s)", bal, owed, credits, stakes, escrow)
	}
}

func mul(a *big.Int, n int64) *big.Int { return new(big.Int).Mul(a, big.NewInt(n)) }
