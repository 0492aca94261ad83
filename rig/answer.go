package rig

// Pricing: a drawn task is priced once for all our rigs (and a symbol at a minute once for all the
// tasks asking it), checked against the expected median and journaled (answer, salt, commitment)
// before anything is sent.

import (
	"context"
	"log/slog"
	"math/big"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
)

// priceCall shares one price fetch among the rigs of this process drawn for the same task, and
// among the tasks that ask the same symbol at the same minute: a hundred tasks drawn together
// over three symbols make three fetches, not a hundred. Each fetch asks every source, and a
// source's rate (sources.yaml: yahoo 60/min, one request a second) paces the requests that are
// not in flight together; fetched per task, the tasks queued behind one another for seconds.
type priceCall struct {
	key       priceKey
	users     int // tasks holding it in r.prices
	done      chan struct{}
	result    feeds.Result
	err       error
	following bool // taken while this instance followed (warm)
}

// priceKey is what a price answers: a symbol at a minute.
type priceKey struct {
	symbol string
	minute int64 // unix seconds
}

// answer prices the task once and journals an answer and a fresh salt for each of our rigs
// drawn for it. Nothing is sent here: the next step commits what the journal holds.
func (r *Runner) answer(ctx context.Context, t *taskState, info agentrig.TaskView, chainNow time.Time) {
	log := r.log.With("task", t.id)
	mine := r.ours(info)
	deadline := info.CommitDeadline
	left := deadline.Sub(chainNow) - r.cfg.CommitMargin
	skip := func(reason string) {
		log.Warn("task cannot be answered honestly", "reason", reason)
		for rigID := range mine {
			r.advance(ctx, t.id, rigID, journal.StateSkipped, func(e *journal.Entry) { e.Reason = reason })
		}
		r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Skipped })
	}
	r.mu.Lock()
	input, refusal := t.input, t.inputErr
	r.mu.Unlock()
	if refusal == nil {
		refusal = r.cfg.Inputs.CheckWindow(input, deadline)
	}
	if refusal != nil {
		price, answered := r.cfg.Inputs.Answers()
		if !answered {
			skip(task.RefusalText(refusal))
			return
		}
		r.refuse(ctx, t, info, input, refusal, price)
		return
	}
	log = log.With("symbol", input.Symbol, "minute", input.Minute.Format(time.RFC3339))
	if closes := input.Minute.Add(time.Minute); r.cfg.Now().Before(closes) {
		// The minute closes inside the commit window (else the spec refuses the task), but too
		// late for this rig to price it by its commit margin: that is this rig's situation, not
		// the task's, so it skips rather than answer the refusal.
		if closes.Sub(r.cfg.Now()) > left {
			skip("the minute closes too late in the commit window to price it before the commit margin")
		}
		return // the minute has not closed yet: wait for it
	}
	if left <= 0 {
		skip("no time left in the commit window to price the minute")
		return
	}
	res, err := r.price(ctx, t.id, input, left)
	if err != nil || !res.Agreed {
		reason := res.Reason
		if err != nil {
			reason = err.Error()
		}
		if left < 2*r.cfg.Poll+time.Second {
			skip("no reconciled price: " + reason)
		} else {
			log.Warn("no reconciled price yet; trying again", "reason", reason)
			r.forgetPrice(t.id)
		}
		return
	}
	if res.Unsettled {
		r.unsettled(ctx, log, t.id, res)
	}
	if r.pricedWhileFollowing(t.id) {
		r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.WarmAnswers })
		log.Info("answering from the price taken while following: no fetch at the takeover")
	}
	for _, q := range res.Quotes {
		if !q.Status.Priced() && q.Status != feeds.StatusNotCovered && q.Status != feeds.StatusNoKey && q.Status != feeds.StatusNotFinal {
			if m := r.cfg.Metrics; m != nil {
				m.SourceErrors.WithLabelValues(q.Source, string(q.Status)).Inc()
			}
		}
	}
	self := numeric.DistanceCentiBps(res.Price, res.Median)
	r.cfg.Metrics.observe(func(m *Metrics) prometheus.Histogram { return m.SelfDistance }, float64(self)/100)
	if limit := int64(r.tolerance) * int64(r.cfg.SelfCheckShare); self > limit || self < 0 {
		log.Warn("self-check: our answer is far from the expected median", "distance_bps", feeds.FormatCentiBps(self),
			"alert_bps", feeds.FormatCentiBps(limit), "answer", res.Price.String(), "expected_median", res.Median.String())
	}
	kept := false
	r.record(ctx, log, t, info, journal.Entry{Symbol: input.Symbol, Minute: input.Minute, Price: res.Price,
		ExpectedMedian: res.Median, SelfCentiBps: self}, func(stored journal.Entry) {
		log.Info("answered", "rig", stored.RigID, "price", stored.Price.String(), "expected_median", res.Median.String(),
			"self_distance_bps", feeds.FormatCentiBps(self), "sources", res.Survivors, "early", res.Early)
		// The evidence is the answer the journal holds: kept once the journal recorded it (a
		// pricing whose answer failed to record keeps none, so a task priced again is explained
		// by the price it commits), and only when the entry stored is this price (an answer
		// recorded before stands). The commit goes out in the next step, after it; losing the
		// evidence loses an explanation, never the answer.
		if ev := r.cfg.Evidence; ev != nil && !kept && stored.Price == res.Price {
			kept = true
			if err := ev.KeepEvidence(ctx, t.id, res, r.cfg.Now()); err != nil {
				log.Warn("the answer's evidence was not kept", "error", err)
			}
		}
	})
}

