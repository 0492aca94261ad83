package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pricerig/pricerig/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

var errNone = errors.New("no test database")

// testConfig is an owner of two migrations, the second with a Go data step, recorded in a log.
func testConfig(component string) Config {
	return Config{
		What: "test db", Component: component, Log: component + "_migrations",
		Missing: func(target string) error { return fmt.Errorf("%w at %s", errNone, target) },
		Migrations: func(postgres bool) []Migration {
			return []Migration{
				{Version: 1, Name: "items", SQL: `CREATE TABLE ` + component + `_items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`},
				{Version: 2, Name: "seed", SQL: `CREATE TABLE ` + component + `_counts (n INTEGER NOT NULL)`,
					Data: func(ctx context.Context, tx Tx) error {
						return tx.Exec(ctx, `INSERT INTO `+component+`_counts (n) VALUES (?)`, 7)
					}},
			}
		},
		SQLite:   SQLiteConfig{BusyTimeout: 10 * time.Second, Synchronous: "NORMAL", Immediate: true, MaxOpenConns: 4},
		Postgres: PostgresConfig{MaxOpenConns: 4},
	}
}

type backend string

func eachBackend(t *testing.T, fn func(t *testing.T, be backend)) {
	for _, be := range []backend{"sqlite", "postgres"} {
		t.Run(string(be), func(t *testing.T) { fn(t, be) })
	}
}

func (be backend) target(t *testing.T) string {
	if be == "postgres" {
		return pgtest.Shared(t).NewDatabase(t)
	}
	return filepath.Join(t.TempDir(), "test.db")
}

// Several opens of a new database at once (each its own handle, as processes are) all succeed,
// and the migrations ran once: the log holds each once, the data step's row is there once.
func TestConcurrentOpensMigrateOnce(t *testing.T) { eachBackend(t, testConcurrentOpensMigrateOnce) }

func testConcurrentOpensMigrateOnce(t *testing.T, be backend) {
	target := be.target(t)
	const n = 6
	dbs := make([]*DB, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); dbs[i], errs[i] = Open(target, true, testConfig("a")) }()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("open %d: %v", i, errs[i])
		}
		defer dbs[i].Close()
	}
	d := dbs[0]
	var logged, seeded int
	if err := d.QueryRow(`SELECT count(*) FROM a_migrations`).Scan(&logged); err != nil || logged != 2 {
		t.Errorf("the log holds %d migrations (%v), want 2", logged, err)
	}
	if err := d.QueryRow(`SELECT count(*) FROM a_counts`).Scan(&seeded); err != nil || seeded != 1 {
		t.Errorf("the data step ran %d times (%v), want once", seeded, err)
	}
	if v, err := d.Version(context.Background()); err != nil || v != 2 {
		t.Errorf("version %d (%v), want 2", v, err)
	}
	if _, err := d.Exec(d.Q(`INSERT INTO a_items (id, name) VALUES (?, ?)`), 1, "x"); err != nil {
		t.Errorf("a statement through Q: %v", err)
	}
}

