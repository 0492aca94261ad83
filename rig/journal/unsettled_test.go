package journal

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/pricerig/pricerig/internal/pgtest"
	"github.com/pricerig/pricerig/numeric"
)

// The marks of answers taken before their sources were final are kept on both databases, read
// back from a time with every source's provenance, one per task (the first stays), and a journal
// written before the table existed reads none.
func TestJournalKeepsUnsettledMarks(t *testing.T) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "rig.db")
			if db == "postgres" {
				if testing.Short() {
					t.Skip("PostgreSQL cluster")
				}
				target = pgtest.Start(t).NewDatabase(t)
			}
			j, err := OpenJournal(target)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			ctx := context.Background()
			if marks, err := j.UnsettledSince(ctx, time.Time{}); err != nil || len(marks) != 0 {
				t.Fatalf("a fresh journal: %+v %v", marks, err)
			}
			m := time.Date(2026, 11, 24, 15, 30, 0, 0, time.UTC)
			at := m.Add(3 * time.Minute)
			mark := UnsettledMark{TaskID: 7, Symbol: "NVDA", Minute: m, At: at, Outcome: UnsettledProvisional, Price: numeric.MustPrice("177.12"),
				Sources: []MarkedSource{
					{Name: "alpaca", Status: "ok", Price: numeric.MustPrice("177.12"), BarTime: m, Final: true, FetchedAt: at.Add(-time.Second)},
					{Name: "yahoo", Status: "ok", Price: numeric.MustPrice("177.13"), BarTime: m, FetchedAt: at.Add(-time.Second)},
					{Name: "pyth", Status: "not_final", FetchedAt: at.Add(-time.Second)},
				}}
			if err := j.MarkUnsettled(ctx, mark); err != nil {
				t.Fatal(err)
			}
			again := mark
			again.Outcome, again.Price = UnsettledFinalSubset, numeric.MustPrice("1")
			if err := j.MarkUnsettled(ctx, again); err != nil {
				t.Fatal(err)
			}
			marks, err := j.UnsettledSince(ctx, at)
			if err != nil || len(marks) != 1 {
				t.Fatalf("marks since the answer: %+v %v", marks, err)
			}
			got := marks[0]
			if got.TaskID != 7 || got.Outcome != UnsettledProvisional || got.Price != mark.Price || !got.Minute.Equal(m) || !got.At.Equal(at) || len(got.Sources) != 3 {
				t.Fatalf("mark %+v, want the first one", got)
			}
			for i, s := range got.Sources {
				w := mark.Sources[i]
				if s.Name != w.Name || s.Status != w.Status || s.Price != w.Price || !s.BarTime.Equal(w.BarTime) || s.Final != w.Final || !s.FetchedAt.Equal(w.FetchedAt) {
					t.Errorf("source %d: %+v, want %+v", i, s, w)
				}
			}
			if marks, err := j.UnsettledSince(ctx, at.Add(time.Second)); err != nil || len(marks) != 0 {
				t.Errorf("marks after the answer: %+v %v", marks, err)
			}
		})
	}
}
