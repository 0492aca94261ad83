package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pricerig/pricerig/internal/dburl"
	"github.com/pricerig/pricerig/internal/sqldb"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/redact"
)

// State is where one rig stands on one task. The journal moves it forward only.
type State string

// The states of a rig's task, in order.
const (
	StateDrawn     State = "drawn"     // the rig was drawn; nothing decided yet
	StateAnswered  State = "answered"  // answer and salt are on disk; the commit may not have gone out
	StateCommitted State = "committed" // the commit transaction was mined
	StateRevealed  State = "revealed"  // the reveal transaction was mined
	StateSettled   State = "settled"   // settle ran; the stored answer and our distance are recorded
	StateSkipped   State = "skipped"   // the task could not be answered honestly; Reason says why
	StateMissed    State = "missed"    // a window closed before our transaction made it
	StateRefunded  State = "refunded"  // the task was refunded
	schemaVersion        = 5
	// timeLayout writes every time of the journal in UTC with all nine fractional digits: text
	// that sorts as the times do, so SQL compares them (Since). RFC 3339 with the fraction's
	// trailing zeros cut ("…:05Z", "…:05.5Z", "…:05.55Z") does not: 'Z' sorts after the digits
	// and '.' before them. Reading takes either form.
	timeLayout = "2006-01-02T15:04:05.000000000Z07:00"
)

var stateOrder = map[State]int{
	StateDrawn: 0, StateAnswered: 1, StateCommitted: 2, StateRevealed: 3,
	StateSettled: 4, StateSkipped: 4, StateMissed: 4, StateRefunded: 4,
}

// Final reports whether nothing more will happen to the entry.
func (s State) Final() bool { return stateOrder[s] == 4 }

// Before reports whether s comes before t in a task's life (the final states come together, last).
func (s State) Before(t State) bool { return stateOrder[s] < stateOrder[t] }

// Entry is the journal's record of one rig on one task.
type Entry struct {
	TaskID uint64
	RigID  uint64
	Symbol string
	Minute time.Time
	State  State

	Answer     numeric.Answer
	Salt       [32]byte
	Commitment [32]byte
	Price      numeric.Scaled // the price committed

	// ExpectedMedian is the reconciled median of every source in the spec: what honest peers
	// will answer. SelfCentiBps is our distance to it, in hundredths of a bp.
	ExpectedMedian numeric.Scaled
	SelfCentiBps   int64

	CommitTx, RevealTx             string
	CommitDeadline, RevealDeadline time.Time

	// After settlement: the stored answer, whether the task agreed and our realized distance to
	// the stored median (hundredths of a bp), and whether our answer was inside the agreement.
	StoredAnswer     numeric.Answer
	Agreed           bool
	Inside           bool
	RealizedCentiBps int64

	Reason string
	// Refusal is why the spec refused the task ("" when it did not): the rig answered the spec's
	// refusal_answer, and so did every rig on the spec. See InputRules.Refusal.
	Refusal   string
	UpdatedAt time.Time
}

// Journal is the rig's durable memory: what it answered, with which salt, and how far each task
// got. Every write is durable before the caller sends anything on chain, so a restart (or another
// instance taking over) resumes exactly where the process stopped. *DBJournal implements it on
// SQLite (one machine) and on PostgreSQL (instances on several machines sharing one database).
type Journal interface {
	// Drawn records that a rig was drawn for a task (idempotent).
	Drawn(ctx context.Context, taskID, rigID uint64, commitDeadline time.Time) error
	// RecordAnswer stores the answer, salt and commitment of a task before anything is sent,
	// or returns the entry already stored: one salt per task and rig, ever.
	RecordAnswer(ctx context.Context, e Entry) (Entry, error)
	// Advance moves an entry to a later state; moving backwards is ignored.
	Advance(ctx context.Context, taskID, rigID uint64, to State, update func(*Entry)) error
	// Get returns the entry of a rig on a task; found is false when there is none.
	Get(ctx context.Context, taskID, rigID uint64) (e Entry, found bool, err error)
	// Open lists the entries that are not final, oldest task first.
	Open(ctx context.Context) ([]Entry, error)
	// Since lists every entry updated at or after t, oldest task first.
	Since(ctx context.Context, t time.Time) ([]Entry, error)
	// RefusalReason returns why the spec refused a task, when one of our rigs recorded it.
	RefusalReason(ctx context.Context, taskID uint64) (reason string, found bool, err error)
	// Cursor returns the last block the follower named name fully processed (0 when none).
	Cursor(ctx context.Context, name string) (uint64, error)
	// SetCursor records that every block up to and including block was processed.
	SetCursor(ctx context.Context, name string, block uint64) error
	// MarkUnsettled keeps that a task was answered before its sources were final enough, with
	// every source's provenance (idempotent per task: the first mark stays).
	MarkUnsettled(ctx context.Context, m UnsettledMark) error
	// Close closes the journal.
	Close() error
}

