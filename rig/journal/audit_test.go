package journal

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

func TestJournalKeepsTheLastAuditReports(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rig.db")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := j.LastAudit(ctx); ok || err != nil {
		t.Fatalf("a fresh journal has an audit report: ok=%v err=%v", ok, err)
	}
	start := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	for i := range auditKeep + 5 {
		if err := j.RecordAudit(ctx, start.Add(time.Duration(i)*time.Minute), fmt.Appendf(nil, `{"run":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	// Reopened, the newest report is there and the table holds no more than auditKeep.
	j, err = OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	at, report, ok, err := j.LastAudit(ctx)
	if err != nil || !ok {
		t.Fatalf("LastAudit: ok=%v err=%v", ok, err)
	}
	if want := start.Add(time.Duration(auditKeep+4) * time.Minute); !at.Equal(want) || string(report) != fmt.Sprintf(`{"run":%d}`, auditKeep+4) {
		t.Fatalf("last audit at %s %s, want %s run %d", at, report, want, auditKeep+4)
	}
	var n int
	if err := j.db.QueryRow(`SELECT COUNT(*) FROM audit_reports`).Scan(&n); err != nil || n != auditKeep {
		t.Fatalf("kept %d reports (%v), want %d", n, err, auditKeep)
	}
}
