package history

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pricerig/pricerig/internal/sqldb"
)

// The PostgreSQL store, shared by the machines that fill and read one history. Reads go through
// database/sql like SQLite's; a write transaction runs on the native pgx connection of one of
// the pool's connections (sqldb.PgConn), since COPY, which loads its rows, has no database/sql
// form.

// pgInTx runs a write transaction of db, whole, through pgx: BEGIN, fn, then the commit.
func pgInTx(db *sqldb.DB) func(ctx context.Context, fn func(tx wtx) error) error {
	return func(ctx context.Context, fn func(tx wtx) error) error {
		return db.PgConn(ctx, func(c *pgx.Conn) error {
			tx, err := c.Begin(ctx)
			if err != nil {
				return err
			}
			defer tx.Rollback(context.WithoutCancel(ctx))
			if err := fn(&pgTx{tx: tx}); err != nil {
				return err
			}
			return tx.Commit(ctx)
		})
	}
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

type pgTx struct {
	tx     pgx.Tx
	staged map[string]bool // staging tables this transaction has filled
	locked bool            // it holds daysLock
}

func (t *pgTx) Exec(ctx context.Context, stmt string, args ...any) error {
	_, err := t.tx.Exec(ctx, sqldb.Dollar(stmt), args...)
	return err
}

func (t *pgTx) QueryRow(ctx context.Context, stmt string, args ...any) sqldb.Row {
	return t.tx.QueryRow(ctx, sqldb.Dollar(stmt), args...)
}

func (t *pgTx) Query(ctx context.Context, stmt string, args []any, fn func(sqldb.Row) error) error {
	rows, err := t.tx.Query(ctx, sqldb.Dollar(stmt), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return sqldb.EachRow(rows, fn)
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