// DBJournal is the journal in a SQL database: SQLite through modernc.org/sqlite, or PostgreSQL
// through pgx. Both hold the same tables; the SQL differs only in placeholders, column types and
// row locks.
type DBJournal struct {
	db       *sqldb.DB
	postgres bool
	target   string // the path, or the URL without its password: for errors and logs
	now      func() time.Time
}

var _ Journal = (*DBJournal)(nil)

// OpenJournal opens (creating and migrating when needed) the journal at target: a
// postgres:// (or postgresql://) URL opens a PostgreSQL journal, anything else is the path of a
// SQLite file.
func OpenJournal(target string) (*DBJournal, error) {
	return open(target, true)
}

// OpenExistingJournal opens the journal at target for a command that only reads it (the audit,
// `operator status --journal`, `answer`): a path or a database that holds no journal is refused
// with an error that wraps ErrNoJournal, and nothing is made there. A journal of an older schema
// is migrated as OpenJournal migrates it; one of a newer schema is refused.
func OpenExistingJournal(target string) (*DBJournal, error) {
	return open(target, false)
}

// ErrNoJournal is what OpenExistingJournal's error wraps when its target holds no journal.
var ErrNoJournal = errors.New("no pricerig rig journal")

// NoJournalAt is the error for a target that holds no journal, shown without its password.
func NoJournalAt(target string) error {
	return fmt.Errorf("%w at %s: `pricerig rig --journal` makes one", ErrNoJournal, RedactURL(target))
}

// IsPostgresURL reports whether a journal or store target names a PostgreSQL database.
func IsPostgresURL(target string) bool { return dburl.IsPostgres(target) }

// RedactURL returns a database target fit for output: a URL's user and password (also a
// password= parameter) are replaced by redact.Mark; a path is returned as is.
func RedactURL(target string) string { return dburl.Shown(target) }

// Target is where the journal lives: its path, or its URL without the password.
func (j *DBJournal) Target() string { return j.target }

// Shared reports whether several instances may use the journal at once (PostgreSQL): they then
// take turns by a lease.
func (j *DBJournal) Shared() bool { return j.postgres }

// Close closes the journal.
func (j *DBJournal) Close() error { return j.db.Close() }

// q rewrites a statement written with ? placeholders for the journal's database.
func (j *DBJournal) q(stmt string) string { return j.db.Q(stmt) }

// Drawn records that a rig was drawn for a task (idempotent).
func (j *DBJournal) Drawn(ctx context.Context, taskID, rigID uint64, commitDeadline time.Time) error {
	_, err := j.db.ExecContext(ctx, j.q(`INSERT INTO tasks (task_id, rig_id, state, commit_deadline, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (task_id, rig_id) DO NOTHING`),
		int64(taskID), int64(rigID), string(StateDrawn), fmtTime(commitDeadline), fmtTime(j.now()))
	return err
}

