package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pricerig/pricerig/internal/testbound"
)

// The cluster starts, serves a fresh database, survives a restart with its data, and is gone
// after Stop.
func TestClusterServesAndRestarts(t *testing.T) {
	c := Start(t)
	url := c.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE t (v int); INSERT INTO t VALUES (41)`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := pgx.Connect(ctx, url); err == nil {
		t.Fatal("connected to a stopped cluster")
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v int
	if err := conn.QueryRow(ctx, `SELECT v + 1 FROM t`).Scan(&v); err != nil || v != 42 {
		t.Fatalf("after restart: %d %v", v, err)
	}
	if other := c.NewDatabase(t); other == url {
		t.Fatalf("two databases share the URL %s", url)
	}
}

// A test binary that dies without its Cleanup (killed by the -timeout panic, a signal) leaves no
// cluster behind: the reaper stops the server and removes its directory once the process is gone.
func TestClusterIsReapedWhenTheTestProcessDies(t *testing.T) {
	if os.Getenv("PGTEST_DIE_AFTER_START") == "1" {
		c := Start(t)
		fmt.Printf("cluster %s %s\n", c.Dir, c.URL("postgres"))
		os.Exit(3) // no Cleanup runs
	}
	testbound.EndToEnd(t) // its child starts a cluster, which -short never does
	if _, err := BinDir(); err != nil {
		Start(t) // skips (or fails in CI) with the reason
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestClusterIsReapedWhenTheTestProcessDies$")
	cmd.Env = append(os.Environ(), "PGTEST_DIE_AFTER_START=1")
	out, _ := cmd.Output()
	var dir, url string
	if _, err := fmt.Sscanf(string(out), "cluster %s %s", &dir, &url); err != nil {
		t.Fatalf("the child printed %q: %v", out, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		_, statErr := os.Stat(dir)
		conn, err := pgx.Connect(ctx, url)
		if err == nil {
			conn.Close(ctx)
		}
		if os.IsNotExist(statErr) && err != nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the dead test's cluster is still there: dir %s (%v), server answering %v", dir, statErr, err == nil)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
