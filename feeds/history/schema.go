package history

import (
	"context"

	"github.com/pricerig/pricerig/internal/sqldb"
)

// SchemaVersion is the version of the store's schema this pricerig writes. A store of a newer
// version is refused rather than misread.
const SchemaVersion = 6

// migration takes a store from version-1 to version, on each database in its own SQL: the same
// tables, columns and keys, in each one's types. internal/sqldb runs the missing ones in order
// in one transaction and records them in schema_migrations; the version reached is PRAGMA
// user_version on SQLite and the 'history' row of pricerig_schema on PostgreSQL (which the rig's
// journal shares).
type migration struct {
	version  int
	name     string
	sqlite   string
	postgres string
	// data, when set, moves rows after the SQL ran, in the same transaction, in Go (the same
	// code on both databases); post is SQL run after it.
	data                     func(ctx context.Context, tx sqldb.Tx) error
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
`, packRowTables, `DROP TABLE quotes; DROP TABLE answers; DROP TABLE bars;`, `DROP TABLE quotes; DROP TABLE answers; DROP TABLE bars;`}, {4, "bar ledger: fetch times, bar_revisions, quota_use, breakers", `
-- The bar ledger (issue 26). Its bars are bar_days' (their blocks gain each bar's fetch time and
-- finality, pack.go, without rewriting a block: the reader takes both formats), and what a
-- source has answered is coverage's: [win_from, win_to) stays the part of a window whose every
-- minute was final when fetched (what the backfill plans by and the audit finds gaps in; empty
-- for a request of a minute not final yet), now with when it was fetched (0: before the ledger)
-- and where the window asked ended (seen_to): a minute there without a bar, before a bar of the
-- same request, was not published when the source had published past it.
ALTER TABLE coverage ADD COLUMN fetched INTEGER NOT NULL DEFAULT 0;
ALTER TABLE coverage ADD COLUMN seen_to INTEGER NOT NULL DEFAULT 0;
UPDATE coverage SET seen_to = win_to;

-- A bar whose close a later fetch changed: both closes, each with its fetch (0: unknown), one
-- row per pair of fetches compared (fetches written out of order are compared as they arrive).
-- old_final says the old close was final when fetched: the provider changed a finished bar.
CREATE TABLE bar_revisions (
	source      TEXT NOT NULL,
	symbol      TEXT NOT NULL,
	minute      INTEGER NOT NULL,
	seen        INTEGER NOT NULL, -- when the new close was fetched
	old_close   INTEGER NOT NULL,
	new_close   INTEGER NOT NULL,
	old_fetched INTEGER NOT NULL,
	old_final   INTEGER NOT NULL,
	PRIMARY KEY (source, symbol, minute, seen, old_fetched)
) WITHOUT ROWID;

-- The requests each source sent, counted by minute, for its quota (sources.Quota): every
-- process on the store spends from the same counts. Rows older than the longest quota go.
-- (source holds the client's account since issue 32, sources.AccountOf: name, origin and key
-- fingerprint; breakers the same.)
CREATE TABLE quota_use (
	source TEXT NOT NULL,
	minute INTEGER NOT NULL,
	used   INTEGER NOT NULL,
	PRIMARY KEY (source, minute)
) WITHOUT ROWID;

