package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

// postgresMigrations are the PostgreSQL journal's schema versions, applied in order and each in
// one transaction. Versions 1 and 2 are the SQLite journal's migrations with PostgreSQL's column
// types; version 3 adds the lease that lets several instances share the database; version 4 the
// accounts (SQLite's 3); version 5 sortable times (SQLite's 4); version 6 the payouts' blocks
// (SQLite's 5). Never edit
// one that has shipped; add the next.
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

func openPostgresJournal(url string, create bool) (*DBJournal, error) {
	shown := RedactURL(url)
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", shown, err)
	}
	db.SetMaxOpenConns(8)
	db.SetConnMaxIdleTime(time.Minute)
	j := &DBJournal{db: db, postgres: true, target: shown, now: time.Now}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !create {
		// A reader asks before anything is made: a database without the journal stays as it is.
		v, err := j.pgVersion(ctx, db)
		if err == nil && v == 0 {
			db.Close()
			return nil, NoJournalAt(url)
		}
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("journal %s: %w", shown, err)
		}
	}
	if err := j.migratePostgres(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", shown, err)
	}
	return j, nil
}

// migratePostgres brings the schema to the newest version under an advisory lock, so instances
// starting together migrate once.
func (j *DBJournal) migratePostgres(ctx context.Context) error {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('pricerig schema'))`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS pricerig_schema (component TEXT PRIMARY KEY, version INT NOT NULL)`); err != nil {
		return err
	}
	version, err := j.pgVersion(ctx, tx)
	if err != nil {
		return err
	}
	newest := len(postgresMigrations) - 1
	if version > newest {
		return newerJournal(version, newest)
	}
	for v := version + 1; v <= newest; v++ {
		if _, err := tx.ExecContext(ctx, postgresMigrations[v]); err != nil {
			return fmt.Errorf("migration %d: %w", v, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO pricerig_schema (component, version) VALUES ('journal', $1)
		ON CONFLICT (component) DO UPDATE SET version = excluded.version`, newest); err != nil {
		return err
	}
	return tx.Commit()
}

// pgVersion reads the journal's schema version: 0 in a database pricerig never migrated, or one
// where only the price history lives.
func (j *DBJournal) pgVersion(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, `SELECT version FROM pricerig_schema WHERE component = 'journal'`).Scan(&v)
	var pe *pgconn.PgError
	switch {
	case errors.Is(err, sql.ErrNoRows), errors.As(err, &pe) && pe.Code == "42P01": // undefined_table
		return 0, nil
	case err != nil:
		return 0, err
	}
	return v, nil
}
