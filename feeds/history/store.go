// Package history is pricerig's local price history: a SQLite store of every source's 1-minute
// bars and of the reconciled answer of every minute with its provenance, and the backfill that
// fills it at the fewest requests the sources allow, resumably.
//
// The store is what `pricerig backfill` writes, what `pricerig price --db` answers from, and what
// the audit reads to find gaps. Its tables (see migrations) are plain SQL so other tools can read
// them too; times are unix seconds of the minute's start (UTC) and prices are integers × 10^8.
package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// SchemaVersion is the version of the store's schema this pricerig writes. A store of a newer
// version is refused rather than misread.
const SchemaVersion = 1

// migration takes a store from version-1 to version. Migrations run in order, each in its own
// transaction, and are recorded in schema_migrations; PRAGMA user_version holds the result.
type migration struct {
	version int
	name    string
	sql     string
}

var migrations = []migration{{1, "bars, coverage, windows, rulesets, answers, quotes, runs", `
-- Every source's bars as stored: close in the shares of the minute (split-adjusted sources are
-- brought back to raw before they are written), × 10^8.
CREATE TABLE bars (
	symbol TEXT NOT NULL,    -- the feed's symbol (NVDA), not the provider's
	minute INTEGER NOT NULL, -- bar start, unix seconds
	source TEXT NOT NULL,    -- the source's name in sources.yaml
	close  INTEGER NOT NULL CHECK (close > 0),
	volume INTEGER NOT NULL CHECK (volume >= 0),
	PRIMARY KEY (symbol, minute, source)
) WITHOUT ROWID;

-- What has been fetched, per source and symbol: a window here is known, bars or not. A window
-- that failed is absent, so a later run fetches it.
CREATE TABLE coverage (
	source   TEXT NOT NULL,
	symbol   TEXT NOT NULL,
	win_from INTEGER NOT NULL,
	win_to   INTEGER NOT NULL,
	bars     INTEGER NOT NULL,
	PRIMARY KEY (source, symbol, win_from)
) WITHOUT ROWID;

-- The fetches themselves: one row per window of a source, for one symbol or a batch.
CREATE TABLE windows (
	source   TEXT NOT NULL,
	symbols  TEXT NOT NULL,    -- comma-separated feed symbols fetched together
	win_from INTEGER NOT NULL,
	win_to   INTEGER NOT NULL,
	lead_in  INTEGER NOT NULL, -- 1: fetched only to carry a price into the range's first minutes
	requests INTEGER NOT NULL, -- HTTP requests it took
	bars     INTEGER NOT NULL,
	PRIMARY KEY (source, symbols, win_from)
) WITHOUT ROWID;

-- The rules an answer was reconciled under (min_sources, outlier_bps, max_carry, sessions, the
-- spec's sources), so a reader can tell whether a stored answer is the one its spec would give.
CREATE TABLE rulesets (
	id    INTEGER PRIMARY KEY,
	rules TEXT NOT NULL UNIQUE
);

-- The reconciled answer of each symbol and minute of the backfilled sessions.
CREATE TABLE answers (
	symbol    TEXT NOT NULL,
	minute    INTEGER NOT NULL,
	session   TEXT NOT NULL,
	agreed    INTEGER NOT NULL, -- 1: at least min_sources agreed within outlier_bps
	price     INTEGER NOT NULL, -- the answer × 10^8, 0 unless agreed
	median    INTEGER NOT NULL, -- lower median of every priced quote
	survivors INTEGER NOT NULL,
	complete  INTEGER NOT NULL, -- 1: every source the live reconciler would ask has a definite quote
	reason    TEXT NOT NULL,    -- why there is no answer, or why it is not complete
	ruleset   INTEGER NOT NULL REFERENCES rulesets(id),
	PRIMARY KEY (symbol, minute)
) WITHOUT ROWID;

-- Provenance: each source of the feed's quote for the minute, in spec order.
CREATE TABLE quotes (
	symbol   TEXT NOT NULL,
	minute   INTEGER NOT NULL,
	ord      INTEGER NOT NULL, -- the source's place in the spec
	source   TEXT NOT NULL,
	status   TEXT NOT NULL,    -- ok, carried, outlier, no_data, no_key, not_covered, error, pending
	price    INTEGER NOT NULL, -- × 10^8, 0 without a price
	bar      INTEGER NOT NULL, -- start of the bar the price is the close of, 0 without a price
	centibps INTEGER NOT NULL, -- distance to the answer (or median) in 1/100 bp, -1 without a price
	err      TEXT NOT NULL,
	PRIMARY KEY (symbol, minute, ord)
) WITHOUT ROWID;

-- Each backfill run: when, with what, and its summary (JSON).
CREATE TABLE runs (
	id       INTEGER PRIMARY KEY,
	started  TEXT NOT NULL,
	finished TEXT NOT NULL DEFAULT '',
	args     TEXT NOT NULL,
	summary  TEXT NOT NULL DEFAULT ''
);
`}}

