package feeds

// The rounds of a Price: every source of a feed asked at once (fetch.go: its quote derived from
// the ledger, which a request fills only with what it lacks), and, with WaitFinal, the wait for
// the sources that are not final yet.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/pricerig/pricerig/sources"
)

// settle runs the first round of requests over every task and then, when waiting for finality
// (o.until), one over the sources due each time the first of those still not final is due,
// until enough final prices agree, every source is final, or the next round could not end by
// o.until. With o.lastResort the sources still not final are asked once more, at the last
// moment a round can end by o.until: the freshest bars, final or not. It reports whether it
// stopped on an early quorum.
func (r *Reconciler) settle(ctx context.Context, tasks []task, quotes []Quote, minute, effective time.Time, o priceOptions) (early bool) {
	early = r.gather(ctx, tasks, quotes, minute, effective, o.earlyQuorum)
	if o.until.IsZero() {
		return early
	}
	last := o.until.Add(-r.cfg.Rules.Deadline) // the last moment a round can start and still end by until
	for {
		// the first time one of the sources still not final is due
		var due time.Time
		for _, t := range tasks {
			if at := t.cov.FinalAt(effective); quotes[t.idx].Status == StatusNotFinal && (due.IsZero() || at.Before(due)) {
				due = at
			}
		}
		if due.IsZero() || context.Cause(ctx) != nil {
			return early
		}
		if o.earlyQuorum != WaitForAll && finalQuorum(quotes, tasks, o.earlyQuorum, r.cfg.Rules) {
			return true
		}
		final := due.After(last) // no source is due in time: the last round, if any
		if final && (!o.lastResort || !r.deps.Now().Before(last)) {
			return early
		}
		if final {
			due = last
		}
		if err := r.deps.Wait(ctx, due); err != nil {
			return early
		}
		now := r.deps.Now()
		var again []task
		for _, t := range tasks {
			if quotes[t.idx].Status == StatusNotFinal && (final || !t.cov.FinalAt(effective).After(now)) {
				again = append(again, t)
			}
		}
		r.deps.Logger.Debug("asking again the sources not final", slog.String("minute", minute.Format(time.RFC3339)),
			slog.String("sources", names(quotes, again)), slog.Bool("last_round", final))
		r.gather(ctx, again, quotes, minute, effective, WaitForAll)
		if final {
			return early
		}
	}
}

// finalQuorum says whether the final prices are enough to answer without waiting for the rest:
// at least the early quorum of the asked sources, all within outlier_bps of their lower median.
func finalQuorum(quotes []Quote, tasks []task, earlyQuorum int, rules Rules) bool {
	var priced []Quote
	for _, t := range tasks {
		if q := quotes[t.idx]; q.Status.Priced() && q.Final {
			priced = append(priced, q)
		}
	}
	if len(priced) < effectiveQuorum(earlyQuorum, rules.MinSources, len(tasks)) {
		return false
	}
	return Reconcile(priced, rules).Survivors == len(priced)
}

