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

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
)

// Accounts of the test chain, by role.
const (
	deployer = 0 // the treasury, and builder of the jobs
	orderer  = 1
	relayer  = 2
	stranger = 3
	firstOp  = 4 // operators are accounts firstOp, firstOp+1, ...
)

var (
	gwei      = big.NewInt(1e9)
	testPrice = big.NewInt(10_000_000_000_000) // 0.00001 ETH, job 2's price
	testSlash = big.NewInt(10_000_000_000_000) // 0.00001 ETH, job 2's slash
)

// chain is a Sim with helpers that fail the test on error.
type chain struct {
	*agentrig.Sim
	t      *testing.T
	domain rig.Domain
}

// newChain starts a simulated chain with the contract deployed. The chain's clock is moved a day
// ahead first: sealed blocks then take parent time + 1 s instead of the wall clock, so windows
// pass only when a test moves time.
func newChain(t *testing.T, accounts int) *chain {
	t.Helper()
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: accounts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	if err := sim.AdvanceTime(24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	return &chain{Sim: sim, t: t, domain: rig.Domain{ChainID: sim.ChainID, Contract: sim.Address}}
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

// callAt runs a call against the state after the given block, as eth_call at that block does.
func (c *chain) callErr(data []byte) error {
	_, err := c.Client.CallContract(context.Background(), ethereum.CallMsg{From: c.Addr(stranger), To: &c.Address, Data: data}, nil)
	return err
}

func (c *chain) publish(kind numeric.Kind, quorum uint8, tol uint32) uint32 {
	c.t.Helper()
	data := c.ABI.PackPublishJob(uint8(kind), quorum, testPrice, testSlash, tol, "ipfs://spec")
	rcpt := c.send(deployer, nil, data)
	ev := only(c.t, events(rcpt, c.ABI.UnpackJobPublishedEvent))
	return ev.JobId
}

// register registers a rig for operator account op, staking `slashes` times the test slash.
func (c *chain) register(job uint32, op int, slashes int64) uint64 {
	c.t.Helper()
	stake := new(big.Int).Mul(testSlash, big.NewInt(slashes))
	rcpt := c.send(deployer, stake, c.ABI.PackRegisterRig(job, c.Addr(op)))
	return only(c.t, events(rcpt, c.ABI.UnpackRigRegisteredEvent)).RigId
}

func (c *chain) order(job uint32, uri string) (*big.Int, *types.Receipt) {
	c.t.Helper()
	rcpt := c.send(orderer, testPrice, c.ABI.PackOrder(job, rig.InputHash(uri), uri))
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

// answerSalt makes a commitment for a rig.
func commitmentFor(t *testing.T, task *big.Int, rigID uint64, answer numeric.Answer, salt rig.Salt) common.Hash {
	t.Helper()
	h, err := rig.Commitment(task, rigID, answer, salt)
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
	sig, err := rig.NewKeySigner(c.Keys[i]).SignDigest(digest)
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
