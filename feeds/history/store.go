package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/internal/dburl"
	"github.com/pricerig/pricerig/internal/sqldb"
	"github.com/pricerig/pricerig/sources"
)

// Store is an open price history, in a SQLite file or a PostgreSQL database.
type Store struct {
	db *sqldb.DB
	// inTx runs fn in one write transaction of the database and commits it: on SQLite's raw
	// driver connection (store_sqlite.go), on PostgreSQL through pgx (store_postgres.go).
	inTx func(ctx context.Context, fn func(tx wtx) error) error
}

// wtx is a write transaction of either database: statements with ? placeholders, and the two
// things the databases do differently.
type wtx interface {
	sqldb.Tx
	// serialize makes the transaction the only writer of day blocks until it ends (SQLite's
	// transactions already are: they begin IMMEDIATE), so its read, merge and write of a block
	// loses no other writer's bars.
	serialize(ctx context.Context) error
	// upsert writes rows (values in t's column order) into t, replacing the rows with the same
	// key: multi-row INSERTs on SQLite, COPY into a staging table then one INSERT … ON CONFLICT
	// on PostgreSQL. Of rows sharing a key the last one wins.
	upsert(ctx context.Context, t table, rows [][]any) error
}

// Open opens the store at target, creating it and applying any migration it lacks: a
// postgres:// (or postgresql://) URL opens a PostgreSQL database, anything else is the path of a
// SQLite file. Open is for the store's writers (the backfill); a command that only reads the
// history opens it with OpenExisting.
func Open(target string) (*Store, error) { return open(target, true) }

// OpenExisting opens the store at target for a command that only reads it (`price --db`,
// export, the audit, the rig's answers from the history): a path or a database that holds no
// store — a typo in a path or a URL, an empty file, a database only the rig's journal uses — is
// refused with an error that wraps ErrNoStore, and nothing is made there: no file, no table.
// A store of an older schema is migrated as Open migrates it; one of a newer schema is refused,
// as by Open.
func OpenExisting(target string) (*Store, error) { return open(target, false) }

// Inspect looks at the store at target and changes nothing (pricerig doctor): a path or database
// that holds none is an error wrapping ErrNoStore, with nothing made; one of another version is
// reported, not migrated; the write it tries is rolled back (sqldb.Inspect).
func Inspect(ctx context.Context, target string) (sqldb.Inspection, error) {
	d, in, err := sqldb.Inspect(ctx, target, config)
	if err != nil {
		return in, err
	}
	return in, d.Close()
}

// ErrNoStore is what OpenExisting's error wraps when its target holds no pricerig history store.
var ErrNoStore = errors.New("no pricerig history store")

// NoStoreAt is the error for a target that holds no store, shown without its password.
func NoStoreAt(target string) error {
	return fmt.Errorf("%w at %s: `pricerig backfill --db` makes one", ErrNoStore, dburl.Shown(target))
}

// config is the store's database as internal/sqldb opens it.
var config = sqldb.Config{
	What: "store", Component: "history", Missing: NoStoreAt, Migrations: Migrations, Log: "schema_migrations",
	// WAL lets the audit and `price --db` read while a backfill writes. synchronous=NORMAL is
	// safe in WAL mode: a crash can lose the last transactions, never corrupt the file, and
	// coverage is written in the same transaction as its bars, so a lost window is fetched again.
	// Every transaction takes the write lock when it begins, so a second process waits for it
	// (busy_timeout) instead of failing when a read transaction cannot be upgraded — the
	// "database is locked" of two backfills at once. Four connections: a streaming read and a
	// write transaction at the same time.
	SQLite: sqldb.SQLiteConfig{BusyTimeout: 10 * time.Second, Synchronous: "NORMAL", Immediate: true, MaxOpenConns: 4},
	// Streaming reads beside the writes; each connection makes the staging tables COPY loads
	// into when it connects. A write holds the store's advisory locks (quota, days) to its end
	// and waits on nothing but the database between its statements, so one idle for ten
	// seconds is a frozen or cut-off process: the server ends it and every other process's
	// quota and writes go on (see sqldb.PostgresConfig.IdleInTransaction).
	Postgres: sqldb.PostgresConfig{MaxOpenConns: 6, MaxIdleTime: time.Minute, AfterConnect: makeStagingTables, IdleInTransaction: 10 * time.Second},
}

func open(target string, create bool) (*Store, error) {
	db, err := sqldb.Open(target, create, config)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, inTx: sqliteInTx(db)}
	if db.Postgres() {
		s.inTx = pgInTx(db)
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Path is the file the store was opened from, or its URL without the password: fit for output.
func (s *Store) Path() string { return s.db.Target() }

// Postgres reports whether the store is a PostgreSQL database.
func (s *Store) Postgres() bool { return s.db.Postgres() }

// DB gives read access to the tables for tools that query them directly (the audit). Writes
// must go through the Store. Statements for it take the database's own placeholders (see Q).
func (s *Store) DB() *sql.DB { return s.db.DB }

// Q rewrites a statement written with ? placeholders for the store's database.
func (s *Store) Q(stmt string) string { return s.db.Q(stmt) }

// Version reads the schema version of the open store.
func (s *Store) Version(ctx context.Context) (int, error) { return s.db.Version(ctx) }

// writeAttempts is how many times a write is tried when another process holds the store's write
// lock past the busy timeout (10 s each) or a PostgreSQL writer deadlocked with another: a long
// reconcile of the other backfill is waited out for a minute before the write gives up.
const writeAttempts = 6

// write runs fn in one write transaction and commits it. When the store is busy — another
// process holds the write lock longer than the busy timeout, or two PostgreSQL writers
// deadlocked — the whole transaction is tried again from the start, a few times.
func (s *Store) write(ctx context.Context, fn func(tx wtx) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = s.inTx(ctx, fn)
		if err == nil || !sqldb.Retryable(err) || attempt == writeAttempts || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
		}
	}
}

func unix(s int64) time.Time { return time.Unix(s, 0).UTC() }

// ceilUnix is the first whole second at or after t.
func ceilUnix(t time.Time) int64 { return sources.CeilUnix(t) }
