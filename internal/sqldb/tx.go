package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Tx is a transaction as the owners' shared code uses it (a migration's Data step, the store's
// writes): statements written with ? placeholders, on either database.
type Tx interface {
	Exec(ctx context.Context, stmt string, args ...any) error
	QueryRow(ctx context.Context, stmt string, args ...any) Row
	// Query calls fn for each row of a query, inside the transaction.
	Query(ctx context.Context, stmt string, args []any, fn func(Row) error) error
}

// Row is one row of a query: *sql.Row, *sql.Rows, pgx.Row and pgx.Rows all are.
type Row interface{ Scan(dest ...any) error }

// Rows is the rows of a query as EachRow walks them: *sql.Rows and pgx.Rows both are.
type Rows interface {
	Row
	Next() bool
	Err() error
}

// EachRow calls fn for each row of rows, and returns the first error, fn's or the rows'. The
// caller closes rows.
func EachRow(rows Rows, fn func(Row) error) error {
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// execQuerier is what sqlTx runs statements on: a *sql.Tx or a *sql.Conn.
type execQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sqlTx is a Tx on a database/sql transaction.
type sqlTx struct {
	ex     execQuerier
	dollar bool
}

func (t *sqlTx) q(stmt string, args []any) string {
	if t.dollar && len(args) > 0 {
		return Dollar(stmt)
	}
	return stmt
}

func (t *sqlTx) Exec(ctx context.Context, stmt string, args ...any) error {
	_, err := t.ex.ExecContext(ctx, t.q(stmt, args), args...)
	return err
}

func (t *sqlTx) QueryRow(ctx context.Context, stmt string, args ...any) Row {
	return t.ex.QueryRowContext(ctx, t.q(stmt, args), args...)
}

func (t *sqlTx) Query(ctx context.Context, stmt string, args []any, fn func(Row) error) error {
	rows, err := t.ex.QueryContext(ctx, t.q(stmt, args), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return EachRow(rows, fn)
}

// Q rewrites a statement written with ? placeholders for the database: unchanged on SQLite,
// numbered $1, $2, … on PostgreSQL.
func (d *DB) Q(stmt string) string {
	if !d.postgres {
		return stmt
	}
	return Dollar(stmt)
}

// Dollar numbers a statement's ? placeholders $1, $2, … (PostgreSQL's). The owners' statements
// hold no ? inside a literal or a comment.
func Dollar(stmt string) string {
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

// Retryable reports whether a write transaction that failed with err should be run again from
// its start: SQLite busy or locked past the busy timeout (another process held the write lock),
// or a PostgreSQL deadlock or serialization failure, where the database broke a tie between two
// writers by failing one of them.
func Retryable(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		code := se.Code() & 0xff
		return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// ReadSnapshot runs fn in a read-only transaction that sees the database as of one instant, so
// that several reads of it agree with each other whatever another process commits meanwhile: a
// deferred transaction on SQLite (WAL keeps its snapshot from its first read to its end), a
// REPEATABLE READ one on PostgreSQL (whose default, READ COMMITTED, takes a new snapshot per
// statement). Statements take the database's own placeholders (see Q).
func (d *DB) ReadSnapshot(ctx context.Context, fn func(tx *sql.Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true} // modernc's driver begins a read-only one DEFERRED
	if d.postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := d.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// PgConn runs fn on the native pgx connection of one of the pool's connections, for what
// database/sql cannot do (COPY). fn owns the connection until it returns; a transaction it
// leaves open closes the connection rather than hand it back to the pool mid-transaction.
func (d *DB) PgConn(ctx context.Context, fn func(c *pgx.Conn) error) error {
	if !d.postgres {
		return errors.New("sqldb: PgConn on a SQLite database")
	}
	conn, err := d.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("sqldb: the PostgreSQL driver's connection is a %T, not pgx's", dc)
		}
		pc := sc.Conn()
		err := fn(pc)
		if pc.PgConn().TxStatus() != 'I' { // not idle: a transaction is open, or failed
			// closed, the pool finds it invalid (stdlib's IsValid) and drops it
			_ = pc.Close(context.WithoutCancel(ctx))
			if err == nil {
				err = errors.New("sqldb: a transaction was left open")
			}
		}
		return err
	})
}
