package journal

import (
	"fmt"
	"strings"
)

// The SQLite journal's schema: its numbered migrations (postgres.go holds PostgreSQL's) and the
// words of its refusal of a newer one. internal/sqldb opens either database and runs them (see
// open.go).

// newerJournal is the error for a journal migrated by a later pricerig: refused rather than
// misread, or written in a form it does not hold.
func newerJournal(version, newest int) error {
	return fmt.Errorf("schema version %d is newer than this pricerig (%d): use a pricerig at least as new as the one that wrote it", version, newest)
}

// migrations[v] takes the schema from version v to v+1. Never edit one that has shipped; add
// the next.
var migrations = []string{
	// 0 → 1
	`
CREATE TABLE IF NOT EXISTS tasks (
	task_id INTEGER NOT NULL,
	rig_id INTEGER NOT NULL,
	symbol TEXT NOT NULL DEFAULT '',
	minute TEXT NOT NULL DEFAULT '',
	state TEXT NOT NULL,
	answer BLOB, salt BLOB, commitment BLOB,
	price INTEGER NOT NULL DEFAULT 0,
	expected_median INTEGER NOT NULL DEFAULT 0,
	self_centibps INTEGER NOT NULL DEFAULT 0,
	commit_tx TEXT NOT NULL DEFAULT '',
	reveal_tx TEXT NOT NULL DEFAULT '',
	commit_deadline TEXT NOT NULL DEFAULT '',
	reveal_deadline TEXT NOT NULL DEFAULT '',
	stored_answer BLOB,
	agreed INTEGER NOT NULL DEFAULT 0,
	inside INTEGER NOT NULL DEFAULT 0,
	realized_centibps INTEGER NOT NULL DEFAULT 0,
	reason TEXT NOT NULL DEFAULT '',
	updated_at TEXT NOT NULL,
	PRIMARY KEY (task_id, rig_id)
);
CREATE INDEX IF NOT EXISTS tasks_state ON tasks(state);
CREATE TABLE IF NOT EXISTS cursors (name TEXT PRIMARY KEY, block INTEGER NOT NULL);`,
	// 1 → 2: why the spec refused a task (issue 18), apart from reason, which says why a rig
	// skipped or missed one.
	`ALTER TABLE tasks ADD COLUMN refusal TEXT NOT NULL DEFAULT '';`,
	// 2 → 3: the accounts (issue 13): every mined transaction of the rig with what it served
	// and cost, and the payouts of settled tasks. PostgreSQL's migration 4 is the same tables.
	migrationAccounts(false),
	// 3 → 4: times written before timeLayout get all nine fractional digits (PostgreSQL's 5).
	sortableTimes(false),
	// 4 → 5: each payout's settlement block, for reorgs (PostgreSQL's 6).
	migrationPayoutBlocks(false),
}

// sortableTimes is the migration that rewrites the journal's times, written as RFC 3339 with a
// fraction of any length ("…:05Z", "…:05.5Z"; always UTC, so always ending in Z), in timeLayout:
// the tasks' and the accounts' (whose reads since a time compare them too).
func sortableTimes(postgres bool) string {
	var b strings.Builder
	for _, t := range []struct {
		table string
		cols  []string
	}{
		{"tasks", []string{"minute", "commit_deadline", "reveal_deadline", "updated_at"}},
		{"txs", []string{"recorded_at"}},
		{"payouts", []string{"recorded_at"}},
	} {
		fmt.Fprintf(&b, "UPDATE %s SET ", t.table)
		for i, c := range t.cols {
			if i > 0 {
				b.WriteString(", ")
			}
			// the fraction: what stands between the seconds' '.' (the 20th character) and the Z
			frac := fmt.Sprintf("CASE WHEN length(%[1]s) > 21 THEN substr(%[1]s, 21, length(%[1]s) - 21) ELSE '' END", c)
			padded := fmt.Sprintf("substr(%s || '000000000', 1, 9)", frac)
			if postgres {
				padded = fmt.Sprintf("rpad(%s, 9, '0')", frac)
			}
			fmt.Fprintf(&b, "%[1]s = CASE WHEN %[1]s = '' THEN '' ELSE substr(%[1]s, 1, 19) || '.' || %[2]s || 'Z' END", c, padded)
		}
		b.WriteString(";\n")
	}
	return b.String()
}