// RecordAnswer stores the answer, salt and commitment of a task before anything is sent. When
// the journal already holds an answer for the task it returns the stored entry unchanged — the
// caller must commit that one, with that salt. On PostgreSQL the row is locked for the
// transaction, so two instances racing both get the one salt that won; when ctx carries a
// Fence the lease is checked in the same transaction and ErrFenced returned when it is lost.
func (j *DBJournal) RecordAnswer(ctx context.Context, e Entry) (Entry, error) {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return Entry{}, err
	}
	defer tx.Rollback()
	if err := j.checkFenceTx(ctx, tx); err != nil {
		return Entry{}, err
	}
	if j.postgres {
		// Insert-if-absent first, so the row exists and FOR UPDATE below serialises racers.
		if _, err := tx.ExecContext(ctx, j.q(`INSERT INTO tasks (task_id, rig_id, state, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (task_id, rig_id) DO NOTHING`), int64(e.TaskID), int64(e.RigID), string(StateDrawn), fmtTime(j.now())); err != nil {
			return Entry{}, err
		}
	}
	existing, found, err := j.getEntry(ctx, tx, e.TaskID, e.RigID, true)
	if err != nil {
		return Entry{}, err
	}
	if found && stateOrder[existing.State] >= stateOrder[StateAnswered] && existing.Salt != ([32]byte{}) {
		return existing, nil
	}
	if found && e.CommitDeadline.IsZero() {
		e.CommitDeadline = existing.CommitDeadline
	}
	e.State = StateAnswered
	e.UpdatedAt = j.now()
	if err := j.putEntry(ctx, tx, e); err != nil {
		return Entry{}, err
	}
	if err := tx.Commit(); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// Advance moves an entry to a later state and sets the fields given by update. Moving backwards
// is ignored (a replayed event after a restart must not undo progress).
func (j *DBJournal) Advance(ctx context.Context, taskID, rigID uint64, to State, update func(*Entry)) error {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	e, found, err := j.getEntry(ctx, tx, taskID, rigID, true)
	if err != nil {
		return err
	}
	if !found {
		e = Entry{TaskID: taskID, RigID: rigID, State: StateDrawn}
	}
	if stateOrder[to] < stateOrder[e.State] || (e.State.Final() && to != e.State) {
		return nil
	}
	if found && to == e.State && update == nil {
		// Nothing to write: each look at the chain re-asserts what it sees, and a synchronous
		// write per open task per step cost seconds a step with a hundred tasks.
		return nil
	}
	e.State = to
	if update != nil {
		update(&e)
	}
	e.UpdatedAt = j.now()
	if err := j.putEntry(ctx, tx, e); err != nil {
		return err
	}
	return tx.Commit()
}

// Get returns the entry of a rig on a task.
func (j *DBJournal) Get(ctx context.Context, taskID, rigID uint64) (Entry, bool, error) {
	return j.getEntry(ctx, j.db, taskID, rigID, false)
}

// Open returns the entries that are not final, oldest task first: what a restarted runner must
// pick up.
func (j *DBJournal) Open(ctx context.Context) ([]Entry, error) {
	return j.query(ctx, `WHERE state NOT IN ('settled','skipped','missed','refunded') ORDER BY task_id, rig_id`)
}

// Since returns every entry updated at or after t, oldest task first (for the audit).
func (j *DBJournal) Since(ctx context.Context, t time.Time) ([]Entry, error) {
	return j.query(ctx, `WHERE updated_at >= ? ORDER BY task_id, rig_id`, fmtTime(t))
}

// RefusalReason returns why the spec refused a task, as this journal's rigs recorded it when
// they answered the spec's refusal_answer; found is false when none of them refused it (or none
// was drawn for it). `pricerig answer` and `order --wait` print it as "refused by the spec: …".
func (j *DBJournal) RefusalReason(ctx context.Context, taskID uint64) (reason string, found bool, err error) {
	err = j.db.QueryRowContext(ctx, j.q(`SELECT refusal FROM tasks WHERE task_id = ? AND refusal != '' ORDER BY rig_id LIMIT 1`), int64(taskID)).Scan(&reason)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return reason, err == nil, err
}

// Cursor returns the last block a follower named name has fully processed (0 when none).
func (j *DBJournal) Cursor(ctx context.Context, name string) (uint64, error) {
	var b int64
	err := j.db.QueryRowContext(ctx, j.q(`SELECT block FROM cursors WHERE name = ?`), name).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return uint64(b), err
}

// SetCursor records that every block up to and including block was processed.
func (j *DBJournal) SetCursor(ctx context.Context, name string, block uint64) error {
	_, err := j.db.ExecContext(ctx, j.q(`INSERT INTO cursors (name, block) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET block = excluded.block`), name, int64(block))
	return err
}

var entryColumnList = []string{"task_id", "rig_id", "symbol", "minute", "state", "answer", "salt", "commitment",
	"price", "expected_median", "self_centibps", "commit_tx", "reveal_tx", "commit_deadline", "reveal_deadline",
	"stored_answer", "agreed", "inside", "realized_centibps", "reason", "refusal", "updated_at"}

