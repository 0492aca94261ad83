// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb and pg_ctl of the
// machine's PostgreSQL (the Debian package's /usr/lib/postgresql/N/bin, or PATH) in a temporary
// directory, listening only on a unix socket inside it, stopped and removed when the test ends.
//
// initdb refuses to run as root, so when the test runs as root the cluster is owned by, and run
// as, the `postgres` user (runuser -u postgres). A test that needs PostgreSQL fails when CI=true
// and the cluster cannot start; elsewhere it is skipped with the reason. Under go test -short
// (the fast tier) it is skipped too: a cluster takes seconds to start (up to 25 s loaded), and
// the full run and CI test every PostgreSQL case.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pricerig/pricerig/internal/testbound"
)

// Cluster is a running throwaway PostgreSQL cluster.
type Cluster struct {
	Dir  string // holds data/, the socket and the server log
	Port int    // the port number in the socket's name (no TCP listener)
	bin  string
	as   *user.User // the user the server runs as; nil when it runs as us
	dbs  atomic.Int32
}

// Start starts a cluster for t and stops it when t ends. Without PostgreSQL on the machine the
// test is skipped, or fails when CI=true; under -short it is skipped.
func Start(t testing.TB) *Cluster {
	t.Helper()
	testbound.EndToEnd(t)
	c, err := start()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is required in CI and could not start: %v", err)
		}
		t.Skipf("skipping: no throwaway PostgreSQL cluster: %v", err)
	}
	t.Cleanup(func() {
		_ = c.Stop()
		_ = os.RemoveAll(c.Dir)
	})
	return c
}

var shared struct {
	sync.Mutex
	c     *Cluster
	err   error
	tried bool
}

// Shared returns the test binary's one cluster, started on first use, for packages whose many
// tests each need only a fresh database (NewDatabase): one initdb instead of one per test. The
// package's TestMain calls StopShared after m.Run. Without PostgreSQL the test is skipped, or
// fails when CI=true.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	testbound.EndToEnd(t)
	shared.Lock()
	defer shared.Unlock()
	if !shared.tried {
		shared.tried = true
		shared.c, shared.err = start()
	}
	if shared.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is required in CI and could not start: %v", shared.err)
		}
		t.Skipf("skipping: no throwaway PostgreSQL cluster: %v", shared.err)
	}
	return shared.c
}

// StopShared stops and removes the cluster Shared started, if it did.
func StopShared() {
	shared.Lock()
	defer shared.Unlock()
	if shared.c != nil {
		_ = shared.c.Stop()
		_ = os.RemoveAll(shared.c.Dir)
		shared.c = nil
	}
}

// BinDir finds the directory of initdb and pg_ctl: $PRICERIG_PG_BIN, PATH, or the newest
// /usr/lib/postgresql/N/bin.
func BinDir() (string, error) {
	if d := os.Getenv("PRICERIG_PG_BIN"); d != "" {
		return d, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(dirs) == 0 {
		return "", fmt.Errorf("initdb is not on PATH nor in /usr/lib/postgresql/*/bin (apt-get install postgresql)")
	}
	slices.SortFunc(dirs, func(a, b string) int { return versionOf(a) - versionOf(b) })
	return filepath.Dir(dirs[len(dirs)-1]), nil
}

func versionOf(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

func start() (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(dir)
		}
	}()
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and there is no postgres user to run initdb as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		c.as = u
	}
	if c.Port, err = freePort(); err != nil {
		return nil, err
	}
	if out, err := c.command("initdb", "-D", c.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	if err := c.reapWhenGone(); err != nil {
		_ = c.Stop()
		return nil, err
	}
	ok = true
	return c, nil
}

// reapWhenGone starts a detached watcher that stops and removes the cluster once this process
// is gone, however it ends. A test binary killed by its -timeout panic or a signal runs no
// Cleanup (nor TestMain's StopShared), and pg_ctl's server, a daemon, outlives it: six did on
// one afternoon here. After a normal Stop and removal the watcher's stop and rm find nothing.
func (c *Cluster) reapWhenGone() error {
	stop := c.command("pg_ctl", "-D", c.data(), "-m", "immediate", "stop").Args
	quoted := make([]string, len(stop))
	for i, a := range stop {
		quoted[i] = shellQuote(a)
	}
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; %s >/dev/null 2>&1; rm -rf %s",
		os.Getpid(), strings.Join(quoted, " "), shellQuote(c.Dir))
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // not in the test's process group: a ^C reaches the test, which then goes
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the cluster's reaper: %w", err)
	}
	return cmd.Process.Release()
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// freePort picks a port number nobody listens on, so the socket name is unique and a restarted
// server comes back on the same one.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (c *Cluster) data() string { return filepath.Join(c.Dir, "data") }

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(c.bin, name)
	if c.as != nil {
		return exec.Command("runuser", append([]string{"-u", c.as.Username, "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

// Start starts the (stopped) server and waits until it accepts connections.
func (c *Cluster) Start() error {
	opts := fmt.Sprintf("-k %s -p %d -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100", c.Dir, c.Port)
	out, err := c.command("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.Dir, "server.log"), "-o", opts, "-w", "-t", "60", "start").CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.Dir, "server.log"))
		return fmt.Errorf("pg_ctl start: %v: %s\n%s", err, out, log)
	}
	return nil
}

// Stop stops the server at once (fast shutdown: connections are cut).
func (c *Cluster) Stop() error {
	out, err := c.command("pg_ctl", "-D", c.data(), "-m", "fast", "-w", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s", err, out)
	}
	return nil
}

// URL is the postgres:// URL of database db on the cluster's socket.
func (c *Cluster) URL(db string) string {
	q := url.Values{"host": {c.Dir}, "port": {strconv.Itoa(c.Port)}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/" + db, RawQuery: q.Encode()}).String()
}

// NewDatabase creates an empty database and returns its URL.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test%d", c.dbs.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatalf("connecting to the throwaway cluster: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating database %s: %v", name, err)
	}
	return c.URL(name)
}

// Tables lists the tables of the PostgreSQL database at url outside the system's schemas, as
// schema.table: what a test reads to see that a command made nothing there.
func Tables(t testing.TB, url string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT schemaname || '.' || tablename FROM pg_tables
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema') AND schemaname NOT LIKE 'pg_temp%' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return tables
}
