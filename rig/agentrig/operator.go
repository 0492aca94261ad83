package agentrig

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// What an operator does on chain: register rigs, stake, leave, consent to a relayer's fee, take
// its credits out, and read where its rigs stand. Each action is a Call; commands Prepare it
// (eth_call simulation, gas and fee), show it, and send it with SendPlan.

// RegisterCall registers a rig on jobID operated by operator, staked with stake wei.
func (c *Contract) RegisterCall(jobID uint32, operator common.Address, stake *big.Int) txm.Call {
	return txm.Call{Function: fmt.Sprintf("registerRig(%d, %s)", jobID, operator.Hex()), To: c.Address,
		Data: c.abi.PackRegisterRig(jobID, operator), Value: new(big.Int).Set(stake)}
}

// AddStakeCall adds amount wei to a rig's stake.
func (c *Contract) AddStakeCall(rigID uint64, amount *big.Int) txm.Call {
	return txm.Call{Function: fmt.Sprintf("addStake(%d)", rigID), To: c.Address, Data: c.abi.PackAddStake(rigID), Value: new(big.Int).Set(amount)}
}

// WithdrawStakeCall moves amount wei of a rig's unlocked stake to the owner's credits.
func (c *Contract) WithdrawStakeCall(rigID uint64, amount *big.Int) txm.Call {
	return txm.Call{Function: fmt.Sprintf("withdrawStake(%d, %s)", rigID, amount), To: c.Address, Data: c.abi.PackWithdrawStake(rigID, amount)}
}

// DeactivateCall takes a rig out of its job's draws.
func (c *Contract) DeactivateCall(rigID uint64) txm.Call {
	return txm.Call{Function: fmt.Sprintf("deactivateRig(%d)", rigID), To: c.Address, Data: c.abi.PackDeactivateRig(rigID)}
}

// WithdrawCall pays out the sender's credits.
func (c *Contract) WithdrawCall() txm.Call {
	return txm.Call{Function: "withdraw()", To: c.Address, Data: c.abi.PackWithdraw()}
}

// SetOperatorFeeCall records a signed OperatorFee consent.
func (c *Contract) SetOperatorFeeCall(fee task.OperatorFee, sig []byte) txm.Call {
	return txm.Call{Function: fmt.Sprintf("setOperatorFee(%s, %d bps, payee %s, nonce %s)", fee.Operator.Hex(), fee.Bps, fee.Payee.Hex(), fee.Nonce),
		To: c.Address, Data: c.abi.PackSetOperatorFee(AgentRigOperatorFee{Operator: fee.Operator, Bps: fee.Bps, Payee: fee.Payee, Nonce: fee.Nonce}, sig)}
}

// RegisteredRig finds the rig id a registerRig transaction created.
func (c *Contract) RegisteredRig(r txm.SentTx) (uint64, error) {
	for _, l := range r.Logs {
		if ev, err := c.abi.UnpackRigRegisteredEvent(l); err == nil {
			return ev.RigId, nil
		}
	}
	return 0, fmt.Errorf("transaction %s registered no rig", r.TxHash.Hex())
}

// Rig reads rigOf.
func (c *Contract) Rig(ctx context.Context, rigID uint64) (AgentRigRigInfo, error) {
	out, err := c.call(ctx, c.abi.PackRigOf(rigID))
	if err != nil {
		return AgentRigRigInfo{}, fmt.Errorf("rigOf(%d): %w", rigID, err)
	}
	return c.abi.UnpackRigOf(out)
}

// Credits reads credits(account): wei it can withdraw.
func (c *Contract) Credits(ctx context.Context, account common.Address) (*big.Int, error) {
	out, err := c.call(ctx, c.abi.PackCredits(account))
	if err != nil {
		return nil, fmt.Errorf("credits(%s): %w", account.Hex(), err)
	}
	return c.abi.UnpackCredits(out)
}

// OperatorFeeOf reads the fee consent an operator gave (zero payee when none).
func (c *Contract) OperatorFeeOf(ctx context.Context, operator common.Address) (task.OperatorFee, error) {
	out, err := c.call(ctx, c.abi.PackOperatorFees(operator))
	if err != nil {
		return task.OperatorFee{}, fmt.Errorf("operatorFees(%s): %w", operator.Hex(), err)
	}
	f, err := c.abi.UnpackOperatorFees(out)
	if err != nil {
		return task.OperatorFee{}, err
	}
	return task.OperatorFee{Operator: f.Operator, Bps: f.Bps, Payee: f.Payee, Nonce: f.Nonce}, nil
}

