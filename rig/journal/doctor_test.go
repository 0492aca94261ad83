package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/internal/pgtest"
)

func TestJournalKeepsTheLastDoctorReports(t *testing.T) {
	ctx := context.Background()
	j, err := OpenJournal(filepath.Join(t.TempDir(), "rig.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, _, ok, err := j.LastDoctor(ctx); ok || err != nil {
		t.Fatalf("a fresh journal has a doctor report: ok=%v err=%v", ok, err)
	}
	start := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	for i := range doctorKeep + 3 {
		if err := j.RecordDoctor(ctx, start.Add(time.Duration(i)*time.Minute), fmt.Appendf(nil, `{"run":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	at, report, ok, err := j.LastDoctor(ctx)
	if err != nil || !ok || !at.Equal(start.Add(time.Duration(doctorKeep+2)*time.Minute)) || string(report) != fmt.Sprintf(`{"run":%d}`, doctorKeep+2) {
		t.Fatalf("last doctor report at %s %s (ok=%v err=%v)", at, report, ok, err)
	}
	var n int
	if err := j.db.QueryRow(`SELECT COUNT(*) FROM doctor_reports`).Scan(&n); err != nil || n != doctorKeep {
		t.Fatalf("kept %d reports (%v), want %d", n, err, doctorKeep)
	}
}

// Inspect reports a journal one version behind as older and leaves it there; a current one is
// current and writable; a path with none is ErrNoJournal, with nothing made.
func TestInspectAJournalChangesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Inspect(ctx, filepath.Join(dir, "none.db")); !errors.Is(err, ErrNoJournal) {
		t.Fatalf("a missing journal: %v, want ErrNoJournal", err)
	}
	old := filepath.Join(dir, "old.db")
	db, err := sql.Open("sqlite", old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(strings.Join(migrations[:schemaVersion-1], ";\n") + fmt.Sprintf(";\nPRAGMA user_version = %d;", schemaVersion-1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	in, err := Inspect(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	if in.Version != schemaVersion-1 || in.Newest != schemaVersion || !in.Older() || in.Writable != nil || in.Postgres || len(in.Leases) != 0 {
		t.Fatalf("inspection %+v, want version %d of %d, writable", in, schemaVersion-1, schemaVersion)
	}
	db, _ = sql.Open("sqlite", old)
	defer db.Close()
	var v, tables int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion-1 {
		t.Fatalf("user_version %d after Inspect (%v): it migrated", v, err)
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name IN ('doctor_reports', 'pricerig_doctor_probe')`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("%d tables made by Inspect (%v)", tables, err)
	}
}

// On PostgreSQL, Inspect lists the leases: who holds each, in which epoch, how old, and one let
// go as expired.
func TestInspectListsTheLeases(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Shared(t).NewDatabase(t)
	j := openPG(t, url)
	in, err := Inspect(ctx, url)
	if err != nil || !in.Postgres || in.Version != in.Newest || in.Writable != nil || len(in.Leases) != 0 {
		t.Fatalf("inspection %+v (%v), want a current writable journal with no lease", in, err)
	}
	l, err := j.AcquireLease(ctx, "job2@0xabc/keys", "host-a/1/x", time.Minute)
	if err != nil || !l.Held {
		t.Fatalf("lease %+v %v", l, err)
	}
	if _, err := j.AcquireLease(ctx, "job2@0xdef/keys", "host-b/2/y", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := j.ReleaseLease(ctx, Fence{Name: "job2@0xdef/keys", Holder: "host-b/2/y", Epoch: 1}); err != nil {
		t.Fatal(err)
	}
	in, err = Inspect(ctx, url)
	if err != nil || len(in.Leases) != 2 {
		t.Fatalf("leases %+v (%v), want 2", in.Leases, err)
	}
	held, gone := in.Leases[0], in.Leases[1]
	if held.Name != "job2@0xabc/keys" || held.Holder != "host-a/1/x" || held.Epoch != 1 || !held.Live || held.TTL != time.Minute || held.Age >= time.Minute || held.Expired != 0 {
		t.Errorf("the held lease %+v", held)
	}
	if gone.Holder != "host-b/2/y" || gone.Live || gone.TTL >= time.Minute {
		t.Errorf("the released lease %+v, want expired", gone)
	}
}
