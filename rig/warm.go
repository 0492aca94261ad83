package rig

// Warm caches: a follower (an instance without the lease) prices the tasks its rigs are drawn
// for as the leader would, so the instance that takes over answers without a cold start.

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pricerig/pricerig/rig/journal"
)

// warm prices, while this instance follows, every task our rigs are drawn for that is still to
// be answered: its minute has closed, its commit window is open past the commit margin, and the
// journal holds no answer yet (a leader that answered leaves nothing to warm). The result stays
// in r.prices, where answer finds it after a takeover; a price that did not agree is dropped and
// tried again at the next look.
func (r *Runner) warm(ctx context.Context) {
	now := r.cfg.Now()
	r.mu.Lock()
	var todo []*taskState
	for _, t := range r.tasks {
		switch {
		case t.commitDeadline.IsZero() || t.done:
		case !now.Before(t.commitDeadline):
			r.dropPriceLocked(t.id, false) // nobody can answer it any more: a follower keeps no stale prices
		case !t.warmed && now.Before(t.commitDeadline.Add(-r.cfg.CommitMargin)):
			todo = append(todo, t)
		}
	}
	r.mu.Unlock()
	for _, t := range todo {
		if err := r.ensureInput(ctx, t); err != nil {
			continue
		}
		r.mu.Lock()
		input, bad, deadline := t.input, t.inputErr, t.commitDeadline
		r.mu.Unlock()
		if bad != nil || r.cfg.Inputs.CheckWindow(input, deadline) != nil || now.Before(input.Minute.Add(time.Minute)) {
			continue // refused (nothing to price) or the minute is still open
		}
		if r.answered(ctx, t.id) {
			r.mu.Lock()
			t.warmed = true
			r.mu.Unlock()
			continue
		}
		left := deadline.Sub(now) - r.cfg.CommitMargin
		r.spawn(ctx, fmt.Sprintf("warm/%d", t.id), func(ctx context.Context) {
			res, err := r.priceAs(ctx, t.id, input, left, true)
			if err != nil || !res.Agreed {
				r.forgetPrice(t.id)
				return
			}
			// A look that listed the task before the last warm of it ended spawns another, which
			// finds the price at once: the task is counted and logged by the first only.
			r.mu.Lock()
			first := !t.warmed
			t.warmed = true
			r.mu.Unlock()
			if !first {
				return
			}
			r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Prepriced })
			r.log.Info("priced while following, for a takeover", "task", t.id, "symbol", input.Symbol,
				"minute", input.Minute.Format(time.RFC3339), "price", res.Price.String())
		})
	}
}

// answered reports whether the journal holds an answer of one of our rigs for the task.
func (r *Runner) answered(ctx context.Context, taskID uint64) bool {
	for id := range r.rigs {
		e, found, err := r.journal.Get(ctx, taskID, id)
		if err == nil && found && !e.State.Before(journal.StateAnswered) {
			return true
		}
	}
	return false
}

// pricedWhileFollowing reports whether the task's shared price was taken while this instance
// followed.
func (r *Runner) pricedWhileFollowing(taskID uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.prices[taskID]
	return c != nil && c.following
}