// Without create, a target that holds none of the owner's database is refused with the owner's
// error and left as it was; the other owner's database beside it (PostgreSQL) is not this one's.
func TestOpenExistingRefusesAndMakesNothing(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	notADB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notADB, []byte(strings.Repeat("not a database\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{filepath.Join(dir, "typo.db"), empty, notADB} {
		_, err := Open(target, false, testConfig("a"))
		if !errors.Is(err, errNone) || !strings.Contains(err.Error(), "no test database at "+target) {
			t.Errorf("Open(%s): %v, want the owner's error", target, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "typo.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a reader made the file it did not find: %v", err)
	}
	if st, err := os.Stat(empty); err != nil || st.Size() != 0 {
		t.Errorf("a reader wrote to the empty file: %v", err)
	}
	if _, err := Open(dir, false, testConfig("a")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "a?b.db"), true, testConfig("a")); err == nil || !strings.Contains(err.Error(), "'?'") {
		t.Errorf("a '?' in the path: %v", err)
	}

	url := pgtest.Shared(t).NewDatabase(t)
	other, err := Open(url, true, testConfig("b")) // the other owner's schema only
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	if _, err := Open(url, false, testConfig("a")); !errors.Is(err, errNone) {
		t.Fatalf("a database of the other owner only: %v", err)
	}
	a, err := Open(url, true, testConfig("a"))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	a, err = Open(url, false, testConfig("a"))
	if err != nil {
		t.Fatalf("once made, it opens: %v", err)
	}
	a.Close()
}

// A schema newer than the owner's migrations is refused to a reader and a writer alike.
func TestNewerSchemaIsRefused(t *testing.T) { eachBackend(t, testNewerSchemaIsRefused) }

func testNewerSchemaIsRefused(t *testing.T, be backend) {
	target := be.target(t)
	d, err := Open(target, true, testConfig("a"))
	if err != nil {
		t.Fatal(err)
	}
	bump := `PRAGMA user_version = 3`
	if be == "postgres" {
		bump = `UPDATE pricerig_schema SET version = 3 WHERE component = 'a'`
	}
	if _, err := d.Exec(bump); err != nil {
		t.Fatal(err)
	}
	d.Close()
	for _, create := range []bool{true, false} {
		_, err := Open(target, create, testConfig("a"))
		var ne *NewerSchemaError
		if !errors.As(err, &ne) || ne.Version != 3 || ne.Newest != 2 {
			t.Errorf("create=%v: %v, want a NewerSchemaError 3 > 2", create, err)
		}
	}
}

// Two reads in one ReadSnapshot agree although a write committed between them: the second does
// not see it. Outside a snapshot (the reads the planner used to make) it does.
func TestReadSnapshotSeesOneInstant(t *testing.T) { eachBackend(t, testReadSnapshotSeesOneInstant) }

func testReadSnapshotSeesOneInstant(t *testing.T, be backend) {
	ctx := context.Background()
	d, err := Open(be.target(t), true, testConfig("a"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var first, second int
	err = d.ReadSnapshot(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM a_items`).Scan(&first); err != nil {
			return err
		}
		if _, err := d.ExecContext(ctx, d.Q(`INSERT INTO a_items (id, name) VALUES (?, ?)`), 1, "between"); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT count(*) FROM a_items`).Scan(&second)
	})
	if err != nil {
		t.Fatal(err)
	}
	if first != 0 || second != 0 {
		t.Errorf("the snapshot read %d then %d items, want 0 both times", first, second)
	}
	var after int
	if err := d.QueryRow(`SELECT count(*) FROM a_items`).Scan(&after); err != nil || after != 1 {
		t.Errorf("after the snapshot: %d items (%v), want 1", after, err)
	}
}

// PgConn hands out a pool connection's pgx handle; one left in a transaction is not handed out
// again.
func TestPgConnDropsAConnectionLeftInATransaction(t *testing.T) {
	ctx := context.Background()
	d, err := Open(pgtest.Shared(t).NewDatabase(t), true, testConfig("a"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.SetMaxOpenConns(1)
	var pid uint32
	err = d.PgConn(ctx, func(c *pgx.Conn) error {
		pid = c.PgConn().PID()
		_, err := c.Exec(ctx, `BEGIN`)
		return err
	})
	if err == nil {
		t.Error("a transaction left open was not reported")
	}
	err = d.PgConn(ctx, func(c *pgx.Conn) error {
		if c.PgConn().PID() == pid {
			return errors.New("the connection left in a transaction was handed out again")
		}
		var n int
		return c.QueryRow(ctx, `SELECT count(*) FROM a_items`).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDollar(t *testing.T) {
	if got := Dollar(`SELECT a FROM t WHERE b = ? AND c IN (?, ?)`); got != `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)` {
		t.Errorf("Dollar: %s", got)
	}
}