// Store is an open price history.
type Store struct {
	db   *sql.DB
	path string
}

// Open opens the store at path, creating it and applying any migration it lacks.
func Open(path string) (*Store, error) {
	if strings.TrimSpace(path) == "" {
		return nil, errors.New("no store path")
	}
	// WAL lets the audit and `price --db` read while a backfill writes. synchronous=NORMAL is
	// safe in WAL mode: a crash can lose the last transactions, never corrupt the file, and
	// coverage is written in the same transaction as its bars, so a lost window is fetched again.
	//
	// The path goes to the driver as a plain name, not a file: URI, where a '#' or '%' in a
	// directory name would be read as URI syntax and open some other file. The driver cuts its
	// own options off at the first '?', so a path holding one is refused.
	if strings.Contains(path, "?") {
		return nil, fmt.Errorf("store %s: a '?' in the path is not supported", path)
	}
	// _txlock=immediate: every transaction takes the write lock when it begins (BEGIN
	// IMMEDIATE), so a second process waits for it (busy_timeout) instead of failing when a
	// read transaction cannot be upgraded — the "database is locked" of two backfills at once.
	dsn := path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	db.SetMaxOpenConns(4) // a streaming read and a write transaction at the same time
	s := &Store{db: db, path: path}
	if err := s.migrate(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Path is the file the store was opened from.
func (s *Store) Path() string { return s.path }

// DB gives read access to the tables for tools that query them directly (the audit). Writes
// must go through the Store.
func (s *Store) DB() *sql.DB { return s.db }

// Version reads the schema version of the open store.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}

// migrate brings the schema to SchemaVersion. A store already there is only read, so readers
// (`price --db`, the audit) never wait for a writer. Otherwise every missing migration runs in
// one transaction that holds the write lock from its start (BEGIN IMMEDIATE) and reads the
// version again under it: of two processes opening a new file at once, the second waits, then
// finds the schema in place and applies nothing.
func (s *Store) migrate(ctx context.Context) error {
	v, err := s.Version(ctx)
	if err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if v == SchemaVersion {
		return nil
	}
	if v > SchemaVersion {
		return fmt.Errorf("schema version %d is newer than this pricerig understands (%d)", v, SchemaVersion)
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
			return fmt.Errorf("reading the schema version: %w", err)
		}
		if v > SchemaVersion {
			return fmt.Errorf("schema version %d is newer than this pricerig understands (%d)", v, SchemaVersion)
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)`); err != nil {
			return err
		}
		for _, m := range migrations {
			if m.version <= v {
				continue
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)`,
				m.version, m.name, time.Now().UTC().Format(time.RFC3339)); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, m.version)); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeAttempts is how many times a write is tried when another process holds the store's write
// lock past the busy timeout (10 s each): a long reconcile of the other backfill is waited out
// for a minute before the write gives up.
const writeAttempts = 6