// gather runs the tasks concurrently and writes their quotes; it reports whether it stopped on an
// early quorum.
func (r *Reconciler) gather(ctx context.Context, tasks []task, quotes []Quote, minute, effective time.Time, earlyQuorum int) (early bool) {
	if len(tasks) == 0 {
		return false
	}
	rules := r.cfg.Rules
	if err := context.Cause(ctx); err != nil {
		for _, t := range tasks {
			quotes[t.idx].Status, quotes[t.idx].Err = StatusPending, "stopped: "+err.Error()
		}
		return false
	}
	// The round's deadline is a context deadline too, so that a source whose rate will not let it
	// ask before then (fmp's 250 a day, asked again while waiting for finality) fails at once
	// rather than holding the round; the timer below decides when the round ends. A round that
	// stops on an early quorum leaves the requests in flight to end by that deadline: what they
	// bring fills the ledger, so the next minute of the same date does not ask that source again
	// (cancelled, a slow source would be asked on every task and keep nothing). The caller's
	// cancellation still ends them.
	rctx, cancelRound := context.WithTimeoutCause(context.WithoutCancel(ctx), rules.Deadline, errRoundDeadline)
	unwatch := context.AfterFunc(ctx, cancelRound)
	context.AfterFunc(rctx, func() { unwatch() })
	defer func() {
		if !early {
			cancelRound()
		}
	}()
	type answer struct {
		idx int
		q   Quote
	}
	answers := make(chan answer, len(tasks)) // buffered: a late answer never blocks its goroutine
	for _, t := range tasks {
		q := quotes[t.idx] // a copy: the goroutine never touches quotes, which gather owns
		r.inflight.Add(1)
		go func() {
			defer r.inflight.Done()
			answers <- answer{t.idx, r.fetch(rctx, t, q, minute, effective)}
		}()
	}
	var deadline <-chan time.Time
	if r.deps.After != nil {
		deadline = r.deps.After(rules.Deadline)
	} else {
		timer := time.NewTimer(rules.Deadline)
		defer timer.Stop()
		deadline = timer.C
	}
	quorum := effectiveQuorum(earlyQuorum, rules.MinSources, len(tasks))
	done := make(map[int]bool, len(tasks))
	why := ""
	for len(done) < len(tasks) && why == "" {
		select {
		case a := <-answers:
			quotes[a.idx] = a.q
			done[a.idx] = true
			if earlyQuorum != WaitForAll {
				why = stopEarly(quotes, tasks, done, quorum, rules)
				early = why != ""
			}
		case <-deadline:
			why = fmt.Sprintf("no answer within the %s deadline", rules.Deadline)
		case <-rctx.Done():
			why = "stopped: " + context.Cause(rctx).Error()
			if ctx.Err() != nil {
				why = "stopped: " + context.Cause(ctx).Error()
			} else if errors.Is(context.Cause(rctx), errRoundDeadline) {
				why = fmt.Sprintf("no answer within the %s deadline", rules.Deadline)
			}
		}
	}
	for _, t := range tasks {
		if !done[t.idx] {
			quotes[t.idx].Status, quotes[t.idx].Err = StatusPending, why
		}
	}
	return early
}

// errRoundDeadline ends a round of requests whose deadline passed.
var errRoundDeadline = errors.New("the round's deadline passed")

// effectiveQuorum is the number of agreeing priced answers that ends the fetch early.
func effectiveQuorum(early, minSources, asked int) int {
	q := early
	switch {
	case early == WaitForAll:
		return asked
	case early <= 0:
		q = asked/2 + 1
	}
	q = max(q, minSources)
	return min(q, asked)
}

// stopEarly says why the fetch can stop before every source answered, or "". A not_final answer
// is no failure: the source may still give a price (later, or now to a Price that waits), so it
// is never given up on, and the others are heard out to say whether they are final.
func stopEarly(quotes []Quote, tasks []task, done map[int]bool, quorum int, rules Rules) string {
	if len(done) == len(tasks) {
		return ""
	}
	var priced []Quote
	possible := len(tasks) - len(done) // still running
	for idx := range done {
		switch {
		case quotes[idx].Status.Priced():
			priced = append(priced, quotes[idx])
		case quotes[idx].Status == StatusNotFinal:
			possible++
		}
	}
	if possible += len(priced); possible < max(rules.MinSources, 1) {
		return fmt.Sprintf("stopped: only %s can still give a price; min_sources is %d", plural(possible, "source"), rules.MinSources)
	}
	if len(priced) < quorum {
		return ""
	}
	if rec := Reconcile(priced, rules); rec.Survivors == len(priced) {
		return fmt.Sprintf("stopped: %d sources agreed first", len(priced))
	}
	return ""
}

func classify(err error) Status {
	switch {
	case errors.Is(err, sources.ErrNoData):
		return StatusNoData
	case errors.Is(err, sources.ErrNoKey):
		return StatusNoKey
	case errors.Is(err, sources.ErrOverQuota):
		return StatusOverQuota
	case errors.Is(err, sources.ErrPaced):
		return StatusPaced
	}
	return StatusError
}

// notFinalReason says why a result that waited for finality, or did not, has no answer: which
// sources are not final yet, and what the final ones gave.
func notFinalReason(res Result, now time.Time) string {
	waiting := res.NotFinal()
	return fmt.Sprintf("not final yet at %s: %s; %s", now.UTC().Format(time.RFC3339), strings.Join(waiting, ", "), res.Reason)
}

func names(quotes []Quote, tasks []task) string {
	out := make([]string, len(tasks))
	for i, t := range tasks {
		out[i] = quotes[t.idx].Source
	}
	return strings.Join(out, ",")
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
