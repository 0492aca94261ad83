package history

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pricerig/pricerig/internal/dburl"
	"github.com/pricerig/pricerig/redact"
)

// pgBackend is the store in a PostgreSQL database, shared by the machines that fill and read
// one history. Writes go through pgx itself (COPY needs it); reads through its database/sql
// driver, on the same pool.
type pgBackend struct{ pool *pgxpool.Pool }

// schemaLock is the advisory lock every pricerig migration of a database takes (the rig's
// journal takes the same one), so processes starting together migrate once.
const schemaLock = `SELECT pg_advisory_xact_lock(hashtext('pricerig schema'))`

func openPostgres(url string, create bool) (*Store, error) {
	shown := dburl.Shown(url)
	fail := func(err error) error {
		// pgx masks a password it prints; the URL's own secrets are taken out whatever it does
		return fmt.Errorf("store %s: %s", shown, redact.With(err.Error(), dburl.Secrets(url)))
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The schema first, on a connection of its own: the pool's connections each make their
	// staging tables from the store's tables when they connect.
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, fail(err)
	}
	if !create {
		// A reader asks before anything is made: a database without the store stays as it is.
		v, err := pgVersion(ctx, conn)
		if err == nil && v == 0 {
			err = NoStoreAt(url)
		}
		if err != nil {
			conn.Close(ctx)
			if errors.Is(err, ErrNoStore) {
				return nil, err
			}
			return nil, fail(err)
		}
	}
	err = migratePostgres(ctx, conn)
	conn.Close(ctx)
	if err != nil {
		return nil, fail(err)
	}
	cfg.MaxConns = 6
	cfg.MaxConnIdleTime = time.Minute
	cfg.AfterConnect = makeStagingTables
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fail(err)
	}
	db := stdlib.OpenDBFromPool(pool)
	db.SetMaxOpenConns(3) // a streaming read or two; the rest of the pool is for writes
	return &Store{db: db, be: &pgBackend{pool: pool}, target: shown}, nil
}

// makeStagingTables makes, on a new connection, the temporary tables COPY loads rows into
// before they are merged into the store's tables (COPY itself cannot replace a row with the same
// key). They live as long as the connection and are emptied at every commit.
func makeStagingTables(ctx context.Context, c *pgx.Conn) error {
	var b strings.Builder
	for _, t := range bulkTables {
		fmt.Fprintf(&b, "CREATE TEMP TABLE IF NOT EXISTS stage_%s (LIKE %s) ON COMMIT DELETE ROWS;\n", t.name, t.name)
	}
	_, err := c.Exec(ctx, b.String())
	return err
}

// migratePostgres brings the schema to SchemaVersion. A database already there is only read.
// Otherwise the missing migrations run in one transaction under the schema advisory lock, which
// reads the version again: of two processes opening a new database at once, the second waits,
// then finds the schema in place and applies nothing.
func migratePostgres(ctx context.Context, conn *pgx.Conn) error {
	v, err := pgVersion(ctx, conn)
	if err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if v == SchemaVersion {
		return nil
	}
	if v > SchemaVersion {
		return newerSchema(v)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	for _, stmt := range []string{schemaLock,
		`CREATE TABLE IF NOT EXISTS pricerig_schema (component TEXT PRIMARY KEY, version INT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)`,
	} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return err
		}
	}
	if v, err = pgVersion(ctx, tx); err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if v > SchemaVersion {
		return newerSchema(v)
	}
	for _, m := range migrations {
		if m.version <= v {
			continue
		}
		if _, err := tx.Exec(ctx, m.postgres); err != nil {
			return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
		}
		if m.data != nil {
			if err := m.data(ctx, &pgTx{tx: tx}); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
			}
		}
		if m.postPostgres != "" {
			if _, err := tx.Exec(ctx, m.postPostgres); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied) VALUES ($1, $2, $3)`,
			m.version, m.name, time.Now().UTC().Format(time.RFC3339)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO pricerig_schema (component, version) VALUES ('history', $1)
			ON CONFLICT (component) DO UPDATE SET version = excluded.version`, m.version); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

type pgQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// pgVersion reads the store's schema version: 0 in a database pricerig never migrated, or one
// where only the journal lives.
func pgVersion(ctx context.Context, q pgQuerier) (int, error) {
	var v int
	err := q.QueryRow(ctx, `SELECT version FROM pricerig_schema WHERE component = 'history'`).Scan(&v)
	var pe *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows), errors.As(err, &pe) && pe.Code == "42P01": // undefined_table
		return 0, nil
	case err != nil:
		return 0, err
	}
	return v, nil
}

func (b *pgBackend) version(ctx context.Context) (int, error) { return pgVersion(ctx, b.pool) }

func (b *pgBackend) close() error { b.pool.Close(); return nil }

func (b *pgBackend) begin(ctx context.Context) (wtx, error) {
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &pgTx{tx: tx}, nil
}

// retryable reports a deadlock or a serialization failure: two writers of the same rows each
// waited for the other, and the database broke the tie by failing one of them.
func (b *pgBackend) retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

type pgTx struct {
	tx     pgx.Tx
	staged map[string]bool // staging tables this transaction has filled
	locked bool            // it holds daysLock
}

func (t *pgTx) exec(ctx context.Context, stmt string, args ...any) error {
	_, err := t.tx.Exec(ctx, dollarPlaceholders(stmt), args...)
	return err
}

func (t *pgTx) queryRow(ctx context.Context, stmt string, args ...any) scanner {
	return t.tx.QueryRow(ctx, dollarPlaceholders(stmt), args...)
}

func (t *pgTx) queryRows(ctx context.Context, stmt string, args []any, fn func(scanner) error) error {
	rows, err := t.tx.Query(ctx, dollarPlaceholders(stmt), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// daysLock is the advisory lock a transaction writing day blocks holds to its end: of two
// processes merging bars into the same day's block, the second reads the first's.
const daysLock = `SELECT pg_advisory_xact_lock(hashtext('pricerig history days'))`

func (t *pgTx) serialize(ctx context.Context) error {
	if t.locked {
		return nil
	}
	_, err := t.tx.Exec(ctx, daysLock)
	t.locked = err == nil
	return err
}

// upsert copies rows into the table's staging table and merges them in one statement, in key
// order: two writers of the same rows then lock them in the same order, and the last of rows
// sharing a key (the latest in the staging table) wins.
func (t *pgTx) upsert(ctx context.Context, tb table, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	stage := "stage_" + tb.name
	if t.staged[tb.name] {
		if _, err := t.tx.Exec(ctx, `DELETE FROM `+stage); err != nil {
			return err
		}
	}
	if t.staged == nil {
		t.staged = map[string]bool{}
	}
	t.staged[tb.name] = true
	if _, err := t.tx.CopyFrom(ctx, pgx.Identifier{stage}, tb.cols, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	_, err := t.tx.Exec(ctx, mergeStatement(tb))
	return err
}

// mergeStatement is the INSERT … SELECT that moves a staging table's rows into their table.
func mergeStatement(tb table) string {
	cols, key := strings.Join(tb.cols, ", "), strings.Join(tb.cols[:tb.key], ", ")
	sets := make([]string, 0, len(tb.cols)-tb.key)
	for _, c := range tb.cols[tb.key:] {
		sets = append(sets, c+" = excluded."+c)
	}
	action := "DO NOTHING"
	if len(sets) > 0 {
		action = "DO UPDATE SET " + strings.Join(sets, ", ")
	}
	return `INSERT INTO ` + tb.name + ` (` + cols + `) SELECT DISTINCT ON (` + key + `) ` + cols +
		` FROM stage_` + tb.name + ` ORDER BY ` + key + `, ctid DESC ON CONFLICT (` + key + `) ` + action
}

func (t *pgTx) commit(ctx context.Context) error   { return t.tx.Commit(ctx) }
func (t *pgTx) rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }
