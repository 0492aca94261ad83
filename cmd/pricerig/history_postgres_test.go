package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/internal/pgtest"
)

// The price history on PostgreSQL, through the commands: two backfill processes on one database
// at once end with the rows one run alone writes, on PostgreSQL as on SQLite; export gives the
// same bytes from either database in every format; price --db and audit --db read it; and the
// URL's password appears in no output.
func TestHistoryOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and four pricerig processes")
	}
	cluster := pgtest.Shared(t) // a database of its own on the package's one cluster
	url, config := processSim(t)
	const password = "pg-sEcReT-7311"
	withPassword := func(u string) string {
		// the throwaway cluster trusts local connections: the password is sent, never checked
		p := strings.Replace(u, "postgres://postgres@", "postgres://postgres:"+password+"@", 1)
		if p == u {
			t.Fatalf("cannot put a password into %s", u)
		}
		return p
	}
	shared, alonePG := withPassword(cluster.NewDatabase(t)), withPassword(cluster.NewDatabase(t))
	aloneSQLite := filepath.Join(t.TempDir(), "alone.db")
	args := func(db string) []string {
		return []string{"backfill", "--config", config, "--sim", url, "--from", "2026-10-05", "--to", "2026-10-06", "--db", db, "--progress", "off"}
	}
	noPassword := func(what string, outs ...string) {
		t.Helper()
		for _, o := range outs {
			if strings.Contains(o, password) {
				t.Errorf("%s shows the database password:\n%s", what, o)
			}
		}
	}
	procs := []*proc{startPricerig(t, args(shared)...), startPricerig(t, args(shared)...),
		startPricerig(t, args(alonePG)...), startPricerig(t, args(aloneSQLite)...)}
	var wg sync.WaitGroup
	codes := make([]int, len(procs))
	for i, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); codes[i] = p.wait(t, 5*time.Minute) }()
	}
	wg.Wait()
	for i, p := range procs {
		if codes[i] != exitOK {
			t.Errorf("backfill %d: exit %d\n%s", i+1, codes[i], p.stderr.String())
		}
		noPassword("backfill", p.out.String(), p.stderr.String())
	}
	if t.Failed() {
		return
	}
	want := dumpStore(t, aloneSQLite)
	for name, db := range map[string]string{"two processes on one PostgreSQL database": shared, "one run on PostgreSQL": alonePG} {
		if got := dumpStore(t, db); got != want {
			gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Fatalf("%s: differs from the lone SQLite run at row %d:\n got %s\nwant %s", name, i, gl[i], wl[i])
				}
			}
			t.Fatalf("%s: %d rows, the lone SQLite run %d", name, len(gl), len(wl))
		}
	}

	// export: the same bytes from either database
	dir := t.TempDir()
	for _, format := range []string{"csv", "jsonl", "parquet"} {
		var outs [2][]byte
		for i, db := range []string{shared, aloneSQLite} {
			file := filepath.Join(dir, format+string(rune('a'+i)))
			code, stdout, stderr := runCLI(t, "backfill", "export", "--db", db, "--format", format, "--out", file)
			if code != exitOK {
				t.Fatalf("export %s from %s: exit %d\n%s", format, db, code, stderr)
			}
			noPassword("export", stdout, stderr)
			var err error
			if outs[i], err = os.ReadFile(file); err != nil {
				t.Fatal(err)
			}
		}
		if len(outs[0]) < 1000 || !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%s export: %d bytes from PostgreSQL, %d from SQLite, equal %v", format, len(outs[0]), len(outs[1]), bytes.Equal(outs[0], outs[1]))
		}
	}

	// price --db answers from the database, and says so without the password
	code, stdout, stderr := runCLI(t, "price", "--config", config, "--sim", url, "--db", shared, "--json", "NVDA", "2026-10-05T14:30Z")
	if code != exitOK {
		t.Fatalf("price --db: exit %d\n%s", code, stderr)
	}
	noPassword("price --db", stdout, stderr)
	var priced struct {
		Store string `json:"store"`
		Price string `json:"price"`
	}
	if err := json.Unmarshal([]byte(stdout), &priced); err != nil || priced.Price == "" || !strings.HasPrefix(priced.Store, "postgres://") {
		t.Errorf("price --db: %v\n%s", err, stdout)
	}
	// audit --db checks the database for gaps (findings or none, but it ran)
	code, stdout, stderr = runCLI(t, "audit", "--config", config, "--sim", url, "--db", shared, "--minutes", "1", "--json")
	if code == exitBadInput {
		t.Fatalf("audit --db: exit %d\n%s", code, stderr)
	}
	noPassword("audit --db", stdout, stderr)
	// a database that cannot be reached is a clear error, without the password
	down := withPassword("postgres://postgres@127.0.0.1:1/nothing?sslmode=disable&connect_timeout=2")
	code, stdout, stderr = runCLI(t, "backfill", "export", "--db", down, "--format", "csv")
	if code == exitOK || !strings.Contains(stderr, "127.0.0.1") {
		t.Errorf("export from a database that is down: exit %d\n%s", code, stderr)
	}
	noPassword("export from a database that is down", stdout, stderr)
}
