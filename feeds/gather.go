package feeds

// The fetch of a Price: rounds of requests to the sources of a feed, each source's bars read by
// the price-at-minute rule and judged final or not (Finality), and, with WaitFinal, the wait for
// the sources that are not final yet.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/redact"
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
	// rather than holding the round; the timer below decides when the round ends.
	ctx, cancel := context.WithTimeoutCause(ctx, rules.Deadline, errRoundDeadline)
	defer cancel()
	type answer struct {
		idx int
		q   Quote
	}
	answers := make(chan answer, len(tasks)) // buffered: a late answer never blocks its goroutine
	for _, t := range tasks {
		q := quotes[t.idx] // a copy: the goroutine never touches quotes, which gather owns
		go func() { answers <- answer{t.idx, r.fetch(ctx, t, q, minute, effective)} }()
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
		case <-ctx.Done():
			why = "stopped: " + context.Cause(ctx).Error()
			if errors.Is(context.Cause(ctx), errRoundDeadline) {
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

// fetch asks one source, applies the price-at-minute rule to what it returns and judges whether
// that is final. q may hold the source's answer of an earlier round: it is replaced, and its
// request count and latency added to.
func (r *Reconciler) fetch(ctx context.Context, t task, q Quote, minute, effective time.Time) Quote {
	rules := r.cfg.Rules
	start := time.Now() // latency is a measurement for reports, not a decision: the real clock
	at := r.deps.Now().UTC()
	q.FetchedAt, q.Final, q.Price, q.BarTime, q.Carried, q.Err, q.Kind = at, false, 0, time.Time{}, false, "", ""
	defer func() { q.Latency += time.Since(start) }()
	bars, failed := r.ask(ctx, t, &q, t.from, t.to, at)
	if failed {
		return q
	}
	bar, _, found := PriceAt(bars, minute, rules.MaxCarry)
	final := Finality(bars, bar, found, effective, t.cov, at)
	if !found && final && t.floor.Before(t.from) {
		more, failed := r.ask(ctx, t, &q, t.floor, t.from, at)
		if failed {
			return q
		}
		bar, _, found = PriceAt(more, minute, rules.MaxCarry)
		final = Finality(append(more, bars...), bar, found, effective, t.cov, at)
	}
	// the bar used: a final one, or a provisional bar at the minute (the rig's last resort,
	// ReconcileProvisional); an earlier bar is no answer until the minute's absence is final
	if found && (final || bar.Start.Equal(effective)) {
		q.Price, q.BarTime, q.Carried = bar.Close, bar.Start, !bar.Start.Equal(minute)
	}
	ready := t.cov.FinalAt(effective).Format(time.RFC3339)
	switch {
	case !final && found && bar.Start.Equal(effective):
		q.Status, q.Kind = StatusNotFinal, sources.KindNotFinal
		q.Err = fmt.Sprintf("provisional: its bar of %s (%s) is final at %s", bar.Start.Format("15:04"), bar.Close, t.cov.FinalAt(bar.Start).Format(time.RFC3339))
	case !final && found:
		q.Status, q.Kind = StatusNotFinal, sources.KindNotFinal
		q.Err = fmt.Sprintf("no bar at %s yet, and it may still publish one until %s: its %s bar (%s) is not carried before then",
			effective.Format("15:04"), ready, bar.Start.Format("15:04"), bar.Close)
	case !final:
		q.Status, q.Kind = StatusNotFinal, sources.KindNotFinal
		q.Err = fmt.Sprintf("no bar at %s yet, and it may still publish one until %s", effective.Format("15:04"), ready)
	case !found:
		q.Status, q.Final = StatusNoData, true
		q.Err = fmt.Sprintf("no bar in the %s before %s", rules.MaxCarry, minute.Format(time.RFC3339))
	case q.Carried:
		q.Status, q.Final = StatusCarried, true
	default:
		q.Status, q.Final = StatusOK, true
	}
	return q
}

// ask makes one request and returns its bars in [from, to) and the sessions, raw. failed means q
// now holds the failure.
func (r *Reconciler) ask(ctx context.Context, t task, q *Quote, from, to, at time.Time) (bars []sources.Bar, failed bool) {
	q.Requests++
	bars, err := t.src.Bars(ctx, t.symbol, from, to)
	if err != nil {
		if errors.Is(err, sources.ErrNoData) {
			return nil, false // an empty window, as some providers report it
		}
		q.Status, q.Err, q.Kind = classify(err), redact.String(err.Error()), sources.KindOf(err)
		return nil, true
	}
	if t.adjusted {
		bars, err = Unadjust(bars, t.splits, at)
		if err != nil {
			q.Status, q.Err, q.Kind = StatusError, redact.String(err.Error()), sources.KindOf(err)
			return nil, true
		}
	}
	rules := r.cfg.Rules
	in := bars[:0:0]
	for _, b := range bars {
		if !b.Start.Before(from) && b.Start.Before(to) && market.InSessions(b.Start, rules.Sessions) {
			in = append(in, b)
		}
	}
	return in, false
}

func classify(err error) Status {
	switch {
	case errors.Is(err, sources.ErrNoData):
		return StatusNoData
	case errors.Is(err, sources.ErrNoKey):
		return StatusNoKey
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
