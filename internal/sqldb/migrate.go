package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pricerig/pricerig/internal/clock"
)

// Migration takes a schema from the version before it to Version, in its database's own SQL.
// Never edit one that has shipped; add the next.
type Migration struct {
	Version int
	Name    string // what it makes, for its error and the log; may be empty
	SQL     string
	// Data, when set, moves rows after SQL ran, in the same transaction, in Go; Post is SQL run
	// after it (dropping what Data emptied, say).
	Data func(ctx context.Context, tx Tx) error
	Post string
}

// NewerSchemaError refuses a database migrated by a later pricerig than this one: read, it
// could be misread; written, it would be written in a form it does not hold.
type NewerSchemaError struct{ Version, Newest int }

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("schema version %d is newer than this pricerig understands (%d): use a pricerig at least as new as the one that wrote it", e.Version, e.Newest)
}

// schemaLock is the advisory lock every pricerig migration of a PostgreSQL database takes,
// whichever owner's, so processes starting together migrate once.
const schemaLock = `SELECT pg_advisory_xact_lock(hashtext('pricerig schema'))`

// querier is what reads a version: the database, a connection or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Version reads the owner's schema version: 0 where its schema was never made (on PostgreSQL, a
// database pricerig never migrated or one where only the other owner lives).
func (d *DB) Version(ctx context.Context) (int, error) { return d.version(ctx, d.DB) }

func (d *DB) version(ctx context.Context, q querier) (int, error) {
	var v int
	if !d.postgres {
		err := q.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
		return v, err
	}
	err := q.QueryRowContext(ctx, `SELECT version FROM pricerig_schema WHERE component = $1`, d.cfg.Component).Scan(&v)
	var pe *pgconn.PgError
	switch {
	case errors.Is(err, sql.ErrNoRows), errors.As(err, &pe) && pe.Code == "42P01": // undefined_table
		return 0, nil
	case err != nil:
		return 0, err
	}
	return v, nil
}

// firstVersion is Version read before the migrations' lock. On a SQLite file that several
// processes make at once, a connection whose first act is switching the new file to WAL finds it
// busy without SQLite calling the busy handler (the journal mode changes only under an exclusive
// lock, which another process's connection holds while it makes the same switch), so the read is
// tried again, for as long as the busy timeout would have waited.
func (d *DB) firstVersion(ctx context.Context) (int, error) {
	v, err := d.Version(ctx)
	if d.postgres {
		return v, err
	}
	give := time.Now().Add(d.cfg.SQLite.BusyTimeout)
	for err != nil && Retryable(err) && time.Now().Before(give) {
		if clock.Sleep(ctx, 10*time.Millisecond) != nil {
			break
		}
		v, err = d.Version(ctx)
	}
	return v, err
}

// migrate brings the schema to the newest version. A database already there is only read.
// Otherwise every missing migration runs in one transaction of handle's (a handle for the
// migrations, closed after them unless it is the owner's) under the schema lock, which reads
// the version again: of two processes opening a new database at once, the second waits, then
// finds the schema in place and applies nothing.
func (d *DB) migrate(ctx context.Context, handle func() (*sql.DB, error)) error {
	steps := d.cfg.Migrations(d.postgres)
	newest := 0
	if len(steps) > 0 {
		newest = steps[len(steps)-1].Version
	}
	v, err := d.firstVersion(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("reading the schema version: %w", err)
	case v > newest:
		return &NewerSchemaError{v, newest}
	case v == newest:
		return nil
	}
	h, err := handle()
	if err != nil {
		return err
	}
	if h != d.DB {
		defer h.Close()
	}
	tx, err := h.BeginTx(ctx, nil) // IMMEDIATE on SQLite: the migrations' handle says so
	if err != nil {
		return err
	}
	defer tx.Rollback()
	t := &sqlTx{ex: tx, dollar: d.postgres}
	if d.postgres {
		for _, stmt := range []string{schemaLock,
			`CREATE TABLE IF NOT EXISTS pricerig_schema (component TEXT PRIMARY KEY, version INT NOT NULL)`} {
			if err := t.Exec(ctx, stmt); err != nil {
				return err
			}
		}
	}
	if d.cfg.Log != "" {
		if err := t.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+d.cfg.Log+` (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)`); err != nil {
			return err
		}
	}
	if v, err = d.version(ctx, tx); err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if v > newest {
		return &NewerSchemaError{v, newest}
	}
	for _, m := range steps {
		if m.Version <= v {
			continue
		}
		if err := d.apply(ctx, t, m); err != nil {
			if m.Name == "" {
				return fmt.Errorf("migration %d: %w", m.Version, err)
			}
			return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
		}
	}
	return tx.Commit()
}

// apply runs one migration and records the version it reaches, in the migrations' transaction.
func (d *DB) apply(ctx context.Context, t *sqlTx, m Migration) error {
	if err := t.Exec(ctx, m.SQL); err != nil {
		return err
	}
	if m.Data != nil {
		if err := m.Data(ctx, t); err != nil {
			return err
		}
	}
	if m.Post != "" {
		if err := t.Exec(ctx, m.Post); err != nil {
			return err
		}
	}
	if d.cfg.Log != "" {
		if err := t.Exec(ctx, `INSERT INTO `+d.cfg.Log+` (version, name, applied) VALUES (?, ?, ?)`,
			m.Version, m.Name, time.Now().UTC().Format(time.RFC3339)); err != nil {
			return err
		}
	}
	if d.postgres {
		return t.Exec(ctx, `INSERT INTO pricerig_schema (component, version) VALUES (?, ?)
			ON CONFLICT (component) DO UPDATE SET version = excluded.version`, d.cfg.Component, m.Version)
	}
	return t.Exec(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, m.Version))
}
