package accounts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// The runner's accounts: its senders tell the accountant of every mined transaction
// (txm.SenderConfig.OnMined), the runner's settle step asks it for the payouts of a settled task,
// and each step keeps both to the chain through reorgs (accountant_reorg.go).

// Config is what an Accountant reads and writes: the node it reads receipts from, the journal
// it keeps the accounts in, the deployment that reads settlements, and a callback to look at a
// task again.
type Config struct {
	Backend agentrig.Backend // receipts, their L1 part and the blocks they name
	Journal journal.Journal
	Deploy  agentrig.Deployment
	Domain  task.Domain // the EIP-712 domain a relayed batch's entries were signed in
	// FromBlock is where a settlement is looked for when no transaction of the task is
	// journaled; ReorgDepth how far back a reorg is checked.
	FromBlock, ReorgDepth uint64
	Metrics               Counter // nil: nothing counted
	Log                   *slog.Logger
	// Reopen makes the runner look at a finished task again (its settlement was reorged out).
	Reopen func(taskID uint64)
}

// Counter is told of what the accounts gain and, reorged, lose (the runner's /metrics).
type Counter interface {
	CountTx(t journal.TxRecord, reorged bool)
	CountPayouts(ps []journal.Payout, reorged bool)
}

// Rig is one of the runner's rigs as the accounts see it: its id, its operator's address (the
// sender of its transactions and the signer of its batch entries) and its sender (told to
// forget its nonce when a reorg drops one of its transactions; nil for none).
type Rig struct {
	ID       uint64
	Operator common.Address
	Sender   *txm.Sender
}

// Accountant keeps the runner's accounts in its journal. It holds what it reads and writes, not
// the runner: the rigs and the relayer whose transactions it books, and its Config.
type Accountant struct {
	backend               agentrig.Backend
	journal               journal.Journal
	deploy                agentrig.Deployment
	domain                task.Domain
	rigs                  map[uint64]Rig // the runner's rigs, by id (added before any send)
	relayer               *txm.Sender    // nil without a relayer
	fromBlock, reorgDepth uint64
	metrics               Counter
	log                   *slog.Logger
	reopen                func(taskID uint64)
	reorg                 reorgAccounts // what the reorg check remembers between steps
}

