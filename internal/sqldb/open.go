package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/pricerig/pricerig/internal/dburl"
	"github.com/pricerig/pricerig/redact"
)

// Config is what an owner (the history store, the journal) tells Open about its database.
type Config struct {
	// What names the database at the head of its errors: "store", "journal".
	What string
	// Component is the owner's row in PostgreSQL's pricerig_schema: "history", "journal".
	Component string
	// Missing is the owner's error for a target that holds none of its database ("no pricerig
	// history store at …"), returned by an Open that may not create one.
	Missing func(target string) error
	// Migrations lists the owner's migrations for one database (postgres or SQLite), in version
	// order: the last one's version is the schema version this pricerig writes. The two lists
	// may number differently (the journal's PostgreSQL schema has a step SQLite's lacks).
	Migrations func(postgres bool) []Migration
	// Log, when set, names a table (version, name, applied) in which every migration applied is
	// recorded, in the migration's transaction.
	Log string

	SQLite   SQLiteConfig
	Postgres PostgresConfig
}

// SQLiteConfig is how each connection to a SQLite file is set up.
type SQLiteConfig struct {
	// BusyTimeout is how long a statement waits for another connection's lock (busy_timeout).
	BusyTimeout time.Duration
	// Synchronous is the synchronous pragma: NORMAL (a crash may lose the last transactions,
	// never corrupt the file) or FULL (every commit durable).
	Synchronous string
	// Immediate makes every write transaction take the write lock when it begins (BEGIN
	// IMMEDIATE), so a second process's writer waits for it under BusyTimeout instead of failing
	// when its read cannot be upgraded.
	Immediate bool
	// MaxOpenConns bounds the handle's connections.
	MaxOpenConns int
}

// PostgresConfig is how the pool of a PostgreSQL database is set up.
type PostgresConfig struct {
	MaxOpenConns int
	MaxIdleTime  time.Duration
	// AfterConnect, when set, runs on each new connection of the pool (not on the connection
	// the migrations run on, so it may rely on the owner's tables).
	AfterConnect func(ctx context.Context, c *pgx.Conn) error
	// IdleInTransaction, when set, is the pool's connections' idle_in_transaction_session_timeout:
	// the server ends a session whose transaction waits that long for the client's next
	// statement, and so frees its locks. A process frozen (SIGSTOP, a paused VM) or cut off in
	// the middle of a transaction otherwise holds its row and advisory locks for as long as its
	// TCP connection looks alive, and every other process that needs them waits with it. Set
	// it only where no transaction waits on anything but the database between its statements.
	IdleInTransaction time.Duration
}

// DB is an open database of one owner. Its *sql.DB runs the owner's statements (written with ?
// placeholders, passed through Q).
type DB struct {
	*sql.DB
	cfg      Config
	postgres bool
	target   string // the path, or the URL without its password
}

// openTimeout bounds a PostgreSQL open: connecting, reading the version, migrating. A SQLite
// open reads its version under it too, but migrates with no deadline: packing a year of legacy
// rows into day blocks (migration 3) takes as long as the file is big, and SQLite's own busy
// timeout already bounds the wait for the lock.
const openTimeout = 30 * time.Second

// Open opens the owner's database at target: a postgres:// (or postgresql://) URL opens a
// PostgreSQL database, anything else is the path of a SQLite file. With create, a missing file
// (or schema) is made and every migration the database lacks is applied. Without it, a target
// that holds none of the owner's database — a typo in a path or a URL, an empty file, a file that
// is no database, a database only the other owner uses — is refused with cfg.Missing's error and
// left exactly as it was; one of an older schema is migrated as by create. A schema newer than
// the owner's migrations is refused either way.
func Open(target string, create bool, cfg Config) (*DB, error) {
	if strings.TrimSpace(target) == "" {
		return nil, fmt.Errorf("no %s path", cfg.What)
	}
	if err := refuseKeyValue(target, cfg); err != nil {
		return nil, err
	}
	if dburl.IsPostgres(target) {
		return openPostgres(target, create, cfg)
	}
	return openSQLite(target, create, cfg)
}

// refuseKeyValue refuses a libpq key=value string (host=… password=…): read as a path it would
// make a SQLite file named after the password.
func refuseKeyValue(target string, cfg Config) error {
	if dburl.IsKeyValue(target) {
		return fmt.Errorf("%s %q: a PostgreSQL database is named by a URL (postgres://user:password@host:5432/database), not by libpq's key/value settings", cfg.What, dburl.Shown(target))
	}
	return nil
}

// Postgres reports whether the database is PostgreSQL.
func (d *DB) Postgres() bool { return d.postgres }

// Target is where the database lives, fit for output: the path, or the URL without its password.
func (d *DB) Target() string { return d.target }

// checkExisting is what a reader looks at before it opens a SQLite file, since the driver makes
// a file that does not exist: a path with nothing there is missing's error; a directory, or a
// path that cannot be looked at, is an error naming what, the owner's word for its database.
func checkExisting(what, path string, missing func(string) error) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return missing(path)
	case err != nil:
		return fmt.Errorf("%s %s: %w", what, path, err)
	case st.IsDir():
		return fmt.Errorf("%s %s is a directory", what, path)
	}
	return nil
}