// write runs fn in one write transaction and commits it. When the store is busy — another
// process holds the write lock longer than the busy timeout — the whole transaction is tried
// again from the start, a few times.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = s.writeOnce(ctx, fn)
		if err == nil || !isBusy(err) || attempt == writeAttempts || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
		}
	}
}

func (s *Store) writeOnce(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED (any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// insertRows writes rows with multi-row INSERT statements, which SQLite runs far faster than
// one statement per row. head is "INSERT … VALUES", width the number of columns.
func insertRows(ctx context.Context, tx *sql.Tx, head string, width int, rows [][]any) error {
	const perStmt = 200 // 200 × 10 columns stays well under SQLite's 32766 variables
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", width), ",") + ")"
	build := func(n int) string {
		return head + " " + strings.TrimSuffix(strings.Repeat(one+",", n), ",")
	}
	args := make([]any, 0, perStmt*width)
	for len(rows) > 0 {
		n := min(len(rows), perStmt)
		args = args[:0]
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		var err error
		if n == perStmt {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, build(perStmt)); err != nil {
					return err
				}
			}
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, build(n), args...)
		}
		if err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// fetchedWindow is one window's result as the backfill writes it.
type fetchedWindow struct {
	source   string
	span     Span
	symbols  []string                 // feed symbols
	bars     map[string][]sources.Bar // by feed symbol, raw, inside span
	leadIn   bool
	requests int
}

// putWindow writes a window's bars, its coverage and its fetch record in one transaction: a
// window is in the store whole or not at all, which is what makes a re-run after a kill exact.
func (s *Store) putWindow(ctx context.Context, w fetchedWindow) (int, error) {
	total := 0
	var rows [][]any
	for _, sym := range w.symbols {
		bars := w.bars[sym]
		total += len(bars)
		for _, b := range bars {
			rows = append(rows, []any{sym, b.Start.Unix(), w.source, int64(b.Close), b.Volume})
		}
	}
	cov := make([][]any, 0, len(w.symbols))
	for _, sym := range w.symbols {
		cov = append(cov, []any{w.source, sym, w.span.From.Unix(), w.span.To.Unix(), len(w.bars[sym])})
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := insertRows(ctx, tx, `INSERT OR REPLACE INTO bars (symbol, minute, source, close, volume) VALUES`, 5, rows); err != nil {
			return fmt.Errorf("writing bars: %w", err)
		}
		if err := insertRows(ctx, tx, `INSERT OR REPLACE INTO coverage (source, symbol, win_from, win_to, bars) VALUES`, 5, cov); err != nil {
			return fmt.Errorf("writing coverage: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO windows (source, symbols, win_from, win_to, lead_in, requests, bars) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			w.source, strings.Join(w.symbols, ","), w.span.From.Unix(), w.span.To.Unix(), boolInt(w.leadIn), w.requests, total); err != nil {
			return fmt.Errorf("writing the window: %w", err)
		}
		return nil
	})
	return total, err
}

// Coverage lists the windows fetched for a source and symbol, sorted, as stored (not merged).
func (s *Store) Coverage(ctx context.Context, source, symbol string) ([]Span, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT win_from, win_to FROM coverage WHERE source = ? AND symbol = ? ORDER BY win_from`, source, symbol)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Span
	for rows.Next() {
		var a, b int64
		if err := rows.Scan(&a, &b); err != nil {
			return nil, err
		}
		out = append(out, Span{unix(a), unix(b)})
	}
	return out, rows.Err()
}

// Gaps lists the parts of span, in the given sessions, that hold no fetched window of a source
// and symbol: what the audit reports as missing history.
func (s *Store) Gaps(ctx context.Context, source, symbol string, span Span, sessions []market.Session) ([]Span, error) {
	cov, err := s.Coverage(ctx, source, symbol)
	if err != nil {
		return nil, err
	}
	var out []Span
	for _, g := range merge(cov, sessions).missing(span, sessions) {
		if t, ok := trimToSessions(g.From, g.To, sessions); ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// hasBar reports whether a source has a bar of symbol at minute.
func (s *Store) hasBar(ctx context.Context, symbol, source string, minute time.Time) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM bars WHERE symbol = ? AND minute = ? AND source = ?`, symbol, minute.Unix(), source).Scan(&n)
	return n > 0, err
}

