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
func (j *DBJournal) auditTable() string { return reportTable("audit_reports", j.postgres) }

// reportTable is the statement that makes a table of kept reports (the audit's and the
// doctor's): a row per run, its time and its JSON.
func reportTable(name string, postgres bool) string {
	id := "id INTEGER PRIMARY KEY AUTOINCREMENT"
	if postgres {
		id = "id BIGSERIAL PRIMARY KEY"
	}
	return `CREATE TABLE IF NOT EXISTS ` + name + ` (` + id + `, at TEXT NOT NULL, report TEXT NOT NULL)`
}

// RecordAudit keeps the report of one audit run (the JSON `pricerig audit --json` prints) in
// the journal, so the operator's page of a rig on this journal shows the last findings. The rig
// never reads it; only the newest auditKeep reports are kept.
func (j *DBJournal) RecordAudit(ctx context.Context, at time.Time, report []byte) error {
	return j.keepReport(ctx, "audit_reports", auditKeep, at, report, j.auditTable())
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
	return j.lastReport(ctx, "audit_reports")
}

// keepReport adds a report to table in one transaction (after making the table, when create is
// given) and drops all but the newest keep.
func (j *DBJournal) keepReport(ctx context.Context, table string, keep int, at time.Time, report []byte, create string) error {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if create != "" {
		if _, err := tx.ExecContext(ctx, create); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, j.q(`INSERT INTO `+table+` (at, report) VALUES (?, ?)`), fmtTime(at), string(report)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, j.q(`DELETE FROM `+table+` WHERE id <= (SELECT MAX(id) FROM `+table+`) - ?`), keep); err != nil {
		return err
	}
	return tx.Commit()
}

// lastReport returns the newest report of table; ok is false when there is none.
func (j *DBJournal) lastReport(ctx context.Context, table string) (at time.Time, report []byte, ok bool, err error) {
	var when, text string
	err = j.db.QueryRowContext(ctx, `SELECT at, report FROM `+table+` ORDER BY id DESC LIMIT 1`).Scan(&when, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil, false, nil
	}
	if err != nil {
		return time.Time{}, nil, false, err
	}
	return parseTime(when), []byte(text), true, nil
}
