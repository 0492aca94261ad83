package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/internal/pgtest"
)

// readerCommands are the commands that only read the history (--db) or the rig's journal
// (--journal) at target, each with what its refusal names. price and audit keep their bars in
// the --db they name, made if missing (TestPricingCommandsKeepTheirBarsInTheirDB).
func readerCommands(url, config, target string) []struct {
	args []string
	want string
} {
	const noStore, noJournal = "--db: no pricerig history store at ", "--journal: no pricerig rig journal at "
	return []struct {
		args []string
		want string
	}{
		{[]string{"backfill", "export", "--db", target, "--format", "parquet"}, noStore},
		{[]string{"audit", "--config", config, "--sim", url, "--journal", target, "--minutes", "1"}, noJournal},
	}
}

// A read-only command pointed at a path with no store — a typo, an empty file, a file that is no
// database — says there is no pricerig store there (exit 2) and leaves the directory as it was:
// no file made, nothing written into the files that were there.
func TestReadersMakeNoStoreInAFile(t *testing.T) {
	_, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(junk, []byte("not a database\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{filepath.Join(dir, "typo.db"), empty, junk} {
		for _, c := range readerCommands(url, config, target) {
			code, stdout, stderr := runCLI(t, c.args...)
			if code != exitBadInput || !strings.Contains(stderr, c.want+target) || stdout != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q: want 2 and %q", c.args, code, stdout, stderr, c.want+target)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"empty.db", "notes.txt"}) {
		t.Fatalf("the refused commands left %v, want only the two files", names)
	}
	if st, err := os.Stat(empty); err != nil || st.Size() != 0 {
		t.Fatalf("the empty file was written to (%v)", err)
	}
	if b, err := os.ReadFile(junk); err != nil || string(b) != "not a database\n" {
		t.Fatalf("the file that is no database was written to: %q (%v)", b, err)
	}
}

// The same on PostgreSQL: a database that holds no store (a typo in the URL's database name
// that names an existing one, a database only made) is refused by every reader, named without
// the URL's password, and holds no table afterwards; the backfill, a writer, still makes the
// store there, and the readers then read it.
func TestReadersMakeNoStoreInPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	cluster := pgtest.Shared(t) // a database of its own on the package's one cluster
	_, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	const password = "pg-rEaDeR-5531"
	plain := cluster.NewDatabase(t)
	// the throwaway cluster trusts local connections: the password is sent, never checked
	target := strings.Replace(plain, "postgres://postgres@", "postgres://postgres:"+password+"@", 1)
	if target == plain {
		t.Fatalf("cannot put a password into %s", plain)
	}
	for _, c := range readerCommands(url, config, target) {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != exitBadInput || !strings.Contains(stderr, c.want+"postgres://") || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
		if strings.Contains(stderr, password) {
			t.Errorf("%v shows the password: %s", c.args, stderr)
		}
	}
	if tables := pgtest.Tables(t, plain); len(tables) != 0 {
		t.Fatalf("the refused commands made tables %v", tables)
	}

	code, _, stderr := runCLI(t, "backfill", "--config", config, "--sim", url, "--from", "2025-11-03", "--to", "2025-11-03",
		"--symbols", "NVDA", "--db", target, "--progress", "off")
	if code != exitOK {
		t.Fatalf("backfill: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "backfill", "export", "--db", target, "--format", "csv")
	if code != exitOK || !strings.Contains(stdout, "\nNVDA,2025-11-03T14:30:00Z,") {
		t.Fatalf("export after the backfill: exit %d\n%s\n%s", code, stderr, stdout)
	}
}

// price and audit keep every bar they fetch in the store --db names, made if missing: a second
// price of the same date asks no source. A --db whose directory does not exist (a typo) is
// refused and nothing is made; a file that is no store is refused and left as it was.
func TestPricingCommandsKeepTheirBarsInTheirDB(t *testing.T) {
	srv, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	db := filepath.Join(dir, "bars.db")
	code, _, stderr := runCLI(t, "price", "--config", config, "--sim", url, "--db", db, "--json", "NVDA", "2025-11-03T14:30Z")
	if code != exitOK {
		t.Fatalf("price --db: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("price made no store: %v", err)
	}
	before := simRequests(srv)
	for _, minute := range []string{"2025-11-03T15:47Z", "2025-11-03T20:12Z"} {
		code, _, stderr := runCLI(t, "price", "--config", config, "--sim", url, "--db", db, "--json", "NVDA", minute)
		if code != exitOK {
			t.Fatalf("price %s: exit %d: %s", minute, code, stderr)
		}
	}
	if n := simRequests(srv) - before; n != 0 {
		t.Errorf("two more minutes of the date cost %d requests, want none", n)
	}

	junk := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(junk, []byte("not a database\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nodir", "bars.db")
	for _, c := range []struct{ db, want string }{{missing, "does not exist"}, {junk, "not a database"}, {dir, "is a directory"}} {
		for _, args := range [][]string{
			{"price", "--config", config, "--sim", url, "--db", c.db, "NVDA", "2025-11-03T14:30Z"},
			{"audit", "--config", config, "--sim", url, "--db", c.db, "--minutes", "1"},
		} {
			code, stdout, stderr := runCLI(t, args...)
			if code != exitBadInput || !strings.Contains(stderr, c.want) || stdout != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q: want 2 and %q", args, code, stdout, stderr, c.want)
			}
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Error("a --db in a directory that does not exist made the directory")
	}
	if b, err := os.ReadFile(junk); err != nil || string(b) != "not a database\n" {
		t.Errorf("the file that is no database was written to: %q (%v)", b, err)
	}
}

// Without --db, price keeps its bars in the per-user cache ($XDG_CACHE_HOME/pricerig/), and
// --no-cache keeps none.
func TestPriceKeepsItsBarsInThePerUserCache(t *testing.T) {
	srv, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	cache := filepath.Join(t.TempDir(), "pricerig", cacheFile)
	old := userCache
	userCache = func() (string, error) { return cache, nil }
	t.Cleanup(func() { userCache = old })
	price := func(extra ...string) int {
		t.Helper()
		before := simRequests(srv)
		args := append([]string{"price", "--config", config, "--sim", url, "--json"}, extra...)
		code, _, stderr := runCLI(t, append(args, "TSLA", "2025-11-03T14:30Z")...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return simRequests(srv) - before
	}
	if n := price(); n == 0 {
		t.Fatal("the first price asked no source")
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("no cache store at %s: %v", cache, err)
	}
	if n := price(); n != 0 {
		t.Errorf("the same minute again cost %d requests", n)
	}
	if n := price("--no-cache"); n == 0 {
		t.Error("--no-cache asked no source")
	}
}
