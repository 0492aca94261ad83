package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteBackend is the store in one SQLite file.
type sqliteBackend struct{ db *sql.DB }

func openSQLite(path string, create bool) (*Store, error) {
	// WAL lets the audit and `price --db` read while a backfill writes. synchronous=NORMAL is
	// safe in WAL mode: a crash can lose the last transactions, never corrupt the file, and
	// coverage is written in the same transaction as its bars, so a lost window is fetched again.
	//
	// The path goes to the driver as a plain name, not a file: URI, where a '#' or '%' in a
	// directory name would be read as URI syntax and open some other file. The driver cuts its
	// own options off at the first '?', so a path holding one is refused.
	if strings.Contains(path, "?") {
		return nil, fmt.Errorf("store %s: a '?' in the path is not supported", path)
	}
	if !create {
		// The driver makes a file that does not exist: a reader looks first.
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, NoStoreAt(path)
		case err != nil:
			return nil, fmt.Errorf("store %s: %w", path, err)
		case st.IsDir():
			return nil, fmt.Errorf("store %s is a directory", path)
		}
	}
	// _txlock=immediate: every transaction takes the write lock when it begins (BEGIN
	// IMMEDIATE), so a second process waits for it (busy_timeout) instead of failing when a
	// read transaction cannot be upgraded — the "database is locked" of two backfills at once.
	dsn := path + "?_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	if create {
		// A reader leaves the journal mode as it finds it: a store is WAL from its making (the
		// mode is kept in the file), and a file that holds no store is not written to.
		dsn += "&_pragma=journal_mode(WAL)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	db.SetMaxOpenConns(4) // a streaming read and a write transaction at the same time
	s := &Store{db: db, be: &sqliteBackend{db: db}, target: path}
	if !create {
		v, err := s.Version(context.Background())
		if err == nil && v == 0 {
			err = NoStoreAt(path)
		}
		var se *sqlite.Error
		if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB {
			err = fmt.Errorf("%w (%v)", NoStoreAt(path), err) // a file, but no database at all
		}
		if err != nil {
			db.Close()
			if errors.Is(err, ErrNoStore) {
				return nil, err
			}
			return nil, fmt.Errorf("store %s: reading the schema version: %w", path, err)
		}
	}
	if err := s.migrateSQLite(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return s, nil
}

func (b *sqliteBackend) close() error { return nil } // the Store closes db

func (b *sqliteBackend) version(ctx context.Context) (int, error) {
	var v int
	err := b.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}

// migrateSQLite brings the schema to SchemaVersion. A store already there is only read, so
// readers (`price --db`, the audit) never wait for a writer. Otherwise every missing migration
// runs in one transaction that holds the write lock from its start (BEGIN IMMEDIATE) and reads
// the version again under it: of two processes opening a new file at once, the second waits,
// then finds the schema in place and applies nothing.
func (s *Store) migrateSQLite(ctx context.Context) error {
	v, err := s.Version(ctx)
	if err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if v == SchemaVersion {
		return nil
	}
	if v > SchemaVersion {
		return newerSchema(v)
	}
	return s.write(ctx, func(tx wtx) error {
		if err := tx.queryRow(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
			return fmt.Errorf("reading the schema version: %w", err)
		}
		if v > SchemaVersion {
			return newerSchema(v)
		}
		if err := tx.exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)`); err != nil {
			return err
		}
		for _, m := range migrations {
			if m.version <= v {
				continue
			}
			if err := tx.exec(ctx, m.sqlite); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
			}
			if m.data != nil {
				if err := m.data(ctx, tx); err != nil {
					return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
				}
			}
			if m.postSQLite != "" {
				if err := tx.exec(ctx, m.postSQLite); err != nil {
					return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
				}
			}
			if err := tx.exec(ctx, `INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)`,
				m.version, m.name, time.Now().UTC().Format(time.RFC3339)); err != nil {
				return err
			}
			if err := tx.exec(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, m.version)); err != nil {
				return err
			}
		}
		return nil
	})
}

func (b *sqliteBackend) begin(ctx context.Context) (wtx, error) {
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return sqliteTx{tx}, nil
}

// retryable reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED (any extended code).
func (b *sqliteBackend) retryable(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

type sqliteTx struct{ tx *sql.Tx }

func (t sqliteTx) exec(ctx context.Context, stmt string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, stmt, args...)
	return err
}

func (t sqliteTx) queryRow(ctx context.Context, stmt string, args ...any) scanner {
	return t.tx.QueryRowContext(ctx, stmt, args...)
}

func (t sqliteTx) queryRows(ctx context.Context, stmt string, args []any, fn func(scanner) error) error {
	rows, err := t.tx.QueryContext(ctx, stmt, args...)
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

func (t sqliteTx) serialize(context.Context) error { return nil } // BEGIN IMMEDIATE

func (t sqliteTx) upsert(ctx context.Context, tb table, rows [][]any) error {
	return insertRows(ctx, t.tx, `INSERT OR REPLACE INTO `+tb.name+` (`+strings.Join(tb.cols, ", ")+`) VALUES`, len(tb.cols), rows)
}

func (t sqliteTx) commit(context.Context) error   { return t.tx.Commit() }
func (t sqliteTx) rollback(context.Context) error { return t.tx.Rollback() }

// insertRows writes rows with multi-row INSERT statements, which SQLite runs far faster than
// one statement per row. head is "INSERT … VALUES", width the number of columns.
func insertRows(ctx context.Context, tx *sql.Tx, head string, width int, rows [][]any) error {
	const perStmt = 200 // 200 × 10 columns stays well under SQLite's 32766 variables
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", width), ",") + ")"
	build := func(n int) string {
		return head + " " + strings.TrimSuffix(strings.Repeat(one+",", n), ",")
	}
	args := make([]any, 0, perStmt*width)
	for len(rows) > 0 {
		n := min(len(rows), perStmt)
		args = args[:0]
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		var err error
		if n == perStmt {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, build(perStmt)); err != nil {
					return err
				}
			}
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, build(n), args...)
		}
		if err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}
