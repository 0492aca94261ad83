package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