var entryColumns = strings.Join(entryColumnList, ", ")

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// getEntry reads one entry; forUpdate locks its row to the end of the transaction (PostgreSQL;
// SQLite has one writer at a time anyway).
func (j *DBJournal) getEntry(ctx context.Context, q querier, taskID, rigID uint64, forUpdate bool) (Entry, bool, error) {
	stmt := `SELECT ` + entryColumns + ` FROM tasks WHERE task_id = ? AND rig_id = ?`
	if forUpdate && j.postgres {
		stmt += ` FOR UPDATE`
	}
	row := q.QueryRowContext(ctx, j.q(stmt), int64(taskID), int64(rigID))
	e, err := scanEntry(row.Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, false, nil
	}
	return e, err == nil, err
}

func (j *DBJournal) query(ctx context.Context, where string, args ...any) ([]Entry, error) {
	rows, err := j.db.QueryContext(ctx, j.q(`SELECT `+entryColumns+` FROM tasks `+where), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func scanEntry(scan func(...any) error) (Entry, error) {
	var e Entry
	var taskID, rigID int64
	var minute, commitDL, revealDL, updated, state string
	var answer, salt, commitment, stored []byte
	var price, median int64
	var agreed, inside int64
	err := scan(&taskID, &rigID, &e.Symbol, &minute, &state, &answer, &salt, &commitment, &price, &median,
		&e.SelfCentiBps, &e.CommitTx, &e.RevealTx, &commitDL, &revealDL, &stored, &agreed, &inside,
		&e.RealizedCentiBps, &e.Reason, &e.Refusal, &updated)
	if err != nil {
		return e, err
	}
	e.TaskID, e.RigID = uint64(taskID), uint64(rigID)
	e.State = State(state)
	copy(e.Answer[:], answer)
	copy(e.Salt[:], salt)
	copy(e.Commitment[:], commitment)
	copy(e.StoredAnswer[:], stored)
	e.Price, e.ExpectedMedian = numeric.Scaled(price), numeric.Scaled(median)
	e.Agreed, e.Inside = agreed != 0, inside != 0
	e.Minute, e.CommitDeadline, e.RevealDeadline, e.UpdatedAt = parseTime(minute), parseTime(commitDL), parseTime(revealDL), parseTime(updated)
	return e, nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// putEntry writes an entry. Its texts (why a task was skipped or refused; a price error's words
// among them) are stored redacted as the process's stdout and stderr are (package redact): the
// journal is read by the operator's page, `pricerig task` and the audit, none of which should
// show an RPC URL's key or a source's.
func (j *DBJournal) putEntry(ctx context.Context, x execer, e Entry) error {
	cols := entryColumnList
	placeholders := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	sets := make([]string, 0, len(cols))
	for _, c := range cols[2:] {
		sets = append(sets, c+" = excluded."+c)
	}
	_, err := x.ExecContext(ctx, j.q(`INSERT INTO tasks (`+strings.Join(cols, ", ")+`) VALUES (`+placeholders+`)
		ON CONFLICT (task_id, rig_id) DO UPDATE SET `+strings.Join(sets, ", ")),
		int64(e.TaskID), int64(e.RigID), e.Symbol, fmtTime(e.Minute), string(e.State), e.Answer[:], e.Salt[:], e.Commitment[:],
		int64(e.Price), int64(e.ExpectedMedian), e.SelfCentiBps, e.CommitTx, e.RevealTx, fmtTime(e.CommitDeadline),
		fmtTime(e.RevealDeadline), e.StoredAnswer[:], boolInt(e.Agreed), boolInt(e.Inside), e.RealizedCentiBps,
		redact.String(e.Reason), redact.String(e.Refusal), fmtTime(e.UpdatedAt))
	return err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, s) // takes timeLayout's fraction and the shorter ones
	return t
}

// StoredDistance is a helper for settlement: our answer's distance to the stored median in
// hundredths of a bp (-1 when the median is zero and we are not).
func StoredDistance(ours, stored numeric.Answer) int64 {
	o, s := numeric.AnswerInt(ours), numeric.AnswerInt(stored)
	if !o.IsInt64() || !s.IsInt64() {
		return -1
	}
	return numeric.DistanceCentiBps(numeric.Scaled(o.Int64()), numeric.Scaled(s.Int64()))
}
