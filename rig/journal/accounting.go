package journal

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Accounting: every transaction the rig sends is journaled with what it was for (its purpose
// and the tasks and rigs it served), what it cost (gas used, effective gas price, the L1 part a
// rollup's receipt reports) and whether it was mined ok or reverted; every settled task's
// payouts to our rigs (credits) and slashes are journaled from the contract's own events. The
// journal then gives gas paid, earned and the margin per task, per rig and in total, in wei,
// exactly (math/big: never a float).

// TxStatus is how a mined transaction ended.
type TxStatus string

// The statuses of a mined transaction.
const (
	TxOK       TxStatus = "ok"
	TxReverted TxStatus = "reverted"
)

// TaskRig is one task a transaction served, and the rig it served it for: the rig whose commit
// or reveal it carried, or, for a draw or settle, the rig whose key paid (0: a relayer's).
type TaskRig struct {
	TaskID, RigID uint64
	// Share is the wei of the transaction's fee charged to this task and rig: the fee split
	// evenly over the transaction's entries, the remainder to the first ones, so the shares add
	// up to the fee exactly.
	Share *big.Int
}

// TxRecord is one mined transaction of the rig.
type TxRecord struct {
	Hash    common.Hash
	Purpose string // the contract function: draw, commit, reveal, settle, commitMany, revealMany, …
	From    common.Address
	// RigID is the rig whose key sent it; 0 for a relayer's.
	RigID  uint64
	Block  uint64
	Status TxStatus
	// GasUsed × EffectiveGasPrice (plus an OP-style L1 fee) is Fee, what the sender paid.
	GasUsed           uint64
	EffectiveGasPrice *big.Int
	Fee               *big.Int
	// L1GasUsed and L1Fee are the L1 share of the cost when the receipt reports it (L1Fee nil
	// when it does not). On Arbitrum both are inside GasUsed and Fee.
	L1GasUsed uint64
	L1Fee     *big.Int
	Entries   []TaskRig
	At        time.Time // when the journal recorded it
}

// PayoutKind says what a payout is.
type PayoutKind string

// The payouts a settled task makes to (or takes from) one of our rigs.
const (
	PayoutReward PayoutKind = "reward" // the rig's share of the price, credited to its operator
	PayoutStaker PayoutKind = "staker" // its share of others' slashes, credited to its owner
	PayoutSlash  PayoutKind = "slash"  // the slash it lost from its stake
	// PayoutOperatorFee is the cut of a rig's reward credited to our relayer, the payee of the
	// operator's fee consent (setOperatorFee): earned by the relayer for relaying that rig's
	// answers. RigID is the rig when it is ours, 0 ("relayer") for another's.
	PayoutOperatorFee PayoutKind = "operator_fee"
)

// Payout is one credit to, or slash of, one of our rigs in a task's settlement, from the
// contract's event.
type Payout struct {
	TaskID, RigID uint64
	Kind          PayoutKind
	Account       common.Address // credited (the rig's operator or owner, our relayer); zero for a slash
	Wei           *big.Int
	Tx            common.Hash
	LogIndex      uint
	// Block is the settlement's block (0 in a journal written before it was kept): a reorg that
	// takes it out of the chain takes the payout out of the accounts (the runner's accountant_reorg.go).
	Block uint64
	At    time.Time
}

// Money is what tasks cost and earned, in wei.
type Money struct {
	GasPaid *big.Int // the fees of the transactions (shares of them, per task)
	Earned  *big.Int // credits: rewards, staker shares and our relayer's operator fees
	Slashed *big.Int // stake lost to slashes
	// Txs counts the transactions (per task and rig: those with a share in it), Reverted those
	// mined reverted, and WastedGas is what the reverted ones cost.
	Txs, Reverted int
	WastedGas     *big.Int
}

// moneyAt is the account of k in accounts, opened (zero) on first use.
func moneyAt[K comparable](accounts map[K]*Money, k K) *Money {
	m, ok := accounts[k]
	if !ok {
		n := newMoney()
		m = &n
		accounts[k] = m
	}
	return m
}

func newMoney() Money {
	return Money{GasPaid: new(big.Int), Earned: new(big.Int), Slashed: new(big.Int), WastedGas: new(big.Int)}
}

// Margin is earned less gas paid and slashes.
func (m Money) Margin() *big.Int {
	out := new(big.Int).Sub(orZero(m.Earned), orZero(m.GasPaid))
	return out.Sub(out, orZero(m.Slashed))
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

// TaskMoney is one rig's money on one task (RigID 0: a relayer's draws and settles).
type TaskMoney struct {
	TaskID, RigID uint64
	Money
}

// RigMoney is one rig's money over the ledger's span.
type RigMoney struct {
	RigID uint64
	Money
}

// Ledger is the journal's accounting since a time.
type Ledger struct {
	Since time.Time
	Tasks []TaskMoney // by task, then rig
	Rigs  []RigMoney  // by rig
	Total Money
	// Reverted are the reverted transactions, oldest first.
	Reverted []TxRecord
}

// Task returns one rig's money on one task, and whether the journal has any.
func (l Ledger) Task(taskID, rigID uint64) (Money, bool) {
	i, ok := slices.BinarySearchFunc(l.Tasks, [2]uint64{taskID, rigID}, func(t TaskMoney, k [2]uint64) int {
		return cmp.Or(cmp.Compare(t.TaskID, k[0]), cmp.Compare(t.RigID, k[1]))
	})
	if !ok {
		return Money{}, false
	}
	return l.Tasks[i].Money, true
}

// Rig returns one rig's money.
func (l Ledger) Rig(rigID uint64) (Money, bool) {
	for _, r := range l.Rigs {
		if r.RigID == rigID {
			return r.Money, true
		}
	}
	return Money{}, false
}

// Accounts is what the runner writes of its accounting; *DBJournal has it. A journal without it
// keeps no accounts.
type Accounts interface {
	// RecordTx journals a mined transaction; inserted is false when it was already there.
	RecordTx(ctx context.Context, tx TxRecord) (inserted bool, err error)
	// RecordPayouts journals a settlement's payouts; those already there are left alone, and
	// the new ones are returned.
	RecordPayouts(ctx context.Context, ps []Payout) (added []Payout, err error)
	// PayoutsRecorded reports whether a task's settlement was already read.
	PayoutsRecorded(ctx context.Context, taskID uint64) (bool, error)
}

var _ Accounts = (*DBJournal)(nil)

// splitFee divides fee over n entries: equal shares, the remainder one wei each to the first.
func SplitFee(fee *big.Int, n int) []*big.Int {
	if n <= 0 {
		return nil
	}
	q, rem := new(big.Int).QuoRem(fee, big.NewInt(int64(n)), new(big.Int))
	r := int(rem.Int64())
	out := make([]*big.Int, n)
	for i := range out {
		out[i] = new(big.Int).Set(q)
		if i < r {
			out[i].Add(out[i], big.NewInt(1))
		}
	}
	return out
}

// migrationAccounts adds the accounting tables (schema 3 on SQLite, 4 on PostgreSQL: the same
// tables; amounts of wei are decimal text, summed with math/big, so nothing overflows or
// rounds). A transaction with its entries (tx_tasks) and the payouts of settled tasks.
func migrationAccounts(postgres bool) string {
	integer := "INTEGER"
	if postgres {
		integer = "BIGINT"
	}
	return strings.NewReplacer("INTEGER", integer).Replace(`
CREATE TABLE IF NOT EXISTS txs (
	hash TEXT PRIMARY KEY,
	purpose TEXT NOT NULL,
	sender TEXT NOT NULL,
	rig_id INTEGER NOT NULL DEFAULT 0,
	block INTEGER NOT NULL,
	status TEXT NOT NULL,
	gas_used INTEGER NOT NULL,
	effective_gas_price TEXT NOT NULL,
	fee_wei TEXT NOT NULL,
	l1_gas_used INTEGER NOT NULL DEFAULT 0,
	l1_fee_wei TEXT NOT NULL DEFAULT '',
	recorded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS txs_recorded_at ON txs(recorded_at);
CREATE TABLE IF NOT EXISTS tx_tasks (
	hash TEXT NOT NULL,
	task_id INTEGER NOT NULL,
	rig_id INTEGER NOT NULL,
	share_wei TEXT NOT NULL,
	PRIMARY KEY (hash, task_id, rig_id)
);
CREATE INDEX IF NOT EXISTS tx_tasks_task ON tx_tasks(task_id);
CREATE TABLE IF NOT EXISTS payouts (
	tx_hash TEXT NOT NULL,
	log_index INTEGER NOT NULL,
	task_id INTEGER NOT NULL,
	rig_id INTEGER NOT NULL,
	kind TEXT NOT NULL,
	account TEXT NOT NULL DEFAULT '',
	amount_wei TEXT NOT NULL,
	recorded_at TEXT NOT NULL,
	PRIMARY KEY (tx_hash, log_index)
);
CREATE INDEX IF NOT EXISTS payouts_task ON payouts(task_id);
CREATE INDEX IF NOT EXISTS payouts_recorded_at ON payouts(recorded_at);`)
}

// migrationPayoutBlocks keeps the block of each settlement whose payouts are journaled (SQLite's
// schema 5, PostgreSQL's 6), so a reorg that takes a settlement out of the chain finds the
// payouts to take out of the accounts. A table of its own, keyed by the settlement, created if
// missing (SQLite adds no column "if not exists"); payouts journaled before have none: block 0,
// older than any reorg.
func migrationPayoutBlocks(postgres bool) string {
	integer := "INTEGER"
	if postgres {
		integer = "BIGINT"
	}
	return `
CREATE TABLE IF NOT EXISTS payout_blocks (
	tx_hash TEXT PRIMARY KEY,
	block ` + integer + ` NOT NULL
);
CREATE INDEX IF NOT EXISTS payout_blocks_block ON payout_blocks(block);`
}

// RecordTx journals a mined transaction with its entries; a transaction already journaled is
// left as it is (inserted false).
func (j *DBJournal) RecordTx(ctx context.Context, t TxRecord) (bool, error) {
	if len(t.Entries) == 0 {
		return false, fmt.Errorf("transaction %s: no entries", t.Hash.Hex())
	}
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	if inserted, err := j.insertTx(ctx, tx, t); err != nil || !inserted {
		return false, err
	}
	return true, tx.Commit()
}

// MoveTx journals t in place of the journaled transaction of the same hash (a reorg mined it
// elsewhere), in one database transaction: a crash between the delete and the insert leaves the
// old record, never none.
func (j *DBJournal) MoveTx(ctx context.Context, t TxRecord) error {
	if len(t.Entries) == 0 {
		return fmt.Errorf("transaction %s: no entries", t.Hash.Hex())
	}
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := j.deleteWhere(ctx, tx, "hash", t.Hash, "tx_tasks", "txs"); err != nil {
		return err
	}
	if TestHookMoveTx != nil {
		TestHookMoveTx()
	}
	if _, err := j.insertTx(ctx, tx, t); err != nil {
		return err
	}
	return tx.Commit()
}

// TestHookMoveTx, when a test sets it, runs between MoveTx's delete and its insert: the
// runner's test of a process killed there (rig) sets it. Nothing else may.
var TestHookMoveTx func()

// insertTx inserts, within tx, a transaction and its entries unless its hash is journaled.
func (j *DBJournal) insertTx(ctx context.Context, tx *sql.Tx, t TxRecord) (bool, error) {
	if t.At.IsZero() {
		t.At = j.now()
	}
	l1Fee := ""
	if t.L1Fee != nil {
		l1Fee = t.L1Fee.String()
	}
	res, err := tx.ExecContext(ctx, j.q(`INSERT INTO txs (hash, purpose, sender, rig_id, block, status, gas_used,
		effective_gas_price, fee_wei, l1_gas_used, l1_fee_wei, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (hash) DO NOTHING`),
		t.Hash.Hex(), t.Purpose, t.From.Hex(), int64(t.RigID), int64(t.Block), string(t.Status), int64(t.GasUsed),
		orZero(t.EffectiveGasPrice).String(), orZero(t.Fee).String(), int64(t.L1GasUsed), l1Fee, fmtTime(t.At))
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	for _, e := range t.Entries {
		if _, err := tx.ExecContext(ctx, j.q(`INSERT INTO tx_tasks (hash, task_id, rig_id, share_wei) VALUES (?, ?, ?, ?)
			ON CONFLICT (hash, task_id, rig_id) DO NOTHING`), t.Hash.Hex(), int64(e.TaskID), int64(e.RigID), orZero(e.Share).String()); err != nil {
			return false, err
		}
	}
	return true, nil
}

// RecordPayouts journals a settlement's payouts and returns those that were new.
func (j *DBJournal) RecordPayouts(ctx context.Context, ps []Payout) ([]Payout, error) {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var added []Payout
	for _, p := range ps {
		if p.At.IsZero() {
			p.At = j.now()
		}
		account := ""
		if p.Account != (common.Address{}) {
			account = p.Account.Hex()
		}
		res, err := tx.ExecContext(ctx, j.q(`INSERT INTO payouts (tx_hash, log_index, task_id, rig_id, kind, account, amount_wei, recorded_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tx_hash, log_index) DO NOTHING`),
			p.Tx.Hex(), int64(p.LogIndex), int64(p.TaskID), int64(p.RigID), string(p.Kind), account, orZero(p.Wei).String(), fmtTime(p.At))
		if err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, j.q(`INSERT INTO payout_blocks (tx_hash, block) VALUES (?, ?)
			ON CONFLICT (tx_hash) DO UPDATE SET block = excluded.block`), p.Tx.Hex(), int64(p.Block)); err != nil {
			return nil, err
		}
		if n, err := res.RowsAffected(); err == nil && n > 0 {
			added = append(added, p)
		}
	}
	return added, tx.Commit()
}

// PayoutsRecorded reports whether any payout of the task is journaled.
func (j *DBJournal) PayoutsRecorded(ctx context.Context, taskID uint64) (bool, error) {
	var n int
	err := j.db.QueryRowContext(ctx, j.q(`SELECT COUNT(*) FROM payouts WHERE task_id = ?`), int64(taskID)).Scan(&n)
	return n > 0, err
}

// Txs lists the journaled transactions recorded at or after since, oldest first, with their
// entries.
func (j *DBJournal) Txs(ctx context.Context, since time.Time) ([]TxRecord, error) {
	return j.txsWhere(ctx, "t.recorded_at >= ?", fmtTime(since))
}

// TxsFromBlock lists the journaled transactions mined in block from or later, as Txs does.
func (j *DBJournal) TxsFromBlock(ctx context.Context, from uint64) ([]TxRecord, error) {
	return j.txsWhere(ctx, "t.block >= ?", int64(from))
}

// PayoutsFromBlock lists the journaled payouts of settlements mined in block from or later, as
// Payouts does.
func (j *DBJournal) PayoutsFromBlock(ctx context.Context, from uint64) ([]Payout, error) {
	return j.payoutsWhere(ctx, "b.block >= ?", int64(from))
}

// ForgetPayouts takes the payouts of one settlement transaction out of the accounts: a reorg
// dropped or moved it (the task's payouts are then read again from the chain).
func (j *DBJournal) ForgetPayouts(ctx context.Context, settle common.Hash) error {
	return j.forget(ctx, "tx_hash", settle, "payouts", "payout_blocks")
}

// ForgetTx takes a transaction and its entries out of the accounts: a reorg dropped it.
func (j *DBJournal) ForgetTx(ctx context.Context, hash common.Hash) error {
	return j.forget(ctx, "hash", hash, "tx_tasks", "txs")
}

// forget deletes the rows whose column holds hash from each table, in one transaction.
func (j *DBJournal) forget(ctx context.Context, column string, hash common.Hash, tables ...string) error {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := j.deleteWhere(ctx, tx, column, hash, tables...); err != nil {
		return err
	}
	return tx.Commit()
}

// deleteWhere deletes, within tx, the rows whose column holds hash from each table.
func (j *DBJournal) deleteWhere(ctx context.Context, tx *sql.Tx, column string, hash common.Hash, tables ...string) error {
	for _, table := range tables {
		if _, err := tx.ExecContext(ctx, j.q(`DELETE FROM `+table+` WHERE `+column+` = ?`), hash.Hex()); err != nil {
			return err
		}
	}
	return nil
}

func (j *DBJournal) txsWhere(ctx context.Context, where string, arg any) ([]TxRecord, error) {
	rows, err := j.db.QueryContext(ctx, j.q(`SELECT t.hash, t.purpose, t.sender, t.rig_id, t.block, t.status, t.gas_used,
		t.effective_gas_price, t.fee_wei, t.l1_gas_used, t.l1_fee_wei, t.recorded_at, e.task_id, e.rig_id, e.share_wei
		FROM txs t JOIN tx_tasks e ON e.hash = t.hash WHERE `+where+` ORDER BY t.recorded_at, t.hash, e.task_id, e.rig_id`), arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TxRecord
	for rows.Next() {
		var hash, purpose, sender, status, price, fee, l1Fee, at, share string
		var rigID, block, gas, l1Gas, eTask, eRig int64
		if err := rows.Scan(&hash, &purpose, &sender, &rigID, &block, &status, &gas, &price, &fee, &l1Gas, &l1Fee, &at,
			&eTask, &eRig, &share); err != nil {
			return nil, err
		}
		h := common.HexToHash(hash)
		if len(out) == 0 || out[len(out)-1].Hash != h {
			t := TxRecord{Hash: h, Purpose: purpose, From: common.HexToAddress(sender), RigID: uint64(rigID), Block: uint64(block),
				Status: TxStatus(status), GasUsed: uint64(gas), L1GasUsed: uint64(l1Gas), At: parseTime(at)}
			if t.EffectiveGasPrice, err = parseWei(price); err != nil {
				return nil, fmt.Errorf("transaction %s: %w", hash, err)
			}
			if t.Fee, err = parseWei(fee); err != nil {
				return nil, fmt.Errorf("transaction %s: %w", hash, err)
			}
			if l1Fee != "" {
				if t.L1Fee, err = parseWei(l1Fee); err != nil {
					return nil, fmt.Errorf("transaction %s: %w", hash, err)
				}
			}
			out = append(out, t)
		}
		s, err := parseWei(share)
		if err != nil {
			return nil, fmt.Errorf("transaction %s: %w", hash, err)
		}
		last := &out[len(out)-1]
		last.Entries = append(last.Entries, TaskRig{TaskID: uint64(eTask), RigID: uint64(eRig), Share: s})
	}
	return out, rows.Err()
}

// Payouts lists the journaled payouts recorded at or after since.
func (j *DBJournal) Payouts(ctx context.Context, since time.Time) ([]Payout, error) {
	return j.payoutsWhere(ctx, "p.recorded_at >= ?", fmtTime(since))
}

func (j *DBJournal) payoutsWhere(ctx context.Context, where string, arg any) ([]Payout, error) {
	rows, err := j.db.QueryContext(ctx, j.q(`SELECT p.tx_hash, p.log_index, p.task_id, p.rig_id, p.kind, p.account, p.amount_wei,
		COALESCE(b.block, 0), p.recorded_at FROM payouts p LEFT JOIN payout_blocks b ON b.tx_hash = p.tx_hash
		WHERE `+where+` ORDER BY p.task_id, p.rig_id, p.tx_hash, p.log_index`), arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Payout
	for rows.Next() {
		var hash, kind, account, amount, at string
		var logIndex, taskID, rigID, block int64
		if err := rows.Scan(&hash, &logIndex, &taskID, &rigID, &kind, &account, &amount, &block, &at); err != nil {
			return nil, err
		}
		wei, err := parseWei(amount)
		if err != nil {
			return nil, fmt.Errorf("payout %s/%d: %w", hash, logIndex, err)
		}
		p := Payout{TaskID: uint64(taskID), RigID: uint64(rigID), Kind: PayoutKind(kind), Wei: wei, Tx: common.HexToHash(hash),
			LogIndex: uint(logIndex), Block: uint64(block), At: parseTime(at)}
		if account != "" {
			p.Account = common.HexToAddress(account)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// FirstBlock is the first block holding a journaled transaction for the task.
func (j *DBJournal) FirstBlock(ctx context.Context, taskID uint64) (uint64, bool, error) {
	var b *int64
	err := j.db.QueryRowContext(ctx, j.q(`SELECT MIN(t.block) FROM txs t JOIN tx_tasks e ON e.hash = t.hash WHERE e.task_id = ?`), int64(taskID)).Scan(&b)
	if err != nil || b == nil {
		return 0, false, err
	}
	return uint64(*b), true, nil
}

func parseWei(s string) (*big.Int, error) {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("%q is not an amount of wei", s)
	}
	return v, nil
}

// RigLabel names a rig in metrics and output: its id, or "relayer" for 0.
func RigLabel(id uint64) string {
	if id == 0 {
		return "relayer"
	}
	return strconv.FormatUint(id, 10)
}
