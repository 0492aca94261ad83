package agentrig

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/txm"
)

// A settled task's payouts, read from the reference contract's events: what the settlement
// credited to the rigs asked about and slashed from them (the runner journals them: accounts.PayoutReader).

// ErrNotSettled means the chain holds no Settled event for a task (yet).
var ErrNotSettled = errors.New("no Settled event")

// rigAccount is who a settlement pays for a rig: its operator (the rig's share of the price) and
// its owner (its share of others' slashes).
type rigAccount struct{ operator, owner common.Address }

// SettlementPayouts reads a settled task's payouts from the settle transaction's events: each
// Credited to a rig's operator (reward) or owner (staker share), and each Slashed of a rig. A
// staker credit goes to the rig whose reward it follows, as the reference contract pays them rig
// by rig; an operator fee credited to payee goes to the rig whose reward comes next (the
// contract credits the cut just before the rest of the same reward).
func (d *ReferenceDeployment) SettlementPayouts(ctx context.Context, taskID, from uint64, operators map[uint64]common.Address, payee *common.Address) ([]journal.Payout, error) {
	rigs := map[uint64]rigAccount{}
	for id, op := range operators {
		a := rigAccount{operator: op}
		out, err := d.c.call(ctx, d.c.abi.PackRigOf(id))
		if err != nil {
			return nil, fmt.Errorf("rigOf(%d): %w", id, err)
		}
		info, err := d.c.abi.UnpackRigOf(out)
		if err != nil {
			return nil, err
		}
		a.owner = info.Owner
		rigs[id] = a
	}
	return d.c.settlementPayouts(ctx, taskID, from, rigs, payee)
}

func (c *Contract) settlementPayouts(ctx context.Context, taskID, from uint64, rigs map[uint64]rigAccount, payee *common.Address) ([]journal.Payout, error) {
	ev := c.abi.GetABI().Events
	id := common.BigToHash(new(big.Int).SetUint64(taskID))
	logs, err := c.backend.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(from), Addresses: []common.Address{c.Address},
		Topics: [][]common.Hash{{ev["Settled"].ID}, {id}},
	})
	if err != nil {
		return nil, fmt.Errorf("settlement of task %d: %w", taskID, txm.ClassifyRPCError(err))
	}
	var settle common.Hash
	for _, l := range logs {
		if !l.Removed {
			settle = l.TxHash
		}
	}
	if settle == (common.Hash{}) {
		return nil, fmt.Errorf("settlement of task %d: %w", taskID, ErrNotSettled)
	}
	rec, err := c.backend.TransactionReceipt(ctx, settle)
	if err != nil {
		return nil, fmt.Errorf("settlement of task %d: %w", taskID, txm.ClassifyRPCError(err))
	}
	var out []journal.Payout
	last := uint64(0)       // the rig the latest reward went to
	var fee *journal.Payout // an operator fee to payee, waiting for the reward it was cut from
	for _, l := range rec.Logs {
		if l.Address != c.Address || len(l.Topics) == 0 {
			continue
		}
		switch l.Topics[0] {
		case ev["Credited"].ID:
			cr, err := c.abi.UnpackCreditedEvent(l)
			if err != nil || cr.TaskId.Uint64() != taskID {
				continue
			}
			switch CreditReason(cr.Reason) {
			case CreditOperatorFee:
				if payee != nil && cr.Account == *payee {
					fee = &journal.Payout{TaskID: taskID, Kind: journal.PayoutOperatorFee, Account: cr.Account, Wei: cr.Amount, Tx: settle, LogIndex: l.Index}
				}
			case CreditRigReward:
				last = 0
				for rigID, a := range rigs {
					if a.operator == cr.Account {
						last = rigID
						out = append(out, journal.Payout{TaskID: taskID, RigID: rigID, Kind: journal.PayoutReward, Account: cr.Account,
							Wei: cr.Amount, Tx: settle, LogIndex: l.Index})
					}
				}
				if fee != nil {
					fee.RigID = last // 0: another's rig paid our relayer
					out = append(out, *fee)
					fee = nil
				}
			case CreditStaker:
				if a, ok := rigs[last]; ok && last != 0 && a.owner == cr.Account {
					out = append(out, journal.Payout{TaskID: taskID, RigID: last, Kind: journal.PayoutStaker, Account: cr.Account,
						Wei: cr.Amount, Tx: settle, LogIndex: l.Index})
				}
			}
		case ev["Slashed"].ID:
			s, err := c.abi.UnpackSlashedEvent(l)
			if err != nil || s.TaskId.Uint64() != taskID {
				continue
			}
			if _, ours := rigs[s.RigId]; ours && s.Amount.Sign() > 0 {
				out = append(out, journal.Payout{TaskID: taskID, RigID: s.RigId, Kind: journal.PayoutSlash, Wei: s.Amount, Tx: settle, LogIndex: l.Index})
			}
		}
	}
	if rec.BlockNumber != nil {
		for i := range out {
			out[i].Block = rec.BlockNumber.Uint64()
		}
	}
	return out, nil
}