// StoredBar is one row of bars.
type StoredBar struct {
	Source string
	sources.Bar
}

// Bars calls fn for every stored bar of symbol starting in [from, to), in time order (sources
// of one minute by name); source "" means every source.
func (s *Store) Bars(ctx context.Context, symbol, source string, from, to time.Time, fn func(StoredBar) error) error {
	q := `SELECT minute, source, close, volume FROM bars WHERE symbol = ? AND minute >= ? AND minute < ?`
	args := []any{symbol, from.Unix(), ceilUnix(to)}
	if source != "" {
		q += ` AND source = ?`
		args = append(args, source)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY minute, source`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var m, c, v int64
		var b StoredBar
		if err := rows.Scan(&m, &b.Source, &c, &v); err != nil {
			return err
		}
		b.Start, b.Close, b.Volume = unix(m), numeric.Scaled(c), v
		if err := fn(b); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Quote is one source's part in a stored answer.
type Quote struct {
	Source  string
	Status  feeds.Status
	Price   numeric.Scaled // 0 without a price
	BarTime time.Time      // zero without a price
	// DistanceCentiBps is the distance to the answer (or the median when there is none) in
	// hundredths of a basis point; -1 without a price.
	DistanceCentiBps int64
	Err              string
}

// Answer is the stored reconciled price of one symbol at one minute.
type Answer struct {
	Symbol    string
	Minute    time.Time
	Session   market.Session
	Agreed    bool
	Price     numeric.Scaled // the answer when Agreed
	Median    numeric.Scaled
	Survivors int
	// Complete says every source the live reconciler would ask had a definite quote when the
	// minute was reconciled: no window was missing or failed, and no source was left out. Only a
	// complete answer is the one `pricerig price` would give.
	Complete bool
	Reason   string
	Rules    string // the ruleset it was reconciled under (see RulesText)
	Quotes   []Quote
}

// Lookup returns the stored answer of symbol at minute; ok is false when the store has none.
func (s *Store) Lookup(ctx context.Context, symbol string, minute time.Time) (a Answer, ok bool, err error) {
	err = s.Answers(ctx, Query{Symbols: []string{symbol}, From: minute, To: minute.Add(time.Minute)}, func(x Answer) error {
		a, ok = x, true
		return nil
	})
	return a, ok, err
}

// Query selects stored answers: zero fields select everything.
type Query struct {
	Symbols  []string
	From, To time.Time // [From, To)
}

// Answers calls fn for every stored answer the query selects, ordered by symbol then minute,
// streaming: a year of answers never sits in memory.
func (s *Store) Answers(ctx context.Context, q Query, fn func(Answer) error) error {
	where, args := []string{"1=1"}, []any{}
	if len(q.Symbols) > 0 {
		where = append(where, "a.symbol IN ("+strings.TrimSuffix(strings.Repeat("?,", len(q.Symbols)), ",")+")")
		for _, sym := range q.Symbols {
			args = append(args, sym)
		}
	}
	if !q.From.IsZero() {
		where = append(where, "a.minute >= ?")
		args = append(args, ceilUnix(q.From))
	}
	if !q.To.IsZero() {
		where = append(where, "a.minute < ?")
		args = append(args, ceilUnix(q.To))
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT a.symbol, a.minute, a.session, a.agreed, a.price, a.median, a.survivors, a.complete, a.reason, r.rules,
       q.source, q.status, q.price, q.bar, q.centibps, q.err
FROM answers a JOIN rulesets r ON r.id = a.ruleset
LEFT JOIN quotes q ON q.symbol = a.symbol AND q.minute = a.minute
WHERE `+strings.Join(where, " AND ")+`
ORDER BY a.symbol, a.minute, q.ord`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var cur *Answer
	for rows.Next() {
		var (
			sym, session, reason, rules string
			minute, price, median       int64
			agreed, complete, survivors int
			qSource, qStatus, qErr      sql.NullString
			qPrice, qBar, qCenti        sql.NullInt64
		)
		if err := rows.Scan(&sym, &minute, &session, &agreed, &price, &median, &survivors, &complete, &reason, &rules,
			&qSource, &qStatus, &qPrice, &qBar, &qCenti, &qErr); err != nil {
			return err
		}
		if cur == nil || cur.Symbol != sym || cur.Minute.Unix() != minute {
			if cur != nil {
				if err := fn(*cur); err != nil {
					return err
				}
			}
			cur = &Answer{
				Symbol: sym, Minute: unix(minute), Session: market.Session(session), Agreed: agreed == 1,
				Price: numeric.Scaled(price), Median: numeric.Scaled(median), Survivors: survivors,
				Complete: complete == 1, Reason: reason, Rules: rules,
			}
		}
		if qSource.Valid {
			q := Quote{Source: qSource.String, Status: feeds.Status(qStatus.String), Price: numeric.Scaled(qPrice.Int64),
				DistanceCentiBps: qCenti.Int64, Err: qErr.String}
			if qBar.Int64 != 0 {
				q.BarTime = unix(qBar.Int64)
			}
			cur.Quotes = append(cur.Quotes, q)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if cur != nil {
		return fn(*cur)
	}
	return nil
}

// rulesetID returns the id of a ruleset, adding it when new.
func (s *Store) rulesetID(ctx context.Context, rules string) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO rulesets (rules) VALUES (?)`, rules); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT id FROM rulesets WHERE rules = ?`, rules).Scan(&id)
	})
	return id, err
}