-- A source not asked until until: its provider refused it (kind unauthorized) or asked for a
-- long pause (kind rate_limited). Shared, so every process on the store backs off together.
CREATE TABLE breakers (
	source TEXT PRIMARY KEY,
	opened INTEGER NOT NULL,
	until  INTEGER NOT NULL,
	kind   TEXT NOT NULL,
	why    TEXT NOT NULL
) WITHOUT ROWID;
`, `
ALTER TABLE coverage ADD COLUMN fetched BIGINT NOT NULL DEFAULT 0;
ALTER TABLE coverage ADD COLUMN seen_to BIGINT NOT NULL DEFAULT 0;
UPDATE coverage SET seen_to = win_to;
CREATE TABLE bar_revisions (
	source      TEXT NOT NULL,
	symbol      TEXT NOT NULL,
	minute      BIGINT NOT NULL,
	seen        BIGINT NOT NULL,
	old_close   BIGINT NOT NULL,
	new_close   BIGINT NOT NULL,
	old_fetched BIGINT NOT NULL,
	old_final   INTEGER NOT NULL,
	PRIMARY KEY (source, symbol, minute, seen, old_fetched)
);
CREATE TABLE quota_use (
	source TEXT NOT NULL,
	minute BIGINT NOT NULL,
	used   INTEGER NOT NULL,
	PRIMARY KEY (source, minute)
);
CREATE TABLE breakers (
	source TEXT PRIMARY KEY,
	opened BIGINT NOT NULL,
	until  BIGINT NOT NULL,
	kind   TEXT NOT NULL,
	why    TEXT NOT NULL
);
`, nil, "", ""}, {5, "evidence", `
-- The evidence of each answer a rig committed (issue 25): the days of the symbol's bars, windows
-- and revisions its derivation read, kept (not pruned, evidence.go) while the row is, so
-- pricerig explain --task derives it again offline. One row a task: its rigs answer alike.
CREATE TABLE evidence (
	task     INTEGER PRIMARY KEY,
	symbol   TEXT NOT NULL,
	minute   INTEGER NOT NULL, -- the task's minute, unix seconds
	answered INTEGER NOT NULL, -- when the rig answered, unix seconds
	price    INTEGER NOT NULL, -- the answer × 10^8
	read_from INTEGER NOT NULL, -- the span of the ledger its derivation read: [read_from, read_to)
	read_to   INTEGER NOT NULL,
	day_from INTEGER NOT NULL, -- the first UTC day (midnight, unix seconds) of the span
	day_to   INTEGER NOT NULL  -- the last
);
CREATE INDEX evidence_days ON evidence (symbol, day_from, day_to);
`, `
CREATE TABLE evidence (
	task     BIGINT PRIMARY KEY,
	symbol   TEXT NOT NULL,
	minute   BIGINT NOT NULL,
	answered BIGINT NOT NULL,
	price    BIGINT NOT NULL,
	read_from BIGINT NOT NULL,
	read_to   BIGINT NOT NULL,
	day_from BIGINT NOT NULL,
	day_to   BIGINT NOT NULL
);
CREATE INDEX evidence_days ON evidence (symbol, day_from, day_to);
`, nil, "", ""}, {6, "evidence: the sources an answer counted", `
-- The sources whose prices the answer was reconciled from (feeds.Result.Counted), comma-separated
-- in spec order: an early quorum answers before the slower sources, whose bars then reach the
-- ledger, so explain counts these alone. '' for evidence kept before this version: unknown.
ALTER TABLE evidence ADD COLUMN counted TEXT NOT NULL DEFAULT '';
`, `
ALTER TABLE evidence ADD COLUMN counted TEXT NOT NULL DEFAULT '';
`, nil, "", ""}}

// The tables the write path loads in bulk, each with its columns, key columns first.
var (
	barDaysTable    = table{"bar_days", []string{"symbol", "day", "source", "bars", "data"}, 3}
	coverageTable   = table{"coverage", []string{"source", "symbol", "win_from", "win_to", "bars", "fetched", "seen_to"}, 3}
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

// Migrations is the store's migrations as internal/sqldb runs them on one database (PostgreSQL or
// SQLite), in order: what made a store of each schema version, for a test that builds an old one.
func Migrations(postgres bool) []sqldb.Migration {
	out := make([]sqldb.Migration, len(migrations))
	for i, m := range migrations {
		out[i] = sqldb.Migration{Version: m.version, Name: m.name, SQL: m.sqlite, Data: m.data, Post: m.postSQLite}
		if postgres {
			out[i].SQL, out[i].Post = m.postgres, m.postPostgres
		}
	}
	return out
}
