package journal

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// auditKeep is how many audit reports the journal keeps: enough history to look back a day
// at a 15-minute schedule, small enough to never matter for the file's size.
const auditKeep = 100

// The audit table lives beside the tasks but outside the schema version: it is created on first
// use, so a journal written before it existed needs no migration and a rig that never runs an
// audit never has one.
func (j *DBJournal) auditTable() string {
	id := "id INTEGER PRIMARY KEY AUTOINCREMENT"
	if j.postgres {
		id = "id BIGSERIAL PRIMARY KEY"
	}
	return `CREATE TABLE IF NOT EXISTS audit_reports (` + id + `, at TEXT NOT NULL, report TEXT NOT NULL)`
}

// RecordAudit keeps the report of one audit run (the JSON `pricerig audit --json` prints) in
// the journal, so the operator's page of a rig on this journal shows the last findings. The rig
// never reads it; only the newest auditKeep reports are kept.
func (j *DBJournal) RecordAudit(ctx context.Context, at time.Time, report []byte) error {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, j.auditTable()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, j.q(`INSERT INTO audit_reports (at, report) VALUES (?, ?)`), fmtTime(at), string(report)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, j.q(`DELETE FROM audit_reports WHERE id <= (SELECT MAX(id) FROM audit_reports) - ?`), auditKeep); err != nil {
		return err
	}
	return tx.Commit()
}

// LastAudit returns the newest audit report RecordAudit kept; ok is false when there is none.
func (j *DBJournal) LastAudit(ctx context.Context) (at time.Time, report []byte, ok bool, err error) {
	exists := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'audit_reports'`
	if j.postgres {
		exists = `SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'audit_reports'`
	}
	var n int
	if err := j.db.QueryRowContext(ctx, exists).Scan(&n); err != nil || n == 0 {
		return time.Time{}, nil, false, err
	}
	var when, text string
	err = j.db.QueryRowContext(ctx, `SELECT at, report FROM audit_reports ORDER BY id DESC LIMIT 1`).Scan(&when, &text)
	report = []byte(text)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil, false, nil
	}
	if err != nil {
		return time.Time{}, nil, false, err
	}
	return parseTime(when), report, true, nil
}