// completeAnswers counts the stored answers of symbol in [from, to) that are complete and were
// reconciled under a ruleset.
func (s *Store) completeAnswers(ctx context.Context, symbol string, from, to time.Time, ruleset int64) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM answers WHERE symbol = ? AND minute >= ? AND minute < ? AND ruleset = ? AND complete = 1`,
		symbol, from.Unix(), to.Unix(), ruleset).Scan(&n)
	return n, err
}

// answerRow is one reconciled minute ready to write.
type answerRow struct {
	symbol   string
	minute   time.Time
	session  market.Session
	res      feeds.Result
	complete bool
	reason   string
	ords     []int // each quote's place in the spec
}

// putAnswers writes the answers of one symbol (and their quotes) in one transaction, replacing
// what the store held for those minutes: quotes are deleted first, so a source dropped from the
// spec leaves no stale provenance.
func (s *Store) putAnswers(ctx context.Context, ruleset int64, rows []answerRow) error {
	ans := make([][]any, 0, len(rows))
	var quotes [][]any
	for _, r := range rows {
		ans = append(ans, []any{r.symbol, r.minute.Unix(), string(r.session), boolInt(r.res.Agreed), int64(r.res.Price),
			int64(r.res.Median), r.res.Survivors, boolInt(r.complete), r.reason, ruleset})
		for i, q := range r.res.Quotes {
			var bar int64
			if q.Status.Priced() {
				bar = q.BarTime.Unix()
			}
			quotes = append(quotes, []any{r.symbol, r.minute.Unix(), r.ords[i], q.Source, string(q.Status), int64(q.Price), bar, q.DistanceCentiBps, q.Err})
		}
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		// A first backfill of these minutes has no quotes to clear: one probe spares the deletes.
		var held int
		if len(rows) > 0 {
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM answers WHERE symbol = ? AND minute >= ? AND minute <= ? LIMIT 1)`,
				rows[0].symbol, rows[0].minute.Unix(), rows[len(rows)-1].minute.Unix()).Scan(&held); err != nil {
				return err
			}
		}
		const perDelete = 500
		for i := 0; held > 0 && i < len(rows); i += perDelete {
			part := rows[i:min(i+perDelete, len(rows))]
			args := make([]any, 0, len(part)+1)
			args = append(args, part[0].symbol)
			for _, r := range part {
				args = append(args, r.minute.Unix())
			}
			// rows of one call share a symbol (see reconcileSymbol)
			if _, err := tx.ExecContext(ctx, `DELETE FROM quotes WHERE symbol = ? AND minute IN (`+
				strings.TrimSuffix(strings.Repeat("?,", len(part)), ",")+`)`, args...); err != nil {
				return fmt.Errorf("clearing quotes: %w", err)
			}
		}
		if err := insertRows(ctx, tx, `INSERT OR REPLACE INTO answers (symbol, minute, session, agreed, price, median, survivors, complete, reason, ruleset) VALUES`, 10, ans); err != nil {
			return fmt.Errorf("writing answers: %w", err)
		}
		if err := insertRows(ctx, tx, `INSERT OR REPLACE INTO quotes (symbol, minute, ord, source, status, price, bar, centibps, err) VALUES`, 9, quotes); err != nil {
			return fmt.Errorf("writing quotes: %w", err)
		}
		return nil
	})
}

