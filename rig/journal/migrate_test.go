package journal

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/pricerig/pricerig/numeric"
)

// TestZeroMedianAgreesOnlyWithZero is the rule refusals rest on: with a zero median,
// distance × 10000 ≤ median × tolerance holds only for an exact 0, so three rigs answering 0 agree
// and one answering a price among two zeros is outside the agreement.
func TestZeroMedianAgreesOnlyWithZero(t *testing.T) {
	zero := numeric.Scaled(0).Answer()
	rule := numeric.Rule{Kind: numeric.Numeric, Quorum: 3, ToleranceBps: 2000}
	out, err := numeric.Agree(rule, []numeric.Answer{zero, zero, zero})
	if err != nil || !out.Agreed || out.Agree != 3 || out.Median.Sign() != 0 {
		t.Fatalf("three zeros: %+v %v", out, err)
	}
	out, err = numeric.Agree(rule, []numeric.Answer{zero, numeric.Scaled(1).Answer(), zero})
	if err != nil || !out.Agreed || out.Agree != 2 || out.Verdicts[1] {
		t.Fatalf("a one among zeros: %+v %v", out, err)
	}
	if d := StoredDistance(zero, zero); d != 0 {
		t.Fatalf("distance of 0 to a stored 0: %d", d)
	}
}

func TestJournalMigratesAVersion1JournalAndKeepsItsRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rig.db")
	// A journal as pricerig wrote it before the refusal column.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0] + "\nPRAGMA user_version = 1;"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO tasks (task_id, rig_id, state, reason, updated_at) VALUES (4, 1, 'skipped', 'no reconciled price: 1 source', '2026-11-27T15:30:00Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var version int
	if err := j.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Fatalf("user_version %d (%v), want %d", version, err, schemaVersion)
	}
	e, ok, err := j.Get(ctx, 4, 1)
	if err != nil || !ok || e.State != StateSkipped || e.Reason != "no reconciled price: 1 source" || e.Refusal != "" {
		t.Fatalf("the old row after the migration: %+v %v %v", e, ok, err)
	}
	if _, found, err := j.RefusalReason(ctx, 4); err != nil || found {
		t.Fatalf("a skipped task reads as refused: %v %v", found, err)
	}

	// A refused task: the reason is journaled with the answer and read back by task.
	refused := Entry{TaskID: 5, RigID: 2, Answer: numeric.Scaled(0).Answer(), Salt: [32]byte{7}, Commitment: [32]byte{8},
		Refusal: `unknown symbol: "AAPL" (want one of NVDA, TSLA, SPY)`}
	if _, err := j.RecordAnswer(ctx, refused); err != nil {
		t.Fatal(err)
	}
	if err := j.Advance(ctx, 5, 2, StateSettled, func(e *Entry) { e.Agreed, e.Inside = true, true }); err != nil {
		t.Fatal(err)
	}
	reason, found, err := j.RefusalReason(ctx, 5)
	if err != nil || !found || reason != refused.Refusal {
		t.Fatalf("refusal reason %q %v %v", reason, found, err)
	}
	if _, found, _ := j.RefusalReason(ctx, 6); found {
		t.Fatal("a task the journal never saw reads as refused")
	}
}
