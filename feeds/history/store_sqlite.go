package history

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pricerig/pricerig/internal/sqldb"
)

// The SQLite store's write transactions run on the driver's own connection, not through
// database/sql. Profiles of a year's backfill (BENCHMARKS.md) showed database/sql's
// per-argument conversion and locking costing about as much as SQLite's own work of inserting
// the rows; here each value goes to the driver once, as the driver.Value it binds, and the rows
// of an upsert go out in multi-row INSERTs prepared once per transaction.

// rawDriverConn is what the raw path needs of the SQLite driver's connection.
type rawDriverConn interface {
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
}

// sqliteInTx runs a write transaction of db, whole, on a raw driver connection: BEGIN
// IMMEDIATE (the store's transactions take the write lock when they begin), fn, then the commit.
func sqliteInTx(db *sqldb.DB) func(ctx context.Context, fn func(tx wtx) error) error {
	return func(ctx context.Context, fn func(tx wtx) error) error {
		conn, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		return conn.Raw(func(dc any) error {
			c, ok := dc.(rawDriverConn)
			if !ok {
				return fmt.Errorf("the SQLite driver's connection (%T) lacks the interfaces of the raw path", dc)
			}
			dtx, err := c.BeginTx(ctx, driver.TxOptions{})
			if err != nil {
				return err
			}
			tx := &rawTx{conn: c}
			err = fn(tx)
			if cerr := tx.closeStatements(); err == nil {
				err = cerr
			}
			if err != nil {
				_ = dtx.Rollback()
				return err
			}
			return dtx.Commit()
		})
	}
}

// rawTx is a write transaction on a raw SQLite driver connection.
type rawTx struct {
	conn rawDriverConn
	open []driver.Stmt // prepared statements, closed before the commit
}

func (tx *rawTx) closeStatements() error {
	var err error
	for _, st := range tx.open {
		err = errors.Join(err, st.Close())
	}
	tx.open = nil
	return err
}

func (tx *rawTx) Exec(ctx context.Context, stmt string, args ...any) error {
	nv, err := namedValues(args)
	if err != nil {
		return err
	}
	_, err = tx.conn.ExecContext(ctx, stmt, nv)
	return err
}

func (tx *rawTx) QueryRow(ctx context.Context, stmt string, args ...any) sqldb.Row {
	nv, err := namedValues(args)
	if err != nil {
		return rawRow{err: err}
	}
	rows, err := tx.conn.QueryContext(ctx, stmt, nv)
	if err != nil {
		return rawRow{err: err}
	}
	defer rows.Close()
	vals := make([]driver.Value, len(rows.Columns()))
	switch err := rows.Next(vals); {
	case err == io.EOF:
		return rawRow{err: sql.ErrNoRows}
	case err != nil:
		return rawRow{err: err}
	}
	return rawRow{vals: vals}
}

func (tx *rawTx) Query(ctx context.Context, stmt string, args []any, fn func(sqldb.Row) error) error {
	nv, err := namedValues(args)
	if err != nil {
		return err
	}
	rows, err := tx.conn.QueryContext(ctx, stmt, nv)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]driver.Value, len(rows.Columns()))
	for {
		switch err := rows.Next(vals); {
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
		if err := fn(rawRow{vals: vals}); err != nil {
			return err
		}
	}
}

func (tx *rawTx) serialize(context.Context) error { return nil } // BEGIN IMMEDIATE

// upsert writes rows with multi-row INSERT OR REPLACE statements, which SQLite runs far faster
// than one statement per row: every full statement's worth of rows goes out in one execution
// of a statement prepared once per call.
func (tx *rawTx) upsert(ctx context.Context, tb table, rows [][]any) error {
	width := len(tb.cols)
	head := `INSERT OR REPLACE INTO ` + tb.name + ` (` + strings.Join(tb.cols, ", ") + `) VALUES`
	perStmt := valuesPerInsert / width
	args := make([]driver.NamedValue, 0, perStmt*width)
	var full driver.Stmt
	for len(rows) > 0 {
		n := min(len(rows), perStmt)
		args = args[:0]
		for _, r := range rows[:n] {
			if len(r) != width {
				return fmt.Errorf("%s: a row of %d values, not %d", tb.name, len(r), width)
			}
			for _, v := range r {
				dv, err := driverValue(v)
				if err != nil {
					return fmt.Errorf("%s: %w", tb.name, err)
				}
				args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: dv})
			}
		}
		var err error
		if n == perStmt {
			if full == nil {
				if full, err = tx.conn.PrepareContext(ctx, valuesStatement(head, width, perStmt)); err != nil {
					return err
				}
				tx.open = append(tx.open, full)
			}
			_, err = full.(driver.StmtExecContext).ExecContext(ctx, args)
		} else {
			_, err = tx.conn.ExecContext(ctx, valuesStatement(head, width, n), args)
		}
		if err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// valuesPerInsert bounds the parameters of one statement: far under SQLite's 32766, and large
// enough that a statement's fixed cost is small against its rows.
const valuesPerInsert = 3600

func valuesStatement(head string, width, rows int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", width), ",") + ")"
	return head + " " + strings.TrimSuffix(strings.Repeat(one+",", rows), ",")
}

func namedValues(args []any) ([]driver.NamedValue, error) {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		v, err := driverValue(a)
		if err != nil {
			return nil, err
		}
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out, nil
}

// driverValue is the value database/sql would hand the driver for v: the store's values are
// int64, int, bool and string, which skip the general (reflecting) converter.
func driverValue(v any) (driver.Value, error) {
	switch x := v.(type) {
	case int64, string, nil, []byte:
		return x, nil
	case int:
		return int64(x), nil
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	}
	return driver.DefaultParameterConverter.ConvertValue(v)
}

// rawRow is the first row of a query (or its error), for QueryRow, or the current row of Query.
type rawRow struct {
	vals []driver.Value
	err  error
}

func (r rawRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	if len(dest) != len(r.vals) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(r.vals))
	}
	for i, d := range dest {
		switch p := d.(type) {
		case *int64:
			n, ok := r.vals[i].(int64)
			if !ok {
				return fmt.Errorf("scan: column %d is %T, not an integer", i, r.vals[i])
			}
			*p = n
		case *int:
			n, ok := r.vals[i].(int64)
			if !ok {
				return fmt.Errorf("scan: column %d is %T, not an integer", i, r.vals[i])
			}
			*p = int(n)
		case *string:
			s, ok := r.vals[i].(string)
			if !ok {
				return fmt.Errorf("scan: column %d is %T, not text", i, r.vals[i])
			}
			*p = s
		case *[]byte:
			b, ok := r.vals[i].([]byte)
			if !ok {
				return fmt.Errorf("scan: column %d is %T, not a blob", i, r.vals[i])
			}
			*p = b // valid until the next row; storedDays copies it
		default:
			return fmt.Errorf("scan: unsupported destination %T", d)
		}
	}
	return nil
}