// NextFeeNonce is the first OperatorFee nonce of operator not used yet, from the one after its
// current consent.
func (c *Contract) NextFeeNonce(ctx context.Context, operator common.Address) (*big.Int, error) {
	cur, err := c.OperatorFeeOf(ctx, operator)
	if err != nil {
		return nil, err
	}
	n := new(big.Int)
	if cur.Payee != (common.Address{}) || cur.Bps != 0 {
		n.Add(cur.Nonce, big.NewInt(1))
	}
	for range 1000 {
		out, err := c.call(ctx, c.abi.PackUsedNonces(operator, n))
		if err != nil {
			return nil, fmt.Errorf("usedNonces: %w", err)
		}
		used, err := c.abi.UnpackUsedNonces(out)
		if err != nil {
			return nil, err
		}
		if !used {
			return n, nil
		}
		n = new(big.Int).Add(n, big.NewInt(1))
	}
	return nil, fmt.Errorf("no unused fee nonce of %s near %s", operator.Hex(), n)
}

// RigsOf lists the rigs that account operates or owns, by scanning rigOf(1..rigCount): the
// contract keeps no index by account, and a scan needs no log range a public node may refuse.
func (c *Contract) RigsOf(ctx context.Context, account common.Address) (map[uint64]AgentRigRigInfo, []uint64, error) {
	out, err := c.call(ctx, c.abi.PackRigCount())
	if err != nil {
		return nil, nil, fmt.Errorf("rigCount: %w", err)
	}
	count, err := c.abi.UnpackRigCount(out)
	if err != nil {
		return nil, nil, err
	}
	found := map[uint64]AgentRigRigInfo{}
	var ids []uint64
	for id := uint64(1); id <= count; id++ {
		info, err := c.Rig(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		if info.Operator == account || info.Owner == account {
			found[id] = info
			ids = append(ids, id)
		}
	}
	return found, ids, nil
}

// RigStatus is where one rig stands.
type RigStatus struct {
	RigID    uint64
	JobID    uint32
	Operator common.Address
	Owner    common.Address
	Active   bool
	Stake    *big.Int // wei, locked part included
	Locked   *big.Int
	Slash    *big.Int // the job's slash: what one draw locks
	// Drawable: active and the unlocked stake covers one more slash, as the draw checks.
	Drawable bool
	Why      string // why not drawable
	// From the chain's events since FromBlock.
	Answered int // reveals
	Agreed   int // reveals in tasks that settled agreed, not slashed outside the agreement
	Missed   int // slashed for a missed commit or reveal
	Slashed  int // slashed for an answer outside the agreement
	// Gas of this rig's latest commit and reveal, per task: a batch (commitMany, revealMany) is
	// divided by the entries it applied, so a batch of three tasks counts a third of its gas
	// (0 when it has none yet).
	CommitGas, RevealGas uint64
	// SharedGas is this rig's share of the draw and the settle of its latest settled task: each
	// transaction's gas over the rigs drawn (0 when none of its revealed tasks settled yet).
	// Someone pays them for every task, and what the rigs earn pays for them (BENCHMARKS.md
	// counts them in a rig-answer's gas the same way).
	SharedGas uint64
}

// GasPerTask is what one task of this rig costs in gas: its commit, its reveal and its share of
// the task's draw and settle (0 when its commit or reveal is not measured yet).
func (s RigStatus) GasPerTask() uint64 {
	if s.CommitGas == 0 || s.RevealGas == 0 {
		return 0
	}
	return s.CommitGas + s.RevealGas + s.SharedGas
}

// Status reads a rig and counts its tasks from the Revealed and Slashed events from block from on.
func (c *Contract) Status(ctx context.Context, rigID uint64, info AgentRigRigInfo, from uint64) (RigStatus, error) {
	s := RigStatus{RigID: rigID, JobID: info.JobId, Operator: info.Operator, Owner: info.Owner, Active: info.Active,
		Stake: new(big.Int).Set(info.Stake), Locked: new(big.Int).Set(info.Locked)}
	job, err := c.Job(ctx, info.JobId)
	if err != nil {
		return s, err
	}
	s.Slash = new(big.Int).Set(job.Slash)
	free := new(big.Int).Sub(s.Stake, s.Locked)
	switch {
	case !s.Active:
		s.Why = "deactivated"
	case free.Cmp(s.Slash) < 0:
		s.Why = fmt.Sprintf("unlocked stake %s wei is below the slash %s wei (every task it is drawn in locks one slash)", free, s.Slash)
	default:
		s.Drawable = true
	}
	ev := c.abi.GetABI().Events
	topicRig := common.BigToHash(new(big.Int).SetUint64(rigID))
	q := ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), Addresses: []common.Address{c.Address},
		Topics: [][]common.Hash{{ev["Revealed"].ID, ev["Slashed"].ID, ev["Committed"].ID}, nil, {topicRig}}}
	logs, err := c.backend.FilterLogs(ctx, q)
	if err != nil {
		return s, fmt.Errorf("logs of rig %d: %w", rigID, txm.ClassifyRPCError(err))
	}
	outside := map[string]bool{}
	var revealed []*big.Int
	var lastCommit, lastReveal common.Hash
	for i := range logs {
		l := &logs[i]
		switch l.Topics[0] {
		case ev["Committed"].ID:
			lastCommit = l.TxHash
		case ev["Revealed"].ID:
			s.Answered++
			lastReveal = l.TxHash
			revealed = append(revealed, new(big.Int).SetBytes(l.Topics[1][:]))
		case ev["Slashed"].ID:
			e, err := c.abi.UnpackSlashedEvent(l)
			if err != nil {
				return s, err
			}
			if SlashReason(e.Reason) == SlashOutsideAgreement {
				s.Slashed++
				outside[e.TaskId.String()] = true
			} else {
				s.Missed++
			}
		}
	}
	for _, id := range revealed {
		a, err := c.AnswerOf(ctx, id)
		if err != nil {
			return s, err
		}
		if Phase(a.Status) == PhaseSettled && a.Agreed && !outside[id.String()] {
			s.Agreed++
		}
	}
	s.CommitGas = c.gasPerEntry(ctx, lastCommit, ev["Committed"].ID)
	s.RevealGas = c.gasPerEntry(ctx, lastReveal, ev["Revealed"].ID)
	shared, err := c.sharedGas(ctx, revealed, from)
	if err != nil {
		return s, err
	}
	s.SharedGas = shared
	return s, nil
}

