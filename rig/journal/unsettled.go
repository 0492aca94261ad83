package journal

// The journal's marks of tasks answered before their sources were final enough: what the audit
// reads to tell an answer taken from provisional or too few final bars, and, with every
// source's bar, finality and fetch time, what it compares with the bars the sources settled on.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/numeric"
)

// The outcomes of an unsettled answer (UnsettledMark.Outcome, the metric's label).
const (
	// UnsettledFinalSubset: answered from the final prices (at least min_sources), fewer than
	// the early quorum the reconciler would have waited for.
	UnsettledFinalSubset = "final_subset"
	// UnsettledProvisional: too few final prices by the commit deadline; provisional bars counted.
	UnsettledProvisional = "provisional"
)

// UnsettledMark is one task answered before its sources were final enough.
type UnsettledMark struct {
	TaskID  uint64
	Symbol  string
	Minute  time.Time
	At      time.Time      // when the answer was taken (the runner's clock)
	Outcome string         // UnsettledFinalSubset or UnsettledProvisional
	Price   numeric.Scaled // the answer
	Sources []MarkedSource
}

// MarkedSource is one source's part in an unsettled answer: its status (a feeds.Status), the bar
// it gave (zero without one), whether it was final, and when it was fetched.
type MarkedSource struct {
	Name      string         `json:"name"`
	Status    string         `json:"status"`
	Price     numeric.Scaled `json:"price,omitempty"` // scaled × 10^8
	BarTime   time.Time      `json:"bar_time,omitzero"`
	Final     bool           `json:"final"`
	FetchedAt time.Time      `json:"fetched_at,omitzero"`
}

// The marks live beside the tasks but outside the schema version, like the audit reports: the
// table is created on first use, so a journal written before it needs no migration.
func (j *DBJournal) unsettledTable() string {
	return `CREATE TABLE IF NOT EXISTS unsettled_answers (task_id BIGINT PRIMARY KEY, symbol TEXT NOT NULL, minute TEXT NOT NULL,
		at TEXT NOT NULL, outcome TEXT NOT NULL, price BIGINT NOT NULL, sources TEXT NOT NULL)`
}

// MarkUnsettled keeps m; a task marked already keeps its first mark.
func (j *DBJournal) MarkUnsettled(ctx context.Context, m UnsettledMark) error {
	srcs, err := json.Marshal(m.Sources)
	if err != nil {
		return err
	}
	if _, err := j.db.ExecContext(ctx, j.unsettledTable()); err != nil {
		return err
	}
	_, err = j.db.ExecContext(ctx, j.q(`INSERT INTO unsettled_answers (task_id, symbol, minute, at, outcome, price, sources)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (task_id) DO NOTHING`),
		int64(m.TaskID), m.Symbol, fmtTime(m.Minute), fmtTime(m.At), m.Outcome, int64(m.Price), string(srcs))
	return err
}

// UnsettledSince lists the marks of answers taken at or after t, oldest first.
func (j *DBJournal) UnsettledSince(ctx context.Context, t time.Time) ([]UnsettledMark, error) {
	if _, err := j.db.ExecContext(ctx, j.unsettledTable()); err != nil {
		return nil, err
	}
	rows, err := j.db.QueryContext(ctx, j.q(`SELECT task_id, symbol, minute, at, outcome, price, sources FROM unsettled_answers
		WHERE at >= ? ORDER BY at, task_id`), fmtTime(t))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []UnsettledMark
	for rows.Next() {
		var m UnsettledMark
		var id, price int64
		var minute, at, srcs string
		if err := rows.Scan(&id, &m.Symbol, &minute, &at, &m.Outcome, &price, &srcs); err != nil {
			return nil, err
		}
		m.TaskID, m.Price, m.Minute, m.At = uint64(id), numeric.Scaled(price), parseTime(minute), parseTime(at)
		if err := json.Unmarshal([]byte(srcs), &m.Sources); err != nil {
			return nil, fmt.Errorf("task %d's unsettled mark: %w", id, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
