package audit

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/rig/journal"
)

func TestMoneyFindings(t *testing.T) {
	since := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	gwei := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000_000)) }
	tx := func(n byte, purpose string, rigID uint64, status journal.TxStatus, fee *big.Int, entries ...journal.TaskRig) journal.TxRecord {
		entries[0].Share = fee
		for i := 1; i < len(entries); i++ {
			entries[i].Share = new(big.Int)
		}
		return journal.TxRecord{Hash: common.Hash{n}, Purpose: purpose, From: common.Address{n}, RigID: rigID, Block: uint64(n), Status: status,
			GasUsed: 100_000, EffectiveGasPrice: big.NewInt(1), Fee: fee, Entries: entries}
	}
	reward := func(task, rigID uint64, wei *big.Int) journal.Payout {
		return journal.Payout{TaskID: task, RigID: rigID, Kind: journal.PayoutReward, Wei: wei, Tx: common.Hash{byte(task)}}
	}
	settled := func(task, rigID uint64) journal.Entry {
		return journal.Entry{TaskID: task, RigID: rigID, State: journal.StateSettled, UpdatedAt: since.Add(time.Minute)}
	}
	earned := gwei(3000) // 0.000003 ETH: a rig's share of a job-2 task
	tests := []struct {
		name    string
		txs     []journal.TxRecord
		payouts []journal.Payout
		entries []journal.Entry
		want    []string // name/rig of each finding
	}{
		{
			name:    "a rig that earns more than it pays is healthy",
			txs:     []journal.TxRecord{tx(1, "commit", 1, journal.TxOK, gwei(1000), journal.TaskRig{TaskID: 7, RigID: 1}), tx(2, "reveal", 1, journal.TxOK, gwei(1000), journal.TaskRig{TaskID: 7, RigID: 1})},
			payouts: []journal.Payout{reward(7, 1, earned)},
			entries: []journal.Entry{settled(7, 1)},
		},
		{
			name:    "gas over the earnings is unprofitable",
			txs:     []journal.TxRecord{tx(1, "commit", 1, journal.TxOK, gwei(2000), journal.TaskRig{TaskID: 7, RigID: 1}), tx(2, "reveal", 1, journal.TxOK, gwei(1001), journal.TaskRig{TaskID: 7, RigID: 1})},
			payouts: []journal.Payout{reward(7, 1, earned)},
			entries: []journal.Entry{settled(7, 1)},
			want:    []string{"unprofitable/1"},
		},
		{
			name: "a task still in flight does not count yet",
			txs:  []journal.TxRecord{tx(1, "commit", 1, journal.TxOK, gwei(5000), journal.TaskRig{TaskID: 7, RigID: 1})},
			entries: []journal.Entry{{TaskID: 7, RigID: 1, State: journal.StateCommitted, UpdatedAt: since.Add(time.Minute),
				RevealDeadline: since.Add(time.Hour)}},
		},
		{
			name: "a reverted settle is wasted gas, and the relayer's costs make the whole journal lose",
			txs: []journal.TxRecord{
				tx(1, "commitMany", 0, journal.TxOK, gwei(2000), journal.TaskRig{TaskID: 7, RigID: 1}, journal.TaskRig{TaskID: 7, RigID: 2}),
				tx(2, "settle", 0, journal.TxReverted, gwei(4001), journal.TaskRig{TaskID: 7, RigID: 0}),
			},
			payouts: []journal.Payout{reward(7, 1, earned), reward(7, 2, earned)},
			entries: []journal.Entry{settled(7, 1), settled(7, 2)},
			want:    []string{"unprofitable/0", "wasted_gas/0"},
		},
		{
			name:    "a slash counts against the margin",
			txs:     []journal.TxRecord{tx(1, "commit", 2, journal.TxOK, gwei(100), journal.TaskRig{TaskID: 8, RigID: 2})},
			payouts: []journal.Payout{{TaskID: 8, RigID: 2, Kind: journal.PayoutSlash, Wei: gwei(10000), Tx: common.Hash{8}}},
			entries: []journal.Entry{{TaskID: 8, RigID: 2, State: journal.StateMissed, UpdatedAt: since.Add(time.Minute)}},
			want:    []string{"unprofitable/2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := CheckMoney(journal.BuildLedger(since, tc.txs, tc.payouts), tc.entries)
			var got []string
			for _, f := range fs {
				got = append(got, f.Name+"/"+journal.RigLabel(f.RigID))
				if f.Check != CheckRigName || f.Message == "" || f.Value == "" {
					t.Errorf("finding %+v", f)
				}
			}
			want := make([]string, len(tc.want))
			for i, w := range tc.want {
				want[i] = strings.Replace(w, "/0", "/relayer", 1)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("findings %v, want %v", got, want)
			}
		})
	}
	// The unprofitable finding carries the margin, exactly: 3000 gwei earned against 3001 paid.
	fs := CheckMoney(journal.BuildLedger(since, tests[1].txs, tests[1].payouts), tests[1].entries)
	if fs[0].Value != "-0.000000001" || fs[0].Severity != Alert || fs[0].Count != 1 {
		t.Errorf("unprofitable: %+v", fs[0])
	}
	fs = CheckMoney(journal.BuildLedger(since, tests[3].txs, tests[3].payouts), tests[3].entries)
	if w := fs[1]; w.TaskID != 7 || w.Value != "0.000004001" || !strings.Contains(w.Message, "settle") || !strings.Contains(w.Message, common.Hash{2}.Hex()) {
		t.Errorf("wasted gas: %+v", w)
	}
}