// unsettled logs, counts and journals an answer taken before its sources were final enough:
// by the commit deadline, from fewer final prices than the early quorum, or with provisional
// bars. The task is still answered: a rig that skipped it would be slashed for sure.
func (r *Runner) unsettled(ctx context.Context, log *slog.Logger, taskID uint64, res feeds.Result) {
	mark := unsettledMarkOf(taskID, res, r.cfg.Now())
	var unfinal []string
	for _, s := range mark.Sources {
		if s.Status == string(feeds.StatusNotFinal) || s.Price > 0 && !s.Final {
			unfinal = append(unfinal, s.Name)
		}
	}
	log.Warn("answering before the sources were final enough", "outcome", mark.Outcome, "price", res.Price.String(),
		"not_final", strings.Join(unfinal, ","))
	if m := r.cfg.Metrics; m != nil {
		m.Unsettled.WithLabelValues(mark.Outcome).Inc()
	}
	if err := r.journal.MarkUnsettled(r.lead.fenced(ctx), mark); err != nil {
		log.Error("journaling the unsettled answer", "error", err)
	}
}

// unsettledMarkOf is the journal's mark of an answer reconciled in res before its sources were
// final enough: every asked source's status, bar, finality and fetch time.
func unsettledMarkOf(taskID uint64, res feeds.Result, at time.Time) journal.UnsettledMark {
	m := journal.UnsettledMark{TaskID: taskID, Symbol: res.Symbol, Minute: res.Minute, At: at, Price: res.Price, Outcome: journal.UnsettledFinalSubset}
	if res.Provisional {
		m.Outcome = journal.UnsettledProvisional
	}
	for _, q := range res.Quotes {
		if q.Status == feeds.StatusNotCovered || q.Status == feeds.StatusNoKey {
			continue
		}
		m.Sources = append(m.Sources, journal.MarkedSource{Name: q.Source, Status: string(q.Status), Price: q.Price,
			BarTime: q.BarTime.UTC(), Final: q.Final, FetchedAt: q.FetchedAt.UTC()})
	}
	return m
}

// refuse journals the spec's refusal_answer (price) for each of our rigs drawn for a task the spec
// refuses, with the reason; the next steps commit and reveal it like any answer.
func (r *Runner) refuse(ctx context.Context, t *taskState, info agentrig.TaskView, input task.Input, why error, price numeric.Scaled) {
	reason, kind := task.RefusalText(why), task.RefusalKind(why)
	log := r.log.With("task", t.id)
	log.Warn("the spec refuses the task: answering its refusal_answer", "refusal_answer", price.String(), "rule", kind, "reason", reason)
	if m := r.cfg.Metrics; m != nil {
		m.Refused.WithLabelValues(kind).Inc()
	}
	r.record(ctx, log, t, info, journal.Entry{Symbol: input.Symbol, Minute: input.Minute, Price: price, ExpectedMedian: price, Refusal: reason},
		func(stored journal.Entry) {
			log.Info("answered the refusal", "rig", stored.RigID, "answer", stored.Price.String())
		})
}

