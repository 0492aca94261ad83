package main

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"slices"
	"time"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/rig/journal"
)

// accountsJSON is `operator status --journal`'s accounts: what the key's rigs paid in gas and
// earned, over the last day and in total, from the rig's journal (exact wei, as decimal text).
type accountsJSON struct {
	Journal string `json:"journal"`
	// Rigs are the key's rigs the journal holds accounts for; Journal is everything in it
	// (with a relayer's draws and settles, and other keys' rigs of the same process).
	Rigs       []rigAccountsJSON `json:"rigs"`
	JournalDay moneyJSON         `json:"journal_last_day"`
	JournalAll moneyJSON         `json:"journal_total"`
}

type rigAccountsJSON struct {
	RigID   uint64    `json:"rig_id"`
	LastDay moneyJSON `json:"last_day"`
	Total   moneyJSON `json:"total"`
}

type moneyJSON struct {
	GasPaidWei   string `json:"gas_paid_wei"`
	EarnedWei    string `json:"earned_wei"`
	SlashedWei   string `json:"slashed_wei"`
	MarginWei    string `json:"margin_wei"`
	Txs          int    `json:"txs"`
	Reverted     int    `json:"reverted_txs"`
	WastedGasWei string `json:"wasted_gas_wei"`
}

func moneyOf(m journal.Money) moneyJSON {
	z := func(v *big.Int) string {
		if v == nil {
			return "0"
		}
		return v.String()
	}
	return moneyJSON{GasPaidWei: z(m.GasPaid), EarnedWei: z(m.Earned), SlashedWei: z(m.Slashed), MarginWei: m.Margin().String(),
		Txs: m.Txs, Reverted: m.Reverted, WastedGasWei: z(m.WastedGas)}
}

// journalAccounts reads the accounts of rigs ids (the key's) from the journal at target: the
// last day before now and everything.
func journalAccounts(ctx context.Context, target string, ids []uint64, now time.Time) (*accountsJSON, error) {
	j, err := openJournalToRead(target, failedToRun)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	day, err := j.Ledger(ctx, now.Add(-24*time.Hour))
	if err != nil {
		return nil, failedToRun("--journal: %v", err)
	}
	all, err := j.Ledger(ctx, time.Time{})
	if err != nil {
		return nil, failedToRun("--journal: %v", err)
	}
	out := &accountsJSON{Journal: journal.RedactURL(target), Rigs: []rigAccountsJSON{}, JournalDay: moneyOf(day.Total), JournalAll: moneyOf(all.Total)}
	for _, id := range ids {
		total, ok := all.Rig(id)
		if !ok {
			continue
		}
		last, ok := day.Rig(id)
		if !ok {
			last = journal.Money{}
		}
		out.Rigs = append(out.Rigs, rigAccountsJSON{RigID: id, LastDay: moneyOf(last), Total: moneyOf(total)})
	}
	slices.SortFunc(out.Rigs, func(a, b rigAccountsJSON) int { return int(a.RigID) - int(b.RigID) })
	return out, nil
}

func printAccounts(w io.Writer, a *accountsJSON) {
	eth := func(s string) string {
		v, _ := new(big.Int).SetString(s, 10)
		if v == nil {
			v = new(big.Int)
		}
		return audit.FormatETH(v)
	}
	line := func(label string, m moneyJSON) {
		fmt.Fprintf(w, "  %-22s gas %s ETH, earned %s ETH, slashed %s ETH, margin %s ETH (%d txs, %d reverted, %s ETH wasted)\n",
			label, eth(m.GasPaidWei), eth(m.EarnedWei), eth(m.SlashedWei), eth(m.MarginWei), m.Txs, m.Reverted, eth(m.WastedGasWei))
	}
	fmt.Fprintf(w, "accounts (journal %s):\n", a.Journal)
	if len(a.Rigs) == 0 {
		fmt.Fprintln(w, "  no transaction of this key's rigs in the journal")
	}
	for _, r := range a.Rigs {
		line(fmt.Sprintf("rig %d, last day:", r.RigID), r.LastDay)
		line(fmt.Sprintf("rig %d, total:", r.RigID), r.Total)
	}
	line("journal, last day:", a.JournalDay)
	line("journal, total:", a.JournalAll)
}
