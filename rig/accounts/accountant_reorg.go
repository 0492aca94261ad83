package accounts

// Reorgs and the accounts: a transaction the journal recorded as mined may be taken out of the
// chain by a reorg, and then either mined again (in another block, at another price) or never.
// The accounts follow the chain: each step compares the new head with the last one, and when the
// chain did not simply grow, every journaled transaction of the last ReorgDepth blocks is looked
// up again: one without a receipt leaves the accounts (and is watched, in case it is mined
// again), one mined elsewhere is journaled again from its new receipt. The payouts of a
// settlement of those blocks (whoever sent it) are looked up the same way: a settlement the chain
// no longer holds where it was read takes its payouts out of the accounts, and its task is opened
// again, so the next look reads the settlement the chain holds now (or, none mined, settles it
// when the schedule says it is our turn). Each correction is counted in the metrics' reorged
// series (metrics.go), since a counter cannot go down.

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/journal"
)

// reorgAccounts is what the runner remembers for it.
type reorgAccounts struct {
	last    *types.Header             // the head of the previous step
	dropped map[common.Hash]droppedTx // taken out of the accounts; watched until mined again
}

// droppedTx is a transaction a reorg took out, and until which block it is watched.
type droppedTx struct {
	rec   journal.TxRecord
	until uint64
}

// accountsJournal is the part of the journal the check needs (*DBJournal has it).
type accountsJournal interface {
	journal.Accounts
	// TxsFromBlock lists the journaled transactions mined in block from or later.
	TxsFromBlock(ctx context.Context, from uint64) ([]journal.TxRecord, error)
	// ForgetTx takes a transaction and its entries out of the accounts.
	ForgetTx(ctx context.Context, hash common.Hash) error
	// MoveTx journals t in place of the journaled transaction of the same hash, in one database
	// transaction.
	MoveTx(ctx context.Context, t journal.TxRecord) error
	// PayoutsFromBlock lists the journaled payouts of settlements mined in block from or later.
	PayoutsFromBlock(ctx context.Context, from uint64) ([]journal.Payout, error)
	// ForgetPayouts takes the payouts of one settlement transaction out of the accounts.
	ForgetPayouts(ctx context.Context, settle common.Hash) error
}

// CheckReorg keeps the accounts to the chain at a new head. It costs nothing while each head
// is the child of the last, and one header read when heads were skipped.
func (a *Accountant) CheckReorg(ctx context.Context, head *types.Header) {
	book, ok := a.journal.(accountsJournal)
	if !ok {
		return
	}
	ctx = context.WithoutCancel(ctx)
	prev := a.reorg.last
	a.reorg.last = head
	if len(a.reorg.dropped) > 0 {
		a.rewatch(ctx, book, head.Number.Uint64())
	}
	if prev == nil || head.Hash() == prev.Hash() {
		return
	}
	if head.Number.Uint64() == prev.Number.Uint64()+1 && head.ParentHash == prev.Hash() {
		return
	}
	if head.Number.Cmp(prev.Number) > 0 {
		if h, err := a.backend.HeaderByNumber(ctx, prev.Number); err == nil && h.Hash() == prev.Hash() {
			return // the chain grew by several blocks since the last look
		}
	}
	from := prev.Number.Uint64() - min(prev.Number.Uint64(), a.reorgDepth)
	defer a.checkPayouts(ctx, book, from)
	txs, err := book.TxsFromBlock(ctx, from)
	if err != nil {
		a.log.Warn("reading the journaled transactions after a reorg failed", "error", err)
		return
	}
	a.log.Info("the chain reorganised: checking the journaled transactions", "from_block", from, "transactions", len(txs))
	for _, t := range txs {
		rec, err := a.canonicalReceipt(ctx, t.Hash)
		switch {
		case err == nil && rec != nil:
			a.rejournal(ctx, book, t, rec)
		case isNotFound(err):
			if err := book.ForgetTx(ctx, t.Hash); err != nil {
				a.log.Error("taking a dropped transaction out of the accounts failed", "tx", t.Hash.Hex(), "error", err)
				continue
			}
			a.metrics.CountTx(t, true)
			a.forgetNonceOf(t.From)
			if a.reorg.dropped == nil {
				a.reorg.dropped = map[common.Hash]droppedTx{}
			}
			a.reorg.dropped[t.Hash] = droppedTx{rec: t, until: head.Number.Uint64() + 4*a.reorgDepth}
			a.log.Warn("a reorg dropped a journaled transaction: it leaves the accounts", "tx", t.Hash.Hex(), "purpose", t.Purpose, "block", t.Block)
		default:
			a.log.Warn("looking up a journaled transaction after a reorg failed", "tx", t.Hash.Hex(), "error", err)
		}
	}
}

