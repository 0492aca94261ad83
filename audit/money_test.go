package audit

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/rig"
)

func TestMoneyFindings(t *testing.T) {
	since := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	gwei := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000_000)) }
	tx := func(n byte, purpose string, rigID uint64, status rig.TxStatus, fee *big.Int, entries ...rig.TaskRig) rig.TxRecord {
		entries[0].Share = fee
		for i := 1; i < len(entries); i++ {
			entries[i].Share = new(big.Int)
		}
		return rig.TxRecord{Hash: common.Hash{n}, Purpose: purpose, From: common.Address{n}, RigID: rigID, Block: uint64(n), Status: status,
			GasUsed: 100_000, EffectiveGasPrice: big.NewInt(1), Fee: fee, Entries: entries}
	}
	reward := func(task, rigID uint64, wei *big.Int) rig.Payout {
		return rig.Payout{TaskID: task, RigID: rigID, Kind: rig.PayoutReward, Wei: wei, Tx: common.Hash{byte(task)}}
	}
	settled := func(task, rigID uint64) rig.Entry {
		return rig.Entry{TaskID: task, RigID: rigID, State: rig.StateSettled, UpdatedAt: since.Add(time.Minute)}
	}
	earned := gwei(3000) // 0.000003 ETH: a rig's share of a job-2 task
	tests := []struct {
		name    string
		txs     []rig.TxRecord
		payouts []rig.Payout
		entries []rig.Entry
		want    []string // name/rig of each finding
	}{
		{
			name:    "a rig that earns more than it pays is healthy",
			txs:     []rig.TxRecord{tx(1, "commit", 1, rig.TxOK, gwei(1000), rig.TaskRig{TaskID: 7, RigID: 1}), tx(2, "reveal", 1, rig.TxOK, gwei(1000), rig.TaskRig{TaskID: 7, RigID: 1})},
			payouts: []rig.Payout{reward(7, 1, earned)},
			entries: []rig.Entry{settled(7, 1)},
		},
		{
			name:    "gas over the earnings is unprofitable",
			txs:     []rig.TxRecord{tx(1, "commit", 1, rig.TxOK, gwei(2000), rig.TaskRig{TaskID: 7, RigID: 1}), tx(2, "reveal", 1, rig.TxOK, gwei(1001), rig.TaskRig{TaskID: 7, RigID: 1})},
			payouts: []rig.Payout{reward(7, 1, earned)},
			entries: []rig.Entry{settled(7, 1)},
			want:    []string{"unprofitable/1"},
		},
		{
			name: "a task still in flight does not count yet",
			txs:  []rig.TxRecord{tx(1, "commit", 1, rig.TxOK, gwei(5000), rig.TaskRig{TaskID: 7, RigID: 1})},
			entries: []rig.Entry{{TaskID: 7, RigID: 1, State: rig.StateCommitted, UpdatedAt: since.Add(time.Minute),
				RevealDeadline: since.Add(time.Hour)}},
		},
		{
			name: "a reverted settle is wasted gas, and the relayer's costs make the whole journal lose",
			txs: []rig.TxRecord{
				tx(1, "commitMany", 0, rig.TxOK, gwei(2000), rig.TaskRig{TaskID: 7, RigID: 1}, rig.TaskRig{TaskID: 7, RigID: 2}),
				tx(2, "settle", 0, rig.TxReverted, gwei(4001), rig.TaskRig{TaskID: 7, RigID: 0}),
			},
			payouts: []rig.Payout{reward(7, 1, earned), reward(7, 2, earned)},
			entries: []rig.Entry{settled(7, 1), settled(7, 2)},
			want:    []string{"unprofitable/0", "wasted_gas/0"},
		},
		{
			name:    "a slash counts against the margin",
			txs:     []rig.TxRecord{tx(1, "commit", 2, rig.TxOK, gwei(100), rig.TaskRig{TaskID: 8, RigID: 2})},
			payouts: []rig.Payout{{TaskID: 8, RigID: 2, Kind: rig.PayoutSlash, Wei: gwei(10000), Tx: common.Hash{8}}},
			entries: []rig.Entry{{TaskID: 8, RigID: 2, State: rig.StateMissed, UpdatedAt: since.Add(time.Minute)}},
			want:    []string{"unprofitable/2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := CheckMoney(rig.BuildLedger(since, tc.txs, tc.payouts), tc.entries)
			var got []string
			for _, f := range fs {
				got = append(got, f.Name+"/"+rig.RigLabel(f.RigID))
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
	fs := CheckMoney(rig.BuildLedger(since, tests[1].txs, tests[1].payouts), tests[1].entries)
	if fs[0].Value != "-0.000000001" || fs[0].Severity != Alert || fs[0].Count != 1 {
		t.Errorf("unprofitable: %+v", fs[0])
	}
	fs = CheckMoney(rig.BuildLedger(since, tests[3].txs, tests[3].payouts), tests[3].entries)
	if w := fs[1]; w.TaskID != 7 || w.Value != "0.000004001" || !strings.Contains(w.Message, "settle") || !strings.Contains(w.Message, common.Hash{2}.Hex()) {
		t.Errorf("wasted gas: %+v", w)
	}
}
