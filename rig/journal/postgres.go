package journal

// postgresMigrations are the PostgreSQL journal's schema versions, applied in order (the missing
// ones in one transaction, see open.go). Versions 1 and 2 are the SQLite journal's migrations with PostgreSQL's column
// types; version 3 adds the lease that lets several instances share the database; version 4 the
// accounts (SQLite's 3); version 5 sortable times (SQLite's 4); version 6 the payouts' blocks
// (SQLite's 5). Never edit one that has shipped; add the next.
var postgresMigrations = []string{
	1: `
CREATE TABLE IF NOT EXISTS tasks (
	task_id BIGINT NOT NULL,
	rig_id BIGINT NOT NULL,
	symbol TEXT NOT NULL DEFAULT '',
	minute TEXT NOT NULL DEFAULT '',
	state TEXT NOT NULL,
	answer BYTEA, salt BYTEA, commitment BYTEA,
	price BIGINT NOT NULL DEFAULT 0,
	expected_median BIGINT NOT NULL DEFAULT 0,
	self_centibps BIGINT NOT NULL DEFAULT 0,
	commit_tx TEXT NOT NULL DEFAULT '',
	reveal_tx TEXT NOT NULL DEFAULT '',
	commit_deadline TEXT NOT NULL DEFAULT '',
	reveal_deadline TEXT NOT NULL DEFAULT '',
	stored_answer BYTEA,
	agreed BIGINT NOT NULL DEFAULT 0,
	inside BIGINT NOT NULL DEFAULT 0,
	realized_centibps BIGINT NOT NULL DEFAULT 0,
	reason TEXT NOT NULL DEFAULT '',
	updated_at TEXT NOT NULL,
	PRIMARY KEY (task_id, rig_id)
);
CREATE INDEX IF NOT EXISTS tasks_state ON tasks(state);
CREATE TABLE IF NOT EXISTS cursors (name TEXT PRIMARY KEY, block BIGINT NOT NULL);`,
	2: `ALTER TABLE tasks ADD COLUMN IF NOT EXISTS refusal TEXT NOT NULL DEFAULT '';`,
	3: `
CREATE TABLE IF NOT EXISTS leases (
	name TEXT PRIMARY KEY,
	holder TEXT NOT NULL,
	epoch BIGINT NOT NULL,
	expires_at TIMESTAMPTZ NOT NULL,
	renewed_at TIMESTAMPTZ NOT NULL
);`,
	// The accounts: SQLite's migration 2 → 3.
	4: migrationAccounts(true),
	// SQLite's 3 → 4: every time in timeLayout, sortable as text.
	5: sortableTimes(true),
	// SQLite's 4 → 5: each payout's settlement block, for reorgs.
	6: migrationPayoutBlocks(true),
}
