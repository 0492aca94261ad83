package rig

// Settlement: once a task is settled, what the chain stored is compared with what we answered.

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
)

// recordSettlement reads the stored answer and records, per rig, whether our answer was inside
// the agreement and how far it was from the stored median.
func (r *Runner) recordSettlement(ctx context.Context, t *taskState, info agentrig.TaskView, mine map[uint64]int) error {
	if len(mine) == 0 {
		return nil
	}
	if err := r.books.RecordPayouts(ctx, t.id, mine); err != nil {
		return err
	}
	ans, err := r.chain.ReadAnswer(ctx, t.id)
	if err != nil {
		return err
	}
	stored := numeric.AnswerInt(ans.Answer)
	for rigID, idx := range mine {
		entry, _, err := r.journal.Get(ctx, t.id, rigID)
		if err != nil {
			return err
		}
		if entry.State.Final() {
			continue
		}
		revealed := info.Revealed&(1<<idx) != 0
		if !revealed {
			r.advance(ctx, t.id, rigID, journal.StateMissed, func(e *journal.Entry) {
				e.StoredAnswer, e.Agreed = ans.Answer, ans.Agreed
				if e.Reason == "" {
					e.Reason = "no reveal before the reveal window closed"
				}
			})
			r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Slashed })
			continue
		}
		inside := numeric.WithinTolerance(numeric.AnswerInt(entry.Answer), stored, r.tolerance)
		distance := journal.StoredDistance(entry.Answer, ans.Answer)
		r.advance(ctx, t.id, rigID, journal.StateSettled, func(e *journal.Entry) {
			e.StoredAnswer, e.Agreed, e.Inside, e.RealizedCentiBps = ans.Answer, ans.Agreed, inside, distance
		})
		r.cfg.Metrics.observe(func(m *Metrics) prometheus.Histogram { return m.RealizedDistance }, float64(distance)/100)
		if inside && ans.Agreed {
			r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Agreed })
		} else if !inside {
			r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Slashed })
		}
		r.log.Info("settled", "task", t.id, "rig", rigID, "agreed", ans.Agreed, "inside", inside,
			"stored", numeric.FormatScaled(stored), "ours", entry.Price.String(), "distance_bps", feeds.FormatCentiBps(distance))
	}
	return nil
}