func openSQLite(path string, create bool, cfg Config) (*DB, error) {
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	d, err := sqliteHandle(ctx, path, create, cfg)
	if err != nil {
		return nil, err
	}
	db := d.DB
	// no deadline: packing a big store of an older schema takes what it takes
	if err := d.migrate(context.Background(), func() (*sql.DB, error) {
		// The migrations' own handle: its transactions begin IMMEDIATE whatever the owner's
		// handle does, so the lock is taken before the version is read again.
		m, err := sql.Open("sqlite", sqliteDSN(path, false, cfg.SQLite, true))
		if err == nil {
			m.SetMaxOpenConns(1)
		}
		return m, err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s %s: %w", cfg.What, path, err)
	}
	return d, nil
}

// sqliteHandle opens the owner's handle on a SQLite file. Without create it is a reader's: a
// path with nothing there, or a file that holds none of the owner's database, is cfg.Missing's
// error and nothing is made.
func sqliteHandle(ctx context.Context, path string, create bool, cfg Config) (*DB, error) {
	// The path goes to the driver as a plain name, not a file: URI, where a '#' or '%' in a
	// directory name would be read as URI syntax and open some other file. The driver cuts its
	// own options off at the first '?', so a path holding one is refused.
	if strings.Contains(path, "?") {
		return nil, fmt.Errorf("%s %s: a '?' in the path is not supported", cfg.What, path)
	}
	if !create {
		if err := checkExisting(cfg.What, path, cfg.Missing); err != nil {
			return nil, err
		}
	}
	db, err := sql.Open("sqlite", sqliteDSN(path, create, cfg.SQLite, cfg.SQLite.Immediate))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", cfg.What, path, err)
	}
	if cfg.SQLite.MaxOpenConns > 0 {
		db.SetMaxOpenConns(cfg.SQLite.MaxOpenConns)
	}
	d := &DB{DB: db, cfg: cfg, target: path}
	if !create {
		v, err := d.Version(ctx)
		var se *sqlite.Error
		switch {
		case err == nil && v == 0:
			err = cfg.Missing(path)
		case errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB:
			err = fmt.Errorf("%w (%v)", cfg.Missing(path), err) // a file, but no database at all
		case err != nil:
			err = fmt.Errorf("%s %s: reading the schema version: %w", cfg.What, path, err)
		}
		if err != nil {
			db.Close()
			return nil, err
		}
	}
	return d, nil
}

// sqliteDSN is the driver's name for the file with the connection's pragmas. A reader leaves the
// journal mode as it finds it: a database is WAL from its making (the mode is kept in the file),
// and a file that holds none is not written to.
func sqliteDSN(path string, create bool, c SQLiteConfig, immediate bool) string {
	dsn := path + "?_pragma=busy_timeout(" + strconv.FormatInt(c.BusyTimeout.Milliseconds(), 10) + ")&_pragma=synchronous(" + c.Synchronous + ")&_pragma=foreign_keys(1)"
	if immediate {
		dsn += "&_txlock=immediate"
	}
	if create {
		dsn += "&_pragma=journal_mode(WAL)"
	}
	return dsn
}

// postgresFail is an error of the PostgreSQL database at url as it may be shown.
func postgresFail(url string, cfg Config, err error) error {
	// pgx masks a password it prints; the URL's own secrets are taken out whatever it does
	return &shownError{msg: cfg.What + " " + dburl.Shown(url) + ": " + redact.With(err.Error(), dburl.Secrets(url)), err: err}
}

// postgresHandle opens a handle of one connection on the PostgreSQL database at url. Without
// create it is a reader's: a database without the owner's schema is cfg.Missing's error and
// stays as it is.
func postgresHandle(ctx context.Context, url string, create bool, cfg Config) (*DB, *pgx.ConnConfig, error) {
	cc, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, nil, postgresFail(url, cfg, err)
	}
	setup := stdlib.OpenDB(*cc)
	setup.SetMaxOpenConns(1)
	d := &DB{DB: setup, cfg: cfg, postgres: true, target: dburl.Shown(url)}
	if !create {
		v, err := d.Version(ctx)
		if err == nil && v == 0 {
			setup.Close()
			return nil, nil, cfg.Missing(url)
		}
		if err != nil {
			setup.Close()
			return nil, nil, postgresFail(url, cfg, err)
		}
	}
	return d, cc, nil
}

func openPostgres(url string, create bool, cfg Config) (*DB, error) {
	fail := func(err error) error { return postgresFail(url, cfg, err) }
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	// The schema first, on a handle of its own: the pool's connections may set themselves up
	// from the owner's tables (AfterConnect) when they connect.
	d, cc, err := postgresHandle(ctx, url, create, cfg)
	if err != nil {
		return nil, err
	}
	setup := d.DB
	err = d.migrate(ctx, func() (*sql.DB, error) { return setup, nil })
	setup.Close()
	if err != nil {
		return nil, fail(err)
	}
	var opts []stdlib.OptionOpenDB
	if cfg.Postgres.AfterConnect != nil {
		opts = append(opts, stdlib.OptionAfterConnect(cfg.Postgres.AfterConnect))
	}
	pool := *cc
	if d := cfg.Postgres.IdleInTransaction; d > 0 {
		pool.RuntimeParams = maps.Clone(cc.RuntimeParams)
		if pool.RuntimeParams == nil {
			pool.RuntimeParams = map[string]string{}
		}
		pool.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt(d.Milliseconds(), 10)
	}
	db := stdlib.OpenDB(pool, opts...)
	if cfg.Postgres.MaxOpenConns > 0 {
		db.SetMaxOpenConns(cfg.Postgres.MaxOpenConns)
	}
	if cfg.Postgres.MaxIdleTime > 0 {
		db.SetConnMaxIdleTime(cfg.Postgres.MaxIdleTime)
	}
	d.DB = db
	return d, nil
}

// shownError is an error of a PostgreSQL database as it may be shown (the URL's password taken
// out of its text), still wrapping the driver's error for errors.Is and errors.As.
type shownError struct {
	msg string
	err error
}

func (e *shownError) Error() string { return e.msg }
func (e *shownError) Unwrap() error { return e.err }