// New is an Accountant with no rigs yet (AddRig, SetRelayer).
func New(cfg Config) *Accountant {
	a := &Accountant{backend: cfg.Backend, journal: cfg.Journal, deploy: cfg.Deploy, domain: cfg.Domain, rigs: map[uint64]Rig{},
		fromBlock: cfg.FromBlock, reorgDepth: cfg.ReorgDepth, metrics: cfg.Metrics, log: cfg.Log, reopen: cfg.Reopen}
	if a.metrics == nil {
		a.metrics = noCounter{}
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.reopen == nil {
		a.reopen = func(uint64) {}
	}
	return a
}

// AddRig books the transactions of a rig of the runner's. Call it before the rig sends.
func (a *Accountant) AddRig(r Rig) { a.rigs[r.ID] = r }

// SetRelayer books the transactions of the runner's relayer. Call it before the relayer sends.
func (a *Accountant) SetRelayer(s *txm.Sender) { a.relayer = s }

type noCounter struct{}

func (noCounter) CountTx(journal.TxRecord, bool)      {}
func (noCounter) CountPayouts([]journal.Payout, bool) {}

// OnMined journals a mined transaction of one of the runner's senders with what it served and
// what it cost. A journal write that fails is logged: the transaction is mined either way.
func (a *Accountant) OnMined(ctx context.Context, from common.Address, data []byte, rec *types.Receipt) {
	book, ok := a.journal.(journal.Accounts)
	if !ok || rec == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	purpose, entries := a.describeTx(from, data)
	t := a.txRecord(ctx, purpose, from, entries, rec)
	inserted, err := book.RecordTx(ctx, t)
	if err != nil {
		a.log.Error("journaling a mined transaction failed", "tx", rec.TxHash.Hex(), "purpose", purpose, "error", err)
		return
	}
	if inserted {
		a.metrics.CountTx(t, false)
	}
}

// txRecord is what the accounts keep of a mined transaction: its receipt's cost, L1 part
// included, split over the entries it served.
func (a *Accountant) txRecord(ctx context.Context, purpose string, from common.Address, entries []journal.TaskRig, rec *types.Receipt) journal.TxRecord {
	l1, err := txm.ReceiptL1(ctx, a.backend, rec.TxHash)
	switch {
	case errors.Is(err, txm.ErrNoRawClient):
		a.log.Debug("no L1 part for the transaction's cost", "tx", rec.TxHash.Hex(), "error", err)
	case err != nil:
		// journaled without it: on a rollup that charges L1 on top (OP-style l1Fee) the
		// accounts then undercount this transaction's cost
		a.log.Warn("the L1 part of a transaction's cost could not be read: journaled without it", "tx", rec.TxHash.Hex(), "error", err)
	}
	fee := txm.ReceiptFee(rec, l1)
	entries = slices.Clone(entries)
	for i, share := range journal.SplitFee(fee, len(entries)) {
		entries[i].Share = share
	}
	t := journal.TxRecord{Hash: rec.TxHash, Purpose: purpose, From: from, RigID: a.rigOfSender(from), Status: journal.TxOK,
		GasUsed: rec.GasUsed, EffectiveGasPrice: rec.EffectiveGasPrice, Fee: fee, L1GasUsed: l1.GasUsed, L1Fee: l1.Fee, Entries: entries}
	if rec.BlockNumber != nil {
		t.Block = rec.BlockNumber.Uint64()
	}
	if rec.Status != types.ReceiptStatusSuccessful {
		t.Status = journal.TxReverted
	}
	return t
}

// rigOfSender is the rig whose operator key is from; 0 for a relayer.
func (a *Accountant) rigOfSender(from common.Address) uint64 {
	for id, r := range a.rigs {
		if r.Operator == from {
			return id
		}
	}
	return 0
}

// rigOfOperator is the rig of ours an operator address runs; 0 when none.
func (a *Accountant) rigOfOperator(op common.Address) uint64 { return a.rigOfSender(op) }

// describeTx reads what a transaction to the contract was for from its call data: the
// function's name, and the tasks and rigs it served. A draw or settle serves the task for the
// rig whose key sent it (0: a relayer); a commit or reveal for the sender's rig; each entry of a
// commitMany or revealMany for the rig whose operator signed it. Call data the contract's ABI
// does not know is journaled as "unknown" against task 0, so its cost is never lost.
func (a *Accountant) describeTx(from common.Address, data []byte) (string, []journal.TaskRig) {
	sender := a.rigOfSender(from)
	unknown := []journal.TaskRig{{RigID: sender}}
	if len(data) < 4 {
		return "unknown", unknown
	}
	method, err := callABI.MethodById(data[:4])
	if err != nil {
		return "unknown", unknown
	}
	args, err := method.Inputs.Unpack(data[4:])
	if err != nil {
		return method.Name, unknown
	}
	switch method.Name {
	case "commitMany":
		return method.Name, signedEntries(a, method, args, unknown, func(e agentrig.AgentRigCommit) (*big.Int, common.Hash, error) {
			d, err := a.domain.CommitDigest(e.TaskId, e.Commitment)
			return e.TaskId, d, err
		})
	case "revealMany":
		return method.Name, signedEntries(a, method, args, unknown, func(e agentrig.AgentRigReveal) (*big.Int, common.Hash, error) {
			d, err := a.domain.RevealDigest(e.TaskId, e.Answer, e.Salt)
			return e.TaskId, d, err
		})
	}
	// draw, commit, reveal, settle, refund: the task id is the first argument.
	if len(args) > 0 {
		if id, ok := args[0].(*big.Int); ok && id.IsUint64() && method.Inputs[0].Name == "taskId" {
			return method.Name, []journal.TaskRig{{TaskID: id.Uint64(), RigID: sender}}
		}
	}
	return method.Name, unknown
}

// signedEntries reads the entries (E: a commit or a reveal) and signatures of a commitMany or
// revealMany call and what each entry served: its task, for the rig whose operator signed its
// digest (0 when the signature recovers none of ours). The two batches differ only in the entry
// type and the digest its operator signed, which digest gives; call data whose entries and
// signatures do not pair up is unknown.
func signedEntries[E any](a *Accountant, method *abi.Method, args []any, unknown []journal.TaskRig, digest func(E) (*big.Int, common.Hash, error)) []journal.TaskRig {
	var v struct {
		Entries    []E
		Signatures [][]byte
	}
	if method.Inputs.Copy(&v, args) != nil || len(v.Entries) == 0 || len(v.Entries) != len(v.Signatures) {
		return unknown
	}
	out := make([]journal.TaskRig, 0, len(v.Entries))
	for i, e := range v.Entries {
		rig := uint64(0)
		id, d, err := digest(e)
		if err == nil {
			if op, err := task.Recover(d, v.Signatures[i]); err == nil {
				rig = a.rigOfOperator(op)
			}
		}
		out = appendEntry(out, journal.TaskRig{TaskID: id.Uint64(), RigID: rig})
	}
	return out
}

// appendEntry adds an entry unless the same task and rig is there already (a batch carrying
// one rig's entry twice charges it once).
func appendEntry(out []journal.TaskRig, e journal.TaskRig) []journal.TaskRig {
	for _, o := range out {
		if o.TaskID == e.TaskID && o.RigID == e.RigID {
			return out
		}
	}
	return append(out, e)
}

// RecordPayouts journals what a settled task credited to our rigs and slashed from them, read
// from the settlement's own events, once per task. An error leaves the task to the next step.
func (a *Accountant) RecordPayouts(ctx context.Context, taskID uint64, mine map[uint64]int) error {
	book, ok := a.journal.(journal.Accounts)
	if !ok || len(mine) == 0 {
		return nil
	}
	done, err := book.PayoutsRecorded(ctx, taskID)
	if err != nil || done {
		return err
	}
	reader, ok := a.deploy.(PayoutReader)
	if !ok {
		return nil
	}
	operators := map[uint64]common.Address{}
	for id := range mine {
		operators[id] = a.rigs[id].Operator
	}
	from := a.fromBlock
	if b, ok, err := a.firstBlockOf(ctx, taskID); err == nil && ok {
		from = b
	}
	var payee *common.Address
	if a.relayer != nil {
		a := a.relayer.Address()
		payee = &a
	}
	ps, err := reader.SettlementPayouts(ctx, taskID, from, operators, payee)
	if err != nil {
		return err
	}
	added, err := book.RecordPayouts(context.WithoutCancel(ctx), ps)
	if err != nil {
		return fmt.Errorf("journaling the payouts of task %d: %w", taskID, err)
	}
	a.metrics.CountPayouts(added, false)
	return nil
}

// firstBlockOf is the first block holding one of our transactions for a task: its settlement
// is later.
func (a *Accountant) firstBlockOf(ctx context.Context, taskID uint64) (uint64, bool, error) {
	j, ok := a.journal.(interface {
		FirstBlock(ctx context.Context, taskID uint64) (uint64, bool, error)
	})
	if !ok {
		return 0, false, nil
	}
	return j.FirstBlock(ctx, taskID)
}

// PayoutReader is a Deployment that tells what a settled task paid our rigs and took from
// them; the seeds leave it open (they say settle "pays the agreeing rigs" and "applies the
// slashes", not how that shows). agentrig.ReferenceDeployment reads the reference contract's events. A
// deployment without it is accounted for its gas alone.
type PayoutReader interface {
	// SettlementPayouts returns the payouts of a settled task to the rigs given (by rig id, with
	// their operator addresses), and the operator fees it credited to payee (our relayer; nil
	// for none), looking for the settlement from block from on; ErrNotSettled (wrapped) when the
	// chain shows none yet.
	SettlementPayouts(ctx context.Context, taskID, from uint64, operators map[uint64]common.Address, payee *common.Address) ([]journal.Payout, error)
}

var _ PayoutReader = (*agentrig.ReferenceDeployment)(nil)

// callABI decodes the call data of the transactions the rig sends: the seeds' functions, as the
// reference contract's ABI spells them.
var callABI = agentrig.NewAgentRig().GetABI()

// weiOrZero is v, or 0 for a nil amount.
func weiOrZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}