// beginRun records a run's start; endRun its end and summary.
func (s *Store) beginRun(ctx context.Context, started time.Time, args string) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO runs (started, args) VALUES (?, ?)`, started.UTC().Format(time.RFC3339Nano), args)
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, err
}

func (s *Store) endRun(ctx context.Context, id int64, finished time.Time, summary string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE runs SET finished = ?, summary = ? WHERE id = ?`, finished.UTC().Format(time.RFC3339Nano), summary, id)
		return err
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func unix(s int64) time.Time { return time.Unix(s, 0).UTC() }

// ceilUnix is the first whole second at or after t.
func ceilUnix(t time.Time) int64 { return sources.CeilUnix(t) }

// Price is the stored answer of symbol at minute as the live reconciler would give it, for
// `pricerig price --db` and the rig: a minute already in the history needs no fetch. ok is true
// only for an answer that is complete and was reconciled under the spec's own rules (see
// RulesText); otherwise why says what is missing ("" when the store simply lacks the minute,
// as it lacks every minute outside the backfilled sessions).
func (s *Store) Price(ctx context.Context, spec *feeds.Spec, symbol string, minute time.Time) (res feeds.Result, ok bool, why string, err error) {
	a, found, err := s.Lookup(ctx, symbol, minute)
	switch {
	case err != nil:
		return res, false, "", err
	case !found:
		return res, false, "", nil
	case a.Rules != RulesText(spec, nil):
		return res, false, fmt.Sprintf("the stored answer was reconciled under other rules (%s)", a.Rules), nil
	case !a.Complete:
		return res, false, "the stored answer is incomplete (" + a.Reason + ")", nil
	}
	feed, _ := spec.Feed(symbol)
	res = feeds.Result{
		Symbol: a.Symbol, Minute: a.Minute, Effective: a.Minute, Session: a.Session, Agreed: a.Agreed,
		Price: a.Price, Median: a.Median, Survivors: a.Survivors, Reason: a.Reason,
	}
	for _, q := range a.Quotes {
		prov, _ := feed.ProviderSymbol(q.Source)
		res.Quotes = append(res.Quotes, feeds.Quote{
			Source: q.Source, Symbol: prov, Status: q.Status, Price: q.Price, BarTime: q.BarTime,
			Carried: q.Status.Priced() && !q.BarTime.Equal(a.Minute), Err: q.Err, DistanceCentiBps: q.DistanceCentiBps,
		})
	}
	return res, true, "", nil
}
