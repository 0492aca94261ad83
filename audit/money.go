package audit

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/pricerig/pricerig/rig/journal"
)

// Accounts is the rig journal's ledger (what its transactions cost and its tasks earned);
// *journal.DBJournal has it. A journal without it is audited without the money findings.
type Accounts interface {
	Ledger(ctx context.Context, since time.Time) (journal.Ledger, error)
}

// CheckMoney reads the journal's ledger of the window: `unprofitable` for each rig whose
// finished tasks (every one of our entries for the task is final: settled, missed, skipped or
// refunded) cost more in gas and slashes than they earned, and for the journal as a whole
// when a relayer's draws and settles or several rigs are in it; `wasted_gas` for each
// transaction mined reverted. Tasks still in flight are left out of the margin: their
// earnings are not in yet.
func CheckMoney(l journal.Ledger, entries []journal.Entry) []Finding {
	open := map[uint64]bool{}
	for _, e := range dedupe(entries) {
		if !e.State.Final() {
			open[e.TaskID] = true
		}
	}
	type sum struct {
		gas, earned, slashed, margin *big.Int
		tasks                        map[uint64]bool
	}
	add := func(s *sum, m journal.Money, task uint64) {
		s.gas.Add(s.gas, m.GasPaid)
		s.earned.Add(s.earned, m.Earned)
		s.slashed.Add(s.slashed, m.Slashed)
		s.margin.Add(s.margin, m.Margin())
		s.tasks[task] = true
	}
	newSum := func() *sum {
		return &sum{gas: new(big.Int), earned: new(big.Int), slashed: new(big.Int), margin: new(big.Int), tasks: map[uint64]bool{}}
	}
	perRig := map[uint64]*sum{}
	total := newSum()
	for _, t := range l.Tasks {
		if open[t.TaskID] || t.TaskID == 0 {
			continue
		}
		s, ok := perRig[t.RigID]
		if !ok {
			s = newSum()
			perRig[t.RigID] = s
		}
		add(s, t.Money, t.TaskID)
		add(total, t.Money, t.TaskID)
	}
	unprofitable := func(rigID uint64, who string, s *sum) Finding {
		return Finding{Check: CheckRigName, Name: Unprofitable, Severity: Alert, RigID: rigID, Count: len(s.tasks),
			Value: FormatETH(s.margin), Limit: "0",
			Message: fmt.Sprintf("%s lost %s ETH over %s finished since %s: %s ETH of gas and %s ETH of slashes against %s ETH earned",
				who, FormatETH(new(big.Int).Neg(s.margin)), plural(len(s.tasks), "task"), l.Since.UTC().Format(time.RFC3339),
				FormatETH(s.gas), FormatETH(s.slashed), FormatETH(s.earned))}
	}
	var out []Finding
	rigs := make([]uint64, 0, len(perRig))
	for id := range perRig {
		rigs = append(rigs, id)
	}
	slices.Sort(rigs)
	for _, id := range rigs {
		if s := perRig[id]; id != 0 && s.margin.Sign() < 0 {
			out = append(out, unprofitable(id, fmt.Sprintf("rig %d", id), s))
		}
	}
	if _, relayer := perRig[0]; (relayer || len(perRig) > 1) && total.margin.Sign() < 0 {
		out = append(out, unprofitable(0, "the journal's rigs (with their relayer's draws and settles)", total))
	}
	for _, tx := range l.Reverted {
		f := Finding{Check: CheckRigName, Name: WastedGas, Severity: Warn, RigID: tx.RigID, Address: tx.From.Hex(),
			Value: FormatETH(tx.Fee), Limit: "0"}
		var tasks []uint64
		for _, e := range tx.Entries {
			if e.TaskID != 0 && !slices.Contains(tasks, e.TaskID) {
				tasks = append(tasks, e.TaskID)
			}
		}
		if len(tasks) > 0 {
			f.TaskID = tasks[0]
		}
		by := "a relayer"
		if tx.RigID != 0 {
			by = fmt.Sprintf("rig %d", tx.RigID)
		}
		f.Message = fmt.Sprintf("%s of task(s) %v by %s (%s) was mined reverted in block %d: %s ETH of gas (%d gas at %s wei) paid for nothing; tx %s",
			tx.Purpose, tasks, by, tx.From.Hex(), tx.Block, FormatETH(tx.Fee), tx.GasUsed, tx.EffectiveGasPrice, tx.Hash.Hex())
		out = append(out, f)
	}
	return out
}

// moneyDetail sums the ledger for the rig check's detail line.
func moneyDetail(l journal.Ledger) string {
	return fmt.Sprintf("; %s sent (%d reverted): %s ETH of gas, %s ETH earned, %s ETH slashed, margin %s ETH",
		plural(l.Total.Txs, "transaction"), l.Total.Reverted, FormatETH(l.Total.GasPaid), FormatETH(l.Total.Earned),
		FormatETH(l.Total.Slashed), FormatETH(l.Total.Margin()))
}
