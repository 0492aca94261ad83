package doctor

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/pgtest"
	"github.com/pricerig/pricerig/rig/journal"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// storesOnly runs the doctor on the journal and the store alone (a spec whose one source has no
// key asks nobody).
func storesOnly(t *testing.T, journalTarget, storeTarget string) Report {
	t.Helper()
	env := newSimEnv(t, tuesday)
	return env.run(t, Options{Spec: env.spec(t, []string{"finnhub"}, "FINNHUB_API_KEY"), Journal: journalTarget, Store: storeTarget})
}

// A current journal and store are ok, and the report is kept in the journal for the operator's
// page; nothing else in them changes.
func TestJournalAndStoreCurrent(t *testing.T) {
	dir := t.TempDir()
	jpath, spath := filepath.Join(dir, "rig.db"), filepath.Join(dir, "prices.db")
	j, err := journal.OpenJournal(jpath)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	s, err := history.Open(spath)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	rep := storesOnly(t, jpath, spath)
	if got := verdicts(rep); got["journal "+jpath] != "ok " || got["store "+spath] != "ok " {
		t.Fatalf("checks %v", got)
	}
	if !strings.HasPrefix(rep.Kept, "kept in the journal") {
		t.Fatalf("kept: %q", rep.Kept)
	}
	j, err = journal.OpenExistingJournal(jpath)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	at, b, ok, err := j.LastDoctor(context.Background())
	if err != nil || !ok || !at.Equal(tuesday) {
		t.Fatalf("last doctor report at %s ok=%v err=%v", at, ok, err)
	}
	var kept struct {
		Exit   int     `json:"exit"`
		Checks []Check `json:"checks"`
	}
	if err := json.Unmarshal(b, &kept); err != nil || kept.Exit != 1 || len(kept.Checks) != len(rep.Checks) {
		t.Fatalf("kept report %s (%v)", b, err)
	}
}

// A journal of an older schema is a warning that it will migrate, and is left as it is (the report
// is not kept in it); a newer store fails; nothing at --journal is a warning (the rig makes it),
// nothing at --db a failure (the rig refuses a missing store).
func TestJournalAndStoreSchemas(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.db")
	j, err := journal.OpenJournal(old)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	setVersion(t, old, 5)
	newer := filepath.Join(dir, "newer.db")
	s, err := history.Open(newer)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	setVersion(t, newer, history.SchemaVersion+1)

	rep := storesOnly(t, old, newer)
	jl, sl := one(t, rep, "journal", old), one(t, rep, "store", newer)
	if jl.Verdict != Warn || jl.Problem != SchemaOlder || !strings.Contains(jl.Detail, "will migrate") {
		t.Errorf("older journal: %+v", jl)
	}
	if sl.Verdict != Fail || sl.Problem != SchemaNewer {
		t.Errorf("newer store: %+v", sl)
	}
	if v := version(t, old); v != 5 {
		t.Errorf("the older journal is at version %d after the doctor, want 5", v)
	}
	if !strings.HasPrefix(rep.Kept, "not kept") {
		t.Errorf("kept %q in an older journal", rep.Kept)
	}

	rep = storesOnly(t, filepath.Join(dir, "new-rig.db"), filepath.Join(dir, "typo.db"))
	if c := one(t, rep, "journal", filepath.Join(dir, "new-rig.db")); c.Verdict != Warn || c.Problem != NoJournal {
		t.Errorf("no journal: %+v", c)
	}
	if c := one(t, rep, "store", filepath.Join(dir, "typo.db")); c.Verdict != Fail || c.Problem != NoStore {
		t.Errorf("no store: %+v", c)
	}
	for _, name := range []string{"new-rig.db", "typo.db"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("the doctor made %s", name)
		}
	}
	if c := one(t, storesOnly(t, filepath.Join(dir, "nowhere", "rig.db"), ""), "journal", ""); c.Verdict != Fail || c.Problem != NoJournal {
		t.Errorf("a journal in a folder that does not exist: %+v", c)
	}
}

// On a shared PostgreSQL journal each lease is named: a live one with its holder, an expired one
// as no instance leading.
func TestLeases(t *testing.T) {
	url := pgtest.Shared(t).NewDatabase(t)
	j, err := journal.OpenJournal(url)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()
	if _, err := j.AcquireLease(ctx, "job2@a", "host-a/1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := j.AcquireLease(ctx, "job2@b", "host-b/2", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := j.ReleaseLease(ctx, journal.Fence{Name: "job2@b", Holder: "host-b/2", Epoch: 1}); err != nil {
		t.Fatal(err)
	}
	rep := storesOnly(t, url, "")
	if c := one(t, rep, "lease", "job2@a"); c.Verdict != OK || !strings.Contains(c.Detail, "held by host-a/1 in epoch 1") {
		t.Errorf("live lease: %+v", c)
	}
	if c := one(t, rep, "lease", "job2@b"); c.Verdict != Warn || c.Problem != LeaseExpired || !strings.Contains(c.Detail, "host-b/2") {
		t.Errorf("released lease: %+v", c)
	}
	if c := one(t, rep, "journal", ""); c.Verdict != OK || !strings.Contains(c.Detail, "PostgreSQL") || strings.Contains(c.Subject, "password") {
		t.Errorf("journal: %+v", c)
	}
}

func setVersion(t *testing.T, path string, v int) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`PRAGMA user_version = ` + strconv.Itoa(v)); err != nil {
		t.Fatal(err)
	}
}

func version(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A role that may read the journal but not make a table in its schema (PostgreSQL 15 grants
// CREATE on public to its owner alone) is not_writable: the next migration would fail there.
func TestJournalNotWritable(t *testing.T) {
	url := pgtest.Shared(t).NewDatabase(t)
	j, err := journal.OpenJournal(url)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{
		`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'viewer') THEN CREATE ROLE viewer LOGIN; END IF; END $$`,
		`GRANT SELECT ON ALL TABLES IN SCHEMA public TO viewer`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	viewer := strings.Replace(url, "postgres://postgres@", "postgres://viewer@", 1)
	c := one(t, storesOnly(t, viewer, ""), "journal", "")
	if c.Verdict != Fail || c.Problem != NotWritable || !strings.Contains(c.Detail, "permission denied") {
		t.Errorf("%+v, want not_writable", c)
	}
}
