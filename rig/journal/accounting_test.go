package journal

import (
	"context"
	"database/sql"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/internal/pgtest"
)

func wei(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

func TestSplitFeeAddsUpToTheFee(t *testing.T) {
	for _, tc := range []struct {
		fee string
		n   int
	}{{"10", 3}, {"1077300000001", 7}, {"2", 5}, {"0", 2}, {"999999999999999999999999", 4}} {
		shares := SplitFee(wei(tc.fee), tc.n)
		sum := new(big.Int)
		for i, s := range shares {
			sum.Add(sum, s)
			if i > 0 && (s.Cmp(shares[i-1]) > 0 || new(big.Int).Sub(shares[0], s).Cmp(big.NewInt(1)) > 0) {
				t.Errorf("%s / %d: uneven shares %v", tc.fee, tc.n, shares)
			}
		}
		if sum.Cmp(wei(tc.fee)) != 0 || len(shares) != tc.n {
			t.Errorf("%s / %d: shares %v add up to %s", tc.fee, tc.n, shares, sum)
		}
	}
}

// testBook writes two tasks' transactions and payouts and checks the ledger to the wei.
func testBook(t *testing.T, j *DBJournal) {
	ctx := context.Background()
	clock := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	j.now = func() time.Time { return clock }
	a, relayer := common.HexToAddress("0xa1"), common.HexToAddress("0xee")
	tx := func(n byte, purpose string, rig uint64, status TxStatus, gas uint64, price int64, entries ...TaskRig) TxRecord {
		fee := new(big.Int).Mul(new(big.Int).SetUint64(gas), big.NewInt(price))
		for i, s := range SplitFee(fee, len(entries)) {
			entries[i].Share = s
		}
		from := a
		if rig == 0 {
			from = relayer
		}
		return TxRecord{Hash: common.Hash{n}, Purpose: purpose, From: from, RigID: rig, Block: uint64(n), Status: status, GasUsed: gas,
			EffectiveGasPrice: big.NewInt(price), Fee: fee, Entries: entries}
	}
	records := []TxRecord{
		tx(1, "draw", 1, TxOK, 60_000, 1_000_000_001, TaskRig{TaskID: 7, RigID: 1}),
		tx(2, "commit", 1, TxOK, 50_000, 1_000_000_001, TaskRig{TaskID: 7, RigID: 1}),
		tx(3, "commitMany", 0, TxOK, 90_001, 1_000_000_001, TaskRig{TaskID: 7, RigID: 2}, TaskRig{TaskID: 8, RigID: 2}, TaskRig{TaskID: 8, RigID: 1}),
		tx(4, "settle", 1, TxReverted, 30_000, 1_000_000_001, TaskRig{TaskID: 7, RigID: 1}),
	}
	records[2].L1GasUsed, records[2].L1Fee = 27199, big.NewInt(27199*1_000_000_001)
	for _, r := range records {
		if ins, err := j.RecordTx(ctx, r); err != nil || !ins {
			t.Fatalf("record %s: %v %v", r.Purpose, ins, err)
		}
	}
	if ins, err := j.RecordTx(ctx, records[0]); err != nil || ins {
		t.Fatalf("recording a transaction twice: inserted %v, %v", ins, err)
	}
	if _, err := j.RecordTx(ctx, TxRecord{Hash: common.Hash{9}}); err == nil {
		t.Fatal("a transaction without entries was journaled")
	}
	payouts := []Payout{
		{TaskID: 7, RigID: 1, Kind: PayoutReward, Account: a, Wei: wei("3000000000000"), Tx: common.Hash{5}, LogIndex: 3, Block: 5},
		{TaskID: 7, RigID: 2, Kind: PayoutSlash, Wei: wei("10000000000000"), Tx: common.Hash{5}, LogIndex: 1, Block: 5},
		{TaskID: 7, RigID: 1, Kind: PayoutStaker, Account: a, Wei: wei("3333333333333"), Tx: common.Hash{5}, LogIndex: 4, Block: 5},
	}
	added, err := j.RecordPayouts(ctx, payouts)
	if err != nil || len(added) != 3 {
		t.Fatalf("payouts: %d added, %v", len(added), err)
	}
	if added, err := j.RecordPayouts(ctx, payouts[:1]); err != nil || len(added) != 0 {
		t.Fatalf("payouts again: %d added, %v", len(added), err)
	}
	if done, err := j.PayoutsRecorded(ctx, 7); err != nil || !done {
		t.Fatalf("payouts of task 7 recorded: %v %v", done, err)
	}
	if done, err := j.PayoutsRecorded(ctx, 8); err != nil || done {
		t.Fatalf("payouts of task 8 recorded: %v %v", done, err)
	}
	if b, ok, err := j.FirstBlock(ctx, 8); err != nil || !ok || b != 3 {
		t.Fatalf("first block of task 8: %d %v %v", b, ok, err)
	}

	l, err := j.Ledger(ctx, clock.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// Fees: 60000, 50000, 90001 (split 30001/30000/30000), 30000 gas at 1000000001 wei.
	p := big.NewInt(1_000_000_001)
	g := func(gas int64) *big.Int { return new(big.Int).Mul(big.NewInt(gas), p) }
	manyShares := SplitFee(g(90_001), 3)
	want := map[[2]uint64]struct{ gas, earned, slashed, margin *big.Int }{
		{7, 1}: {new(big.Int).Add(g(60_000+50_000), g(30_000)), wei("6333333333333"), new(big.Int), nil},
		{7, 2}: {manyShares[0], new(big.Int), wei("10000000000000"), nil},
		{8, 2}: {manyShares[1], new(big.Int), new(big.Int), nil},
		{8, 1}: {manyShares[2], new(big.Int), new(big.Int), nil},
	}
	if len(l.Tasks) != len(want) {
		t.Fatalf("ledger tasks: %+v", l.Tasks)
	}
	for k, w := range want {
		m, ok := l.Task(k[0], k[1])
		if !ok || m.GasPaid.Cmp(w.gas) != 0 || m.Earned.Cmp(w.earned) != 0 || m.Slashed.Cmp(w.slashed) != 0 {
			t.Errorf("task %d rig %d: %+v, want gas %s earned %s slashed %s", k[0], k[1], m, w.gas, w.earned, w.slashed)
		}
		margin := new(big.Int).Sub(w.earned, w.gas)
		margin.Sub(margin, w.slashed)
		if m.Margin().Cmp(margin) != 0 {
			t.Errorf("task %d rig %d: margin %s, want %s", k[0], k[1], m.Margin(), margin)
		}
	}
	if m, _ := l.Task(7, 1); m.Txs != 3 || m.Reverted != 1 || m.WastedGas.Cmp(g(30_000)) != 0 {
		t.Errorf("task 7 rig 1: %d txs, %d reverted, %s wasted", m.Txs, m.Reverted, m.WastedGas)
	}
	total := g(60_000 + 50_000 + 90_001 + 30_000)
	if l.Total.GasPaid.Cmp(total) != 0 || l.Total.Txs != 4 || l.Total.Reverted != 1 || l.Total.Earned.Cmp(wei("6333333333333")) != 0 ||
		l.Total.Slashed.Cmp(wei("10000000000000")) != 0 {
		t.Errorf("total: %+v, want gas %s", l.Total, total)
	}
	rig1, _ := l.Rig(1)
	if want := new(big.Int).Add(g(140_000), manyShares[2]); rig1.GasPaid.Cmp(want) != 0 || rig1.Txs != 4 {
		t.Errorf("rig 1: %+v, want gas %s over 4 txs", rig1, want)
	}
	if len(l.Reverted) != 1 || l.Reverted[0].Purpose != "settle" || l.Reverted[0].Entries[0].TaskID != 7 {
		t.Errorf("reverted: %+v", l.Reverted)
	}
	txs, err := j.Txs(ctx, time.Time{})
	if err != nil || len(txs) != 4 {
		t.Fatalf("txs: %d, %v", len(txs), err)
	}
	for _, got := range txs {
		if got.Hash == records[2].Hash {
			if got.L1GasUsed != 27199 || got.L1Fee.Cmp(records[2].L1Fee) != 0 || len(got.Entries) != 3 || got.From != relayer {
				t.Errorf("commitMany read back: %+v", got)
			}
		}
		if got.Hash == records[0].Hash && got.L1Fee != nil {
			t.Errorf("draw has an L1 fee it never had: %s", got.L1Fee)
		}
	}
	// A window after everything holds nothing.
	if l, err := j.Ledger(ctx, clock.Add(time.Second)); err != nil || len(l.Tasks) != 0 || l.Total.GasPaid.Sign() != 0 {
		t.Fatalf("later window: %+v, %v", l, err)
	}

	// A reorg that drops the settlement (block 5) takes its payouts out, and its task's
	// settlement is read again.
	if ps, err := j.PayoutsFromBlock(ctx, 5); err != nil || len(ps) != 3 || ps[0].Block != 5 || ps[0].Tx != (common.Hash{5}) {
		t.Fatalf("payouts from block 5: %+v, %v", ps, err)
	}
	if ps, err := j.PayoutsFromBlock(ctx, 6); err != nil || len(ps) != 0 {
		t.Fatalf("payouts from block 6: %+v, %v", ps, err)
	}
	if err := j.ForgetPayouts(ctx, common.Hash{5}); err != nil {
		t.Fatal(err)
	}
	if done, err := j.PayoutsRecorded(ctx, 7); err != nil || done {
		t.Fatalf("payouts of task 7 recorded after the reorg: %v %v", done, err)
	}
	l, err = j.Ledger(ctx, time.Time{})
	if err != nil || l.Total.Earned.Sign() != 0 || l.Total.Slashed.Sign() != 0 || l.Total.GasPaid.Cmp(total) != 0 {
		t.Fatalf("ledger after the settlement left: %+v, %v", l.Total, err)
	}
}

func TestJournalKeepsTheAccountsToTheWei(t *testing.T) {
	j, err := OpenJournal(filepath.Join(t.TempDir(), "rig.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	testBook(t, j)
}

func TestPostgresJournalKeepsTheAccountsToTheWei(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	testBook(t, openPG(t, pgtest.Start(t).NewDatabase(t)))
}

// A journal written by the previous schema (version 2, before the accounts) opens, keeps its
// entries and gains the accounts.
func TestJournalMigratesToTheAccounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rig.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 2; v++ {
		if _, err := db.Exec(migrations[v]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`PRAGMA user_version = 2; INSERT INTO tasks (task_id, rig_id, state, updated_at) VALUES (7, 2, 'settled', '2026-12-01T15:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if e, ok, err := j.Get(context.Background(), 7, 2); err != nil || !ok || e.State != StateSettled {
		t.Fatalf("entry after the migration: %+v %v %v", e, ok, err)
	}
	testBook(t, j)
	var version int
	if err := j.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Fatalf("schema version %d, %v", version, err)
	}
}