// sharedTasksBack is how many of a rig's latest revealed tasks are looked at for one that
// settled: the newest may still be in its reveal window.
const sharedTasksBack = 16

// sharedGas is a rig's share of the draw and settle of the newest of its revealed tasks that
// settled: each one's gas over the rigs the draw chose.
func (c *Contract) sharedGas(ctx context.Context, revealed []*big.Int, from uint64) (uint64, error) {
	if len(revealed) == 0 {
		return 0, nil
	}
	recent := revealed[max(0, len(revealed)-sharedTasksBack):]
	ids := make([]common.Hash, len(recent))
	for i, id := range recent {
		ids[i] = common.BigToHash(id)
	}
	ev := c.abi.GetABI().Events
	logs, err := c.backend.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), Addresses: []common.Address{c.Address},
		Topics: [][]common.Hash{{ev["TaskDrawn"].ID, ev["Settled"].ID}, ids}})
	if err != nil {
		return 0, fmt.Errorf("draws and settles of revealed tasks: %w", txm.ClassifyRPCError(err))
	}
	type lifecycle struct {
		draw, settle common.Hash
		rigs         int
	}
	tasks := map[common.Hash]*lifecycle{}
	for i := range logs {
		l := &logs[i]
		t := tasks[l.Topics[1]]
		if t == nil {
			t = &lifecycle{}
			tasks[l.Topics[1]] = t
		}
		if l.Topics[0] == ev["Settled"].ID {
			t.settle = l.TxHash
			continue
		}
		drawn, err := c.abi.UnpackTaskDrawnEvent(l)
		if err != nil {
			return 0, err
		}
		t.draw, t.rigs = l.TxHash, len(drawn.RigIds)
	}
	for i := len(ids) - 1; i >= 0; i-- {
		t := tasks[ids[i]]
		if t == nil || t.draw == (common.Hash{}) || t.settle == (common.Hash{}) || t.rigs == 0 {
			continue
		}
		draw, settle := c.gasPerEntry(ctx, t.draw, common.Hash{}), c.gasPerEntry(ctx, t.settle, common.Hash{})
		if draw == 0 || settle == 0 {
			continue
		}
		return (draw + settle) / uint64(t.rigs), nil
	}
	return 0, nil
}

// gasPerEntry is a mined transaction's gas over the entries it applied: the logs of the
// contract with topic entry in its receipt (a commitMany of three tasks counts a third of its
// gas each); all of it when entry is zero or it has none. 0 when it is unknown or reverted.
func (c *Contract) gasPerEntry(ctx context.Context, tx, entry common.Hash) uint64 {
	if tx == (common.Hash{}) {
		return 0
	}
	r, err := c.backend.TransactionReceipt(ctx, tx)
	if err != nil || r == nil || r.Status != types.ReceiptStatusSuccessful {
		return 0
	}
	entries := uint64(0)
	for _, l := range r.Logs {
		if entry != (common.Hash{}) && l.Address == c.Address && len(l.Topics) > 0 && l.Topics[0] == entry {
			entries++
		}
	}
	return r.GasUsed / max(entries, 1)
}
