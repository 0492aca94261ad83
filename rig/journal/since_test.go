package journal

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pricerig/pricerig/internal/pgtest"
)

// Since compares times, not their text: entries updated on a whole second, at .5 s and at
// .55 s come back exactly when they are at or after the bound, on SQLite and on PostgreSQL. In
// RFC 3339 with the fraction's trailing zeros cut, "…:05Z" sorts after "…:05.5Z" and "…:05.5Z"
// after "…:05.55Z".
func TestSinceOrdersFractionalSeconds(t *testing.T) {
	targets := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "rig.db") },
		"postgres": func(t *testing.T) string { return pgtest.Start(t).NewDatabase(t) },
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			j, err := OpenJournal(targets[name](t))
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			checkSince(t, j)
		})
	}
}

var sinceBase = time.Date(2026, 12, 1, 12, 0, 5, 0, time.UTC)

// checkSince journals tasks 1, 2, 3 at sinceBase, +0.5 s and +0.55 s and asks Since around them.
func checkSince(t *testing.T, j *DBJournal) {
	t.Helper()
	ctx := context.Background()
	for i, d := range []time.Duration{0, 500 * time.Millisecond, 550 * time.Millisecond} {
		at := sinceBase.Add(d)
		j.now = func() time.Time { return at }
		if err := j.Drawn(ctx, uint64(i+1), 1, sinceBase.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	expectSince(t, j)
}

func expectSince(t *testing.T, j *DBJournal) {
	t.Helper()
	for _, c := range []struct {
		since time.Duration
		want  []uint64
	}{
		{-time.Nanosecond, []uint64{1, 2, 3}},
		{0, []uint64{1, 2, 3}},
		{time.Nanosecond, []uint64{2, 3}},
		{500 * time.Millisecond, []uint64{2, 3}},
		{520 * time.Millisecond, []uint64{3}},
		{550 * time.Millisecond, []uint64{3}},
		{550*time.Millisecond + time.Nanosecond, nil},
	} {
		got, err := j.Since(context.Background(), sinceBase.Add(c.since))
		if err != nil {
			t.Fatal(err)
		}
		var ids []uint64
		for _, e := range got {
			ids = append(ids, e.TaskID)
		}
		if !slices.Equal(ids, c.want) {
			t.Errorf("Since(%s) = tasks %v, want %v", sinceBase.Add(c.since).Format(time.RFC3339Nano), ids, c.want)
		}
	}
}

// A journal written before the times were sortable (RFC 3339, fraction cut) is migrated: the
// old rows' times are rewritten, read back the same, and Since orders them.
func TestOldJournalTimesAreMigrated(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			var target string
			if name == "sqlite" {
				target = filepath.Join(t.TempDir(), "rig.db")
			} else {
				target = pgtest.Start(t).NewDatabase(t)
			}
			j, err := OpenJournal(target)
			if err != nil {
				t.Fatal(err)
			}
			// rows as the previous schema wrote them, and the schema version put back
			for i, at := range []string{"2026-12-01T12:00:05Z", "2026-12-01T12:00:05.5Z", "2026-12-01T12:00:05.55Z"} {
				if _, err := j.db.Exec(j.q(`INSERT INTO tasks (task_id, rig_id, state, minute, commit_deadline, updated_at) VALUES (?, 1, 'drawn', ?, ?, ?)`),
					i+1, "2026-12-01T12:00:00Z", "2026-12-01T12:01:05.125Z", at); err != nil {
					t.Fatal(err)
				}
			}
			back := `PRAGMA user_version = 3`
			if j.postgres {
				back = `UPDATE pricerig_schema SET version = 4 WHERE component = 'journal'`
			}
			if _, err := j.db.Exec(back); err != nil {
				t.Fatal(err)
			}
			j.Close()
			if j, err = OpenJournal(target); err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			var raw string
			if err := j.db.QueryRow(`SELECT updated_at FROM tasks WHERE task_id = 2`).Scan(&raw); err != nil || raw != "2026-12-01T12:00:05.500000000Z" {
				t.Errorf("task 2 updated_at after the migration: %q (%v)", raw, err)
			}
			e, ok, err := j.Get(ctx, 1, 1)
			if err != nil || !ok || !e.Minute.Equal(sinceBase.Add(-5*time.Second)) || !e.CommitDeadline.Equal(sinceBase.Add(time.Minute+125*time.Millisecond)) || !e.UpdatedAt.Equal(sinceBase) {
				t.Errorf("task 1 after the migration: %+v %v %v", e, ok, err)
			}
			expectSince(t, j)
		})
	}
}