// record journals answer e (Price, and the fields describing it) with a fresh salt for each of
// our rigs drawn for the task, before anything is sent. A rig whose journal already holds an
// answer keeps that one (RecordAnswer).
func (r *Runner) record(ctx context.Context, log *slog.Logger, t *taskState, info agentrig.TaskView, e journal.Entry, done func(journal.Entry)) {
	answer := e.Price.Answer()
	for rigID := range r.ours(info) {
		salt, err := task.NewSalt()
		if err != nil {
			log.Error("no salt", "error", err)
			return
		}
		commitment, err := task.Commitment(new(big.Int).SetUint64(t.id), rigID, answer, salt)
		if err != nil {
			log.Error("commitment", "error", err)
			return
		}
		e.TaskID, e.RigID, e.Answer, e.Salt, e.Commitment = t.id, rigID, answer, salt, commitment
		e.CommitDeadline, e.RevealDeadline = info.CommitDeadline, info.RevealDeadline
		stored, err := r.journal.RecordAnswer(r.lead.fenced(ctx), e)
		if err != nil {
			log.Error("journal write failed: not committing", "rig", rigID, "error", err)
			return
		}
		done(stored)
	}
	r.poke() // the commit goes out in the next step: take it now rather than at the next poll
}

// price fetches a task's price once, however many of our rigs ask, and shares it with the open
// tasks of the same symbol and minute.
func (r *Runner) price(ctx context.Context, taskID uint64, input task.Input, budget time.Duration) (feeds.Result, error) {
	return r.priceAs(ctx, taskID, input, budget, false)
}

// priceAs is price, noting whether the fetch is made while following.
func (r *Runner) priceAs(ctx context.Context, taskID uint64, input task.Input, budget time.Duration, following bool) (feeds.Result, error) {
	key := priceKey{symbol: input.Symbol, minute: input.Minute.Unix()}
	fetch := false
	r.mu.Lock()
	call, ok := r.prices[taskID]
	if !ok {
		if call, ok = r.priceOf[key]; !ok {
			call = &priceCall{key: key, done: make(chan struct{}), following: following}
			r.priceOf[key] = call
			fetch = true
		}
		call.users++
		r.prices[taskID] = call
	}
	r.mu.Unlock()
	if fetch {
		// Wait for the sources to be final within the budget (the commit window less its
		// margin); by then, answer from what is final or, as a last resort, provisional.
		// The context is not cancelled when Price returns: the fetches an early quorum left
		// running go on to their round's deadline and keep their bars in the ledger (issue 26's
		// Reconciler.Drain; cancelling here ended the slower sources' fetches "context
		// canceled" the moment the quorum was reached, so they filled nothing). The context
		// still ends with the rig's, and by itself at the budget.
		pctx, cancel := context.WithTimeout(ctx, budget)
		call.result, call.err = r.pricer.Price(pctx, input.Symbol, input.Minute, feeds.WaitFinal(r.cfg.Now().Add(budget)), feeds.LastResort())
		time.AfterFunc(budget, cancel)
		close(call.done)
	}
	select {
	case <-call.done:
		return call.result, call.err
	case <-ctx.Done():
		return feeds.Result{}, ctx.Err()
	}
}

// forgetPrice drops the task's price, and the symbol's at that minute for every task that asks
// next, so the next look fetches it again (it did not agree, or failed).
func (r *Runner) forgetPrice(taskID uint64) {
	r.mu.Lock()
	r.dropPriceLocked(taskID, true)
	r.mu.Unlock()
}

// dropPriceLocked lets go of the task's price (r.mu held): the shared one goes with its last
// task, or at once when forget.
func (r *Runner) dropPriceLocked(taskID uint64, forget bool) {
	call, ok := r.prices[taskID]
	if !ok {
		return
	}
	delete(r.prices, taskID)
	call.users--
	if (forget || call.users == 0) && r.priceOf[call.key] == call {
		delete(r.priceOf, call.key)
	}
}
