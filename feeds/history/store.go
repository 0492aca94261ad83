// Package history is pricerig's price history: a store of every source's 1-minute
// bars and of the reconciled answer of every minute with its provenance, and the backfill that
// fills it at the fewest requests the sources allow, resumably.
//
// The store is a SQLite file (one machine, the default) or a PostgreSQL database (several
// machines filling and reading one history); both hold the same tables, made by the same
// migrations. The store is what `pricerig backfill` writes, what `pricerig price --db` answers from, and what
// the audit reads to find gaps. Coverage, windows and runs are plain rows; bars and answers are
// packed in day blocks (pack.go), which `backfill export` writes out for other tools. Times are
// unix seconds of the minute's start (UTC) and prices are integers × 10^8.
package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/dburl"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// SchemaVersion is the version of the store's schema this pricerig writes. A store of a newer
// version is refused rather than misread.
const SchemaVersion = 3

// migration takes a store from version-1 to version, on each database in its own SQL: the same
// tables, columns and keys, in each one's types. Migrations run in order in one transaction and
// are recorded in schema_migrations; the version reached is PRAGMA user_version on SQLite and
// the 'history' row of pricerig_schema on PostgreSQL (which the rig's journal shares).
type migration struct {
	version  int
	name     string
	sqlite   string
	postgres string
	// data, when set, moves rows after the SQL ran, in the same transaction, in Go (the same
	// code on both databases); post is SQL run after it.
	data                     func(ctx context.Context, tx wtx) error
	postSQLite, postPostgres string
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
`, `
CREATE TABLE bars (
	symbol TEXT NOT NULL,
	minute BIGINT NOT NULL,
	source TEXT NOT NULL,
	close  BIGINT NOT NULL CHECK (close > 0),
	volume BIGINT NOT NULL CHECK (volume >= 0),
	PRIMARY KEY (symbol, minute, source)
);
CREATE TABLE coverage (
	source   TEXT NOT NULL,
	symbol   TEXT NOT NULL,
	win_from BIGINT NOT NULL,
	win_to   BIGINT NOT NULL,
	bars     BIGINT NOT NULL,
	PRIMARY KEY (source, symbol, win_from)
);
CREATE TABLE windows (
	source   TEXT NOT NULL,
	symbols  TEXT NOT NULL,
	win_from BIGINT NOT NULL,
	win_to   BIGINT NOT NULL,
	lead_in  INTEGER NOT NULL,
	requests INTEGER NOT NULL,
	bars     BIGINT NOT NULL,
	PRIMARY KEY (source, symbols, win_from)
);
CREATE TABLE rulesets (
	id    BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	rules TEXT NOT NULL UNIQUE
);
CREATE TABLE answers (
	symbol    TEXT NOT NULL,
	minute    BIGINT NOT NULL,
	session   TEXT NOT NULL,
	agreed    INTEGER NOT NULL,
	price     BIGINT NOT NULL,
	median    BIGINT NOT NULL,
	survivors INTEGER NOT NULL,
	complete  INTEGER NOT NULL,
	reason    TEXT NOT NULL,
	ruleset   BIGINT NOT NULL REFERENCES rulesets(id),
	PRIMARY KEY (symbol, minute)
);
CREATE TABLE quotes (
	symbol   TEXT NOT NULL,
	minute   BIGINT NOT NULL,
	ord      INTEGER NOT NULL,
	source   TEXT NOT NULL,
	status   TEXT NOT NULL,
	price    BIGINT NOT NULL,
	bar      BIGINT NOT NULL,
	centibps BIGINT NOT NULL,
	err      TEXT NOT NULL,
	PRIMARY KEY (symbol, minute, ord)
);
CREATE TABLE runs (
	id       BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	started  TEXT NOT NULL,
	finished TEXT NOT NULL DEFAULT '',
	args     TEXT NOT NULL,
	summary  TEXT NOT NULL DEFAULT ''
);
`, nil, "", ""}, {2, "page_cursors", `
-- Where a paged window stopped: the provider's token for the page after the last one committed
-- (written with that page), so a re-run goes on with the same request from there. Deleted with
-- the window's last page.
CREATE TABLE page_cursors (
	source   TEXT NOT NULL,
	symbols  TEXT NOT NULL, -- comma-separated feed symbols of the request, in its order
	win_from INTEGER NOT NULL,
	win_to   INTEGER NOT NULL,
	next     TEXT NOT NULL,
	PRIMARY KEY (source, symbols, win_from)
) WITHOUT ROWID;
`, `
CREATE TABLE page_cursors (
	source   TEXT NOT NULL,
	symbols  TEXT NOT NULL,
	win_from BIGINT NOT NULL,
	win_to   BIGINT NOT NULL,
	next     TEXT NOT NULL,
	PRIMARY KEY (source, symbols, win_from)
);
`, nil, "", ""}, {3, "bar_days, answer_days", `
-- Bars and answers in day blocks (see pack.go): one row per source, symbol and UTC day holds
-- its bars, one row per symbol and day its answers with every quote, packed. The row tables
-- they replace cost SQLite more per row than the whole ingest may take; export (csv, jsonl,
-- parquet) is how other tools read them now.
CREATE TABLE bar_days (
	symbol TEXT NOT NULL,
	day    INTEGER NOT NULL, -- the UTC day's midnight, unix seconds
	source TEXT NOT NULL,
	bars   INTEGER NOT NULL, -- how many bars the block holds
	data   BLOB NOT NULL,
	PRIMARY KEY (symbol, day, source)
);
CREATE TABLE answer_days (
	symbol  TEXT NOT NULL,
	day     INTEGER NOT NULL,
	answers INTEGER NOT NULL,
	data    BLOB NOT NULL,
	PRIMARY KEY (symbol, day)
);
`, `
CREATE TABLE bar_days (
	symbol TEXT NOT NULL,
	day    BIGINT NOT NULL,
	source TEXT NOT NULL,
	bars   INTEGER NOT NULL,
	data   BYTEA NOT NULL,
	PRIMARY KEY (symbol, day, source)
);
CREATE TABLE answer_days (
	symbol  TEXT NOT NULL,
	day     BIGINT NOT NULL,
	answers INTEGER NOT NULL,
	data    BYTEA NOT NULL,
	PRIMARY KEY (symbol, day)
);
`, packRowTables, `DROP TABLE quotes; DROP TABLE answers; DROP TABLE bars;`, `DROP TABLE quotes; DROP TABLE answers; DROP TABLE bars;`}}

// The tables the write path loads in bulk, each with its columns, key columns first.
var (
	barDaysTable    = table{"bar_days", []string{"symbol", "day", "source", "bars", "data"}, 3}
	coverageTable   = table{"coverage", []string{"source", "symbol", "win_from", "win_to", "bars"}, 3}
	windowsTable    = table{"windows", []string{"source", "symbols", "win_from", "win_to", "lead_in", "requests", "bars"}, 3}
	answerDaysTable = table{"answer_days", []string{"symbol", "day", "answers", "data"}, 2}
	bulkTables      = []table{barDaysTable, coverageTable, windowsTable, answerDaysTable}
)

// table is a table the write path loads rows into: its name and columns, of which the first key
// form its primary key.
type table struct {
	name string
	cols []string
	key  int
}

// Store is an open price history, in a SQLite file or a PostgreSQL database.
type Store struct {
	db     *sql.DB // reads, on either database (pgx's database/sql driver on PostgreSQL)
	be     backend
	target string // the path, or the URL without its password
}

// backend is what the two databases do differently: opening, migrating, and write
// transactions. Everything else in the store is written once, in SQL both speak (? placeholders
// are rewritten for PostgreSQL by q).
type backend interface {
	// begin starts a write transaction.
	begin(ctx context.Context) (wtx, error)
	// retryable reports whether a failed write transaction should be run again from its start:
	// SQLite busy past its timeout, a PostgreSQL deadlock or serialization failure between two
	// writers.
	retryable(err error) bool
	version(ctx context.Context) (int, error)
	close() error
}

// wtx is a write transaction of either database.
type wtx interface {
	exec(ctx context.Context, stmt string, args ...any) error
	queryRow(ctx context.Context, stmt string, args ...any) scanner
	// queryRows calls fn for each row of a query, inside the transaction.
	queryRows(ctx context.Context, stmt string, args []any, fn func(scanner) error) error
	// serialize makes the transaction the only writer of day blocks until it ends (SQLite's
	// transactions already are: they begin IMMEDIATE), so its read, merge and write of a block
	// loses no other writer's bars.
	serialize(ctx context.Context) error
	// upsert writes rows (values in t's column order) into t, replacing the rows with the same
	// key: multi-row INSERTs on SQLite, COPY into a staging table then one INSERT … ON CONFLICT
	// on PostgreSQL. Of rows sharing a key the last one wins.
	upsert(ctx context.Context, t table, rows [][]any) error
	commit(ctx context.Context) error
	rollback(ctx context.Context) error
}

type scanner interface{ Scan(dest ...any) error }

// Open opens the store at target, creating it and applying any migration it lacks: a
// postgres:// (or postgresql://) URL opens a PostgreSQL database, anything else is the path of a
// SQLite file. Open is for the store's writers (the backfill); a command that only reads the
// history opens it with OpenExisting.
func Open(target string) (*Store, error) { return open(target, true) }

// OpenExisting opens the store at target for a command that only reads it (`price --db`,
// export, the audit, the rig's answers from the history): a path or a database that holds no
// store — a typo in a path or a URL, an empty file, a database only the rig's journal uses — is
// refused with an error that wraps ErrNoStore, and nothing is made there: no file, no table.
// A store of an older schema is migrated as Open migrates it; one of a newer schema is refused,
// as by Open.
func OpenExisting(target string) (*Store, error) { return open(target, false) }

// ErrNoStore is what OpenExisting's error wraps when its target holds no pricerig history store.
var ErrNoStore = errors.New("no pricerig history store")

// NoStoreAt is the error for a target that holds no store, shown without its password.
func NoStoreAt(target string) error {
	return fmt.Errorf("%w at %s: `pricerig backfill --db` makes one", ErrNoStore, dburl.Shown(target))
}

func open(target string, create bool) (*Store, error) {
	if strings.TrimSpace(target) == "" {
		return nil, errors.New("no store path")
	}
	if dburl.IsPostgres(target) {
		return openPostgres(target, create)
	}
	return openSQLite(target, create)
}

// newerSchema is the error for a store migrated by a later pricerig than this one: it is refused,
// to readers and writers alike, rather than misread or written in a format it does not hold.
func newerSchema(v int) error {
	return fmt.Errorf("schema version %d is newer than this pricerig understands (%d): use a pricerig at least as new as the one that wrote it", v, SchemaVersion)
}

// Close closes the store.
func (s *Store) Close() error {
	err := s.db.Close()
	if e := s.be.close(); err == nil {
		err = e
	}
	return err
}

// Path is the file the store was opened from, or its URL without the password: fit for output.
func (s *Store) Path() string { return s.target }

// Postgres reports whether the store is a PostgreSQL database.
func (s *Store) Postgres() bool { _, ok := s.be.(*pgBackend); return ok }

// DB gives read access to the tables for tools that query them directly (the audit). Writes
// must go through the Store. Statements for it take the database's own placeholders (see Q).
func (s *Store) DB() *sql.DB { return s.db }

// Q rewrites a statement written with ? placeholders for the store's database.
func (s *Store) Q(stmt string) string {
	if !s.Postgres() {
		return stmt
	}
	return dollarPlaceholders(stmt)
}

// dollarPlaceholders numbers a statement's ? placeholders $1, $2, … (PostgreSQL's). The store's
// statements hold no ? inside a literal.
func dollarPlaceholders(stmt string) string {
	var b strings.Builder
	n := 0
	for _, r := range stmt {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Version reads the schema version of the open store.
func (s *Store) Version(ctx context.Context) (int, error) { return s.be.version(ctx) }

// writeAttempts is how many times a write is tried when another process holds the store's write
// lock past the busy timeout (10 s each) or a PostgreSQL writer deadlocked with another: a long
// reconcile of the other backfill is waited out for a minute before the write gives up.
const writeAttempts = 6

// write runs fn in one write transaction and commits it. When the store is busy — another
// process holds the write lock longer than the busy timeout, or two PostgreSQL writers
// deadlocked — the whole transaction is tried again from the start, a few times.
func (s *Store) write(ctx context.Context, fn func(tx wtx) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = s.writeOnce(ctx, fn)
		if err == nil || !s.be.retryable(err) || attempt == writeAttempts || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
		}
	}
}

func (s *Store) writeOnce(ctx context.Context, fn func(tx wtx) error) error {
	if sw, ok := s.be.(scopedWriter); ok {
		return sw.inTx(ctx, fn)
	}
	tx, err := s.be.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback(context.WithoutCancel(ctx))
	if err := fn(tx); err != nil {
		return err
	}
	return tx.commit(ctx)
}

// fetchedWindow is one window's result as the backfill writes it, or one page of a paged
// provider's window.
type fetchedWindow struct {
	source   string
	span     Span
	symbols  []string                 // feed symbols
	bars     map[string][]sources.Bar // by feed symbol, raw, inside span
	leadIn   bool
	requests int
	// A page (paged providers): cover is, by symbol, the part of the window the bars written so
	// far prove (a symbol absent has none proven yet); windowBars and windowRequests are the
	// window's totals so far; more says the window has pages still to come, and next, when the
	// provider's token can resume them, where they go on.
	page                       bool
	cover                      map[string]Span
	windowBars, windowRequests int
	more                       bool
	next                       string
}

// putWindow writes a window's bars, its coverage and its fetch record in one transaction: a
// window (or a page with what it proves) is in the store whole or not at all, which is what
// makes a re-run after a kill exact.
func (s *Store) putWindow(ctx context.Context, w fetchedWindow) (int, error) {
	total := 0
	for _, sym := range w.symbols {
		total += len(w.bars[sym])
	}
	cov := make([][]any, 0, len(w.symbols))
	record := []any{w.source, strings.Join(w.symbols, ","), w.span.From.Unix(), w.span.To.Unix(), boolInt(w.leadIn), w.requests, total}
	if w.page {
		// A page proves part of its window per symbol; a later page of the same window proves
		// more from the same start and replaces the row. The window's record keeps its totals.
		for _, sym := range w.symbols {
			if c, ok := w.cover[sym]; ok && c.From.Before(c.To) {
				cov = append(cov, []any{w.source, sym, c.From.Unix(), c.To.Unix(), w.windowBars})
			}
		}
		record[5], record[6] = w.windowRequests, w.windowBars
	} else {
		for _, sym := range w.symbols {
			cov = append(cov, []any{w.source, sym, w.span.From.Unix(), w.span.To.Unix(), len(w.bars[sym])})
		}
	}
	err := s.write(ctx, func(tx wtx) error {
		if total > 0 {
			if err := tx.serialize(ctx); err != nil {
				return err
			}
		}
		var rows [][]any
		for _, sym := range w.symbols {
			r, err := barDayRows(ctx, tx, w.source, sym, w.bars[sym])
			if err != nil {
				return fmt.Errorf("writing bars: %w", err)
			}
			rows = append(rows, r...)
		}
		if err := tx.upsert(ctx, barDaysTable, rows); err != nil {
			return fmt.Errorf("writing bars: %w", err)
		}
		if err := tx.upsert(ctx, coverageTable, cov); err != nil {
			return fmt.Errorf("writing coverage: %w", err)
		}
		if err := tx.upsert(ctx, windowsTable, [][]any{record}); err != nil {
			return fmt.Errorf("writing the window: %w", err)
		}
		if w.page {
			key := []any{w.source, strings.Join(w.symbols, ","), w.span.From.Unix()}
			var err error
			if w.more && w.next != "" {
				err = tx.exec(ctx, `INSERT INTO page_cursors (source, symbols, win_from, win_to, next) VALUES (?, ?, ?, ?, ?)
					ON CONFLICT (source, symbols, win_from) DO UPDATE SET win_to = excluded.win_to, next = excluded.next`,
					append(key, w.span.To.Unix(), w.next)...)
			} else {
				err = tx.exec(ctx, `DELETE FROM page_cursors WHERE source = ? AND symbols = ? AND win_from = ?`, key...)
			}
			if err != nil {
				return fmt.Errorf("writing the window's cursor: %w", err)
			}
		}
		return nil
	})
	return total, err
}

// cursor is a paged window stopped between two pages, and the provider's token for the next;
// bars and requests are the window's totals over the pages committed.
type cursor struct {
	symbols        []string
	span           Span
	next           string
	bars, requests int
}

// cursors lists a source's stopped windows.
func (s *Store) cursors(ctx context.Context, source string) ([]cursor, error) {
	rows, err := s.db.QueryContext(ctx, s.Q(`SELECT c.symbols, c.win_from, c.win_to, c.next, COALESCE(w.bars, 0), COALESCE(w.requests, 0)
FROM page_cursors c LEFT JOIN windows w ON w.source = c.source AND w.symbols = c.symbols AND w.win_from = c.win_from
WHERE c.source = ? ORDER BY c.win_from, c.symbols`), source)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cursor
	for rows.Next() {
		var syms, next string
		var a, b, bars, requests int64
		if err := rows.Scan(&syms, &a, &b, &next, &bars, &requests); err != nil {
			return nil, err
		}
		out = append(out, cursor{strings.Split(syms, ","), Span{unix(a), unix(b)}, next, int(bars), int(requests)})
	}
	return out, rows.Err()
}

// Coverage lists the windows fetched for a source and symbol, sorted, as stored (not merged).
func (s *Store) Coverage(ctx context.Context, source, symbol string) ([]Span, error) {
	rows, err := s.db.QueryContext(ctx, s.Q(`SELECT win_from, win_to FROM coverage WHERE source = ? AND symbol = ? ORDER BY win_from`), source, symbol)
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
	c, err := s.openBars(ctx, symbol, source, minute.Unix(), minute.Unix()+1)
	if err != nil {
		return false, err
	}
	defer c.close()
	_, ok := c.next()
	return ok, c.Err()
}

// StoredBar is one stored bar.
type StoredBar struct {
	Symbol string
	Source string
	sources.Bar
}

// Bars calls fn for every stored bar of symbol starting in [from, to), in time order (sources
// of one minute by name); source "" means every source, symbol "" every symbol (by symbol,
// then time).
func (s *Store) Bars(ctx context.Context, symbol, source string, from, to time.Time, fn func(StoredBar) error) error {
	c, err := s.openBars(ctx, symbol, source, ceilUnix(from), ceilUnix(to))
	if err != nil {
		return err
	}
	defer c.close()
	for {
		b, ok := c.next()
		if !ok {
			return c.Err()
		}
		if err := fn(b); err != nil {
			return err
		}
	}
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
	// Kind is what kind of failure the quote's request was (feeds.Quote.Kind): set when a
	// window failed to fetch, "" otherwise and in answers stored before kinds were kept. Tell
	// failures apart by it, never by Err.
	Kind sources.ErrorKind
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
	rules, err := s.rulesets(ctx)
	if err != nil {
		return err
	}
	return s.answerDays(ctx, q, func(sym string, a *dayAnswer) error {
		rs, ok := rules[a.ruleset]
		if !ok {
			return fmt.Errorf("answer %s %d names ruleset %d, which the store lacks", sym, a.minute, a.ruleset)
		}
		return fn(a.answer(sym, rs))
	})
}

// rulesetID returns the id of a ruleset, adding it when new.
func (s *Store) rulesetID(ctx context.Context, rules string) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx wtx) error {
		if err := tx.exec(ctx, `INSERT INTO rulesets (rules) VALUES (?) ON CONFLICT (rules) DO NOTHING`, rules); err != nil {
			return err
		}
		return tx.queryRow(ctx, `SELECT id FROM rulesets WHERE rules = ?`, rules).Scan(&id)
	})
	return id, err
}

// completeAnswers counts the stored answers of symbol in [from, to) that are complete and were
// reconciled under a ruleset.
func (s *Store) completeAnswers(ctx context.Context, symbol string, from, to time.Time, ruleset int64) (int, error) {
	n := 0
	err := s.answerDays(ctx, Query{Symbols: []string{symbol}, From: from, To: to}, func(_ string, a *dayAnswer) error {
		if a.complete && a.ruleset == ruleset {
			n++
		}
		return nil
	})
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
// what the store held for those minutes, quotes and all: a source dropped from the spec leaves
// no stale provenance.
func (s *Store) putAnswers(ctx context.Context, ruleset int64, rows []answerRow) error {
	return s.write(ctx, func(tx wtx) error {
		if err := tx.serialize(ctx); err != nil {
			return err
		}
		days, err := answerDayRows(ctx, tx, ruleset, rows)
		if err != nil {
			return fmt.Errorf("writing answers: %w", err)
		}
		if err := tx.upsert(ctx, answerDaysTable, days); err != nil {
			return fmt.Errorf("writing answers: %w", err)
		}
		return nil
	})
}

// beginRun records a run's start; endRun its end and summary.
func (s *Store) beginRun(ctx context.Context, started time.Time, args string) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx wtx) error {
		return tx.queryRow(ctx, `INSERT INTO runs (started, args) VALUES (?, ?) RETURNING id`, started.UTC().Format(time.RFC3339Nano), args).Scan(&id)
	})
	return id, err
}

func (s *Store) endRun(ctx context.Context, id int64, finished time.Time, summary string) error {
	return s.write(ctx, func(tx wtx) error {
		return tx.exec(ctx, `UPDATE runs SET finished = ?, summary = ? WHERE id = ?`, finished.UTC().Format(time.RFC3339Nano), summary, id)
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

// failedKinds names the kind of each quote whose request failed, as " [source: kind, …]"; "" when
// none did.
func failedKinds(quotes []Quote) string {
	var out []string
	for _, q := range quotes {
		if q.Kind != "" {
			out = append(out, q.Source+": "+string(q.Kind))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " [" + strings.Join(out, ", ") + "]"
}

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
		return res, false, "the stored answer is incomplete (" + a.Reason + ")" + failedKinds(a.Quotes), nil
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
			Carried: q.Status.Priced() && !q.BarTime.Equal(a.Minute), Err: q.Err, Kind: q.Kind, DistanceCentiBps: q.DistanceCentiBps,
		})
	}
	return res, true, "", nil
}