// rejournal journals t again from its receipt when the chain now holds it elsewhere (another
// block, another cost or outcome).
func (a *Accountant) rejournal(ctx context.Context, book accountsJournal, t journal.TxRecord, rec *types.Receipt) {
	now := a.txRecord(ctx, t.Purpose, t.From, t.Entries, rec)
	if now.Block == t.Block && now.Fee.Cmp(weiOrZero(t.Fee)) == 0 && now.Status == t.Status {
		return
	}
	now.At = t.At
	// One database transaction: forgetting the old record and journaling the new one apart
	// would lose the transaction for good to a crash between the two.
	if err := book.MoveTx(ctx, now); err != nil {
		a.log.Error("journaling a re-mined transaction failed", "tx", t.Hash.Hex(), "error", err)
		return
	}
	a.metrics.CountTx(t, true)
	a.metrics.CountTx(now, false)
	a.log.Info("a reorg moved a journaled transaction: journaled again from its new receipt", "tx", t.Hash.Hex(),
		"block", now.Block, "was_block", t.Block, "fee_wei", now.Fee, "was_fee_wei", t.Fee)
}

// rewatch journals again the dropped transactions mined since, and stops watching those past
// their watch.
func (a *Accountant) rewatch(ctx context.Context, book accountsJournal, head uint64) {
	for hash, d := range a.reorg.dropped {
		rec, err := a.canonicalReceipt(ctx, hash)
		switch {
		case err == nil && rec != nil:
			t := a.txRecord(ctx, d.rec.Purpose, d.rec.From, d.rec.Entries, rec)
			t.At = d.rec.At
			inserted, err := book.RecordTx(ctx, t)
			if err != nil {
				a.log.Error("journaling a re-mined transaction failed", "tx", hash.Hex(), "error", err)
				continue
			}
			if inserted {
				a.metrics.CountTx(t, false)
			}
			a.log.Info("a transaction a reorg dropped was mined again: back in the accounts", "tx", hash.Hex(), "block", t.Block)
			delete(a.reorg.dropped, hash)
		case head > d.until:
			delete(a.reorg.dropped, hash)
		}
	}
}

// checkPayouts looks up again the settlements whose payouts the journal read from block from on:
// one no longer in the chain, or mined at another height, takes its payouts out of the accounts
// and opens its task again, to be read again from the chain (see the top of this file).
func (a *Accountant) checkPayouts(ctx context.Context, book accountsJournal, from uint64) {
	ps, err := book.PayoutsFromBlock(ctx, from)
	if err != nil {
		a.log.Warn("reading the journaled payouts after a reorg failed", "error", err)
		return
	}
	bySettle := map[common.Hash][]journal.Payout{}
	for _, p := range ps {
		bySettle[p.Tx] = append(bySettle[p.Tx], p)
	}
	for hash, paid := range bySettle {
		rec, err := a.canonicalReceipt(ctx, hash)
		switch {
		case err == nil && rec != nil:
			if rec.BlockNumber != nil && rec.BlockNumber.Uint64() == paid[0].Block {
				continue // where it was read
			}
		case !isNotFound(err):
			a.log.Warn("looking up a settlement after a reorg failed", "tx", hash.Hex(), "error", err)
			continue
		}
		if err := book.ForgetPayouts(ctx, hash); err != nil {
			a.log.Error("taking a dropped settlement's payouts out of the accounts failed", "tx", hash.Hex(), "error", err)
			continue
		}
		a.metrics.CountPayouts(paid, true)
		a.reopen(paid[0].TaskID)
		a.log.Warn("a reorg dropped or moved a settlement: its payouts leave the accounts until read again", "tx", hash.Hex(),
			"task", paid[0].TaskID, "block", paid[0].Block, "payouts", len(paid))
	}
}

// forgetNonceOf makes the sender of from ask the node for its next nonce: a reorg dropped one
// of its transactions, so the nonce it would hand out next lies behind a gap, and what it sent
// there would wait until Send's nonce-gap resend (BumpAfter later, leaving a stale duplicate).
func (a *Accountant) forgetNonceOf(from common.Address) {
	if a.relayer != nil && a.relayer.Address() == from {
		a.relayer.ForgetNonce()
		return
	}
	if r, ok := a.rigs[a.rigOfSender(from)]; ok && r.Sender != nil {
		r.Sender.ForgetNonce()
	}
}

// canonicalReceipt is a transaction's receipt when the block it names is the chain's at that
// height now; ethereum.NotFound otherwise. Right after a reorg a node may still answer from the
// dropped block (geth keeps a lookup cache it purges after moving the head), and a receipt so
// read would keep a dropped transaction or settlement in the accounts: each is looked up once
// per reorg.
func (a *Accountant) canonicalReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	rec, err := a.backend.TransactionReceipt(ctx, hash)
	if err != nil || rec == nil || rec.BlockNumber == nil {
		return rec, err
	}
	h, err := a.backend.HeaderByNumber(ctx, rec.BlockNumber)
	switch {
	case isNotFound(err):
		return nil, ethereum.NotFound
	case err != nil:
		return nil, err
	case h.Hash() != rec.BlockHash:
		return nil, ethereum.NotFound
	}
	return rec, nil
}

// isNotFound says a node has no receipt for a transaction (any more).
func isNotFound(err error) bool { return errors.Is(err, ethereum.NotFound) }
