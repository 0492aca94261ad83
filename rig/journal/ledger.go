package journal

// The Ledger from the journal's accounts: per task, per rig and in total.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// Ledger adds up the transactions and payouts recorded at or after since: per task and rig,
// per rig, and in total.
func (j *DBJournal) Ledger(ctx context.Context, since time.Time) (Ledger, error) {
	txs, err := j.Txs(ctx, since)
	if err != nil {
		return Ledger{}, fmt.Errorf("accounts: %w", err)
	}
	payouts, err := j.Payouts(ctx, since)
	if err != nil {
		return Ledger{}, fmt.Errorf("accounts: %w", err)
	}
	return BuildLedger(since, txs, payouts), nil
}

// BuildLedger adds up transactions and payouts.
func BuildLedger(since time.Time, txs []TxRecord, payouts []Payout) Ledger {
	type key struct{ task, rig uint64 }
	tasks := map[key]*Money{}
	rigs := map[uint64]*Money{}
	at := func(k key) *Money { return moneyAt(tasks, k) }
	rigAt := func(id uint64) *Money { return moneyAt(rigs, id) }
	l := Ledger{Since: since, Total: newMoney()}
	for _, t := range txs {
		reverted := t.Status == TxReverted
		l.Total.Txs++
		l.Total.GasPaid.Add(l.Total.GasPaid, orZero(t.Fee))
		if reverted {
			l.Total.Reverted++
			l.Total.WastedGas.Add(l.Total.WastedGas, orZero(t.Fee))
			l.Reverted = append(l.Reverted, t)
		}
		seen := map[uint64]bool{}
		for _, e := range t.Entries {
			for _, m := range []*Money{at(key{e.TaskID, e.RigID}), rigAt(e.RigID)} {
				m.GasPaid.Add(m.GasPaid, orZero(e.Share))
				if reverted {
					m.WastedGas.Add(m.WastedGas, orZero(e.Share))
				}
			}
			m := at(key{e.TaskID, e.RigID})
			m.Txs++
			if reverted {
				m.Reverted++
			}
			if !seen[e.RigID] {
				seen[e.RigID] = true
				r := rigAt(e.RigID)
				r.Txs++
				if reverted {
					r.Reverted++
				}
			}
		}
	}
	for _, p := range payouts {
		for _, m := range []*Money{at(key{p.TaskID, p.RigID}), rigAt(p.RigID), &l.Total} {
			switch p.Kind {
			case PayoutSlash:
				m.Slashed.Add(m.Slashed, orZero(p.Wei))
			default:
				m.Earned.Add(m.Earned, orZero(p.Wei))
			}
		}
	}
	for k, m := range tasks {
		l.Tasks = append(l.Tasks, TaskMoney{TaskID: k.task, RigID: k.rig, Money: *m})
	}
	slices.SortFunc(l.Tasks, func(a, b TaskMoney) int {
		return cmp.Or(cmp.Compare(a.TaskID, b.TaskID), cmp.Compare(a.RigID, b.RigID))
	})
	for id, m := range rigs {
		l.Rigs = append(l.Rigs, RigMoney{RigID: id, Money: *m})
	}
	slices.SortFunc(l.Rigs, func(a, b RigMoney) int { return cmp.Compare(a.RigID, b.RigID) })
	return l
}
