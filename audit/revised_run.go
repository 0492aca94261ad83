package audit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/journal"
)

// Ledger is what the revisions check reads of the bar ledger, and fills; *history.Store has it.
type Ledger interface {
	feeds.Ledger
	// Revisions lists the revised bars of symbol ("" every symbol) from source ("" every source)
	// that start in [from, to).
	Revisions(ctx context.Context, source, symbol string, from, to time.Time) ([]history.Revision, error)
	// Answers calls fn with each stored answer the query selects.
	Answers(ctx context.Context, q history.Query, fn func(history.Answer) error) error
	// EvidenceOf reads the evidence a rig kept of its answer to task (ok false when none).
	EvidenceOf(ctx context.Context, task uint64) (e history.Evidence, ok bool, err error)
}

// Marks is what the revisions check reads of the rig's marks of answers taken before their
// sources were final, with the bar each source gave; *journal.DBJournal has it.
type Marks interface {
	UnsettledSince(ctx context.Context, t time.Time) ([]journal.UnsettledMark, error)
}

// rereadWindow asks every source again for the bars of the run's spans, whatever the ledger
// holds, before the sources check prices them: a close a source changed since the ledger's
// fetch is kept as a revision, and the sources check then reads the bars from the ledger
// without another request (one request per source, symbol and span, as without a ledger).
// A failure is the sources check's to report: its own fetch asks again.
func (a *Auditor) rereadWindow(ctx context.Context, spans []span) {
	if a.cfg.Ledger == nil {
		return
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, sym := range a.symbols {
		wg.Go(func() {
			for _, sp := range spans {
				n, err := a.rec.Reread(ctx, sym, sp.from, sp.to.Add(-time.Minute))
				mu.Lock()
				a.reread += n
				if err != nil {
					a.rereadFailed++
					a.cfg.Deps.Logger.Debug("rereading the window", "symbol", sym, "error", redact.Error(err))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// revisions runs the revisions check: the rig's answers (with --journal) and the stored ones of
// the window, and the ledger's minutes of the window, against the closes sources revised.
func (a *Auditor) revisions(ctx context.Context, w Window) (CheckResult, []Finding) {
	c := CheckResult{Name: CheckRevisionsName}
	if a.cfg.Ledger == nil {
		c.State, c.Detail = CheckSkipped, "no bar ledger (--db, --journal, or the per-user store)"
		return c, nil
	}
	fail := func(what string, err error) (CheckResult, []Finding) {
		c.State, c.Detail = CheckError, what+": "+redact.Error(err)
		return c, nil
	}
	answers, tasks, err := a.rigAnswers(ctx, w)
	if err != nil {
		return fail("reading the journal", err)
	}
	err = a.cfg.Ledger.Answers(ctx, history.Query{Symbols: a.symbols, From: w.From, To: w.To}, func(x history.Answer) error {
		answers = append(answers, storedAnswered(x))
		return nil
	})
	if err != nil {
		return fail("reading the stored answers", err)
	}
	rules := a.cfg.Spec.Rules
	from := w.From // back to the oldest answer's minute
	for _, x := range answers {
		if x.Minute.Before(from) {
			from = x.Minute
		}
	}
	var revs []history.Revision
	for _, sym := range a.symbols {
		rs, err := a.cfg.Ledger.Revisions(ctx, "", sym, from.Add(-rules.MaxCarry), w.To)
		if err != nil {
			return fail("reading the revised bars", err)
		}
		revs = append(revs, rs...)
	}
	current := a.rederive(ctx, answers, revs, w)
	findings := CheckRevised(answers, revs, current, w.From, w.To, rules, a.cfg.Spec.Job.ToleranceBps)
	c.Detail = fmt.Sprintf("%s of the ledger since %s under %s (%s of the rig), %s of the window reread",
		plural(len(revs), "revised bar"), from.Format(time.RFC3339), plural(len(answers), "recorded answer"), plural(tasks, "task"), plural(a.reread, "source window"))
	if a.rereadFailed > 0 {
		c.Detail += fmt.Sprintf(" (%d failed: see the sources check)", a.rereadFailed)
	}
	return c, findings
}

// rigAnswers are the rig's answers of the window (the rig check's entries) with their marks.
func (a *Auditor) rigAnswers(ctx context.Context, w Window) ([]Answered, int, error) {
	if a.cfg.Journal == nil {
		return nil, 0, nil
	}
	recent, err := a.cfg.Journal.Since(ctx, w.From)
	if err != nil {
		return nil, 0, err
	}
	open, err := a.cfg.Journal.Open(ctx)
	if err != nil {
		return nil, 0, err
	}
	entries := append(recent, open...)
	var marks []journal.UnsettledMark
	if m, ok := a.cfg.Journal.(Marks); ok && len(entries) > 0 {
		since := w.From // back to the oldest task's minute: its mark was taken after it
		for _, e := range entries {
			if e.Minute.Before(since) {
				since = e.Minute
			}
		}
		if marks, err = m.UnsettledSince(ctx, since); err != nil {
			return nil, 0, err
		}
	}
	var out []Answered
	for _, x := range answeredOf(entries, marks) {
		if !slices.Contains(a.symbols, x.Symbol) {
			continue
		}
		if a.cfg.Ledger != nil {
			ev, ok, err := a.cfg.Ledger.EvidenceOf(ctx, x.TaskID)
			if err != nil {
				return nil, 0, fmt.Errorf("reading task %d's evidence: %w", x.TaskID, err)
			}
			if ok {
				x.Counted = ev.Counted
				if !ev.Answered.IsZero() && (x.By.IsZero() || ev.Answered.Before(x.By)) {
					x.By = ev.Answered // when it answered, not only the latest it could have
				}
			}
		}
		out = append(out, x)
	}
	return out, len(out), nil
}

// rederive prices, from the ledger as it is now, every minute a revision may concern: an
// answer's whose symbol has a revised bar within max_carry before it, and each minute of the
// window with a revised bar the ledger held final. The ledger holds those bars final: no request.
func (a *Auditor) rederive(ctx context.Context, answers []Answered, revs []history.Revision, w Window) map[MinuteKey]feeds.Result {
	want := map[MinuteKey]time.Time{}
	maxCarry := a.cfg.Spec.Rules.MaxCarry
	for _, r := range revs {
		if r.OldFinal && !r.Minute.Before(w.From) && r.Minute.Before(w.To) {
			want[KeyOf(r.Symbol, r.Minute)] = r.Minute
		}
		for _, x := range answers {
			if x.Symbol == r.Symbol && !r.Minute.After(x.Minute) && !r.Minute.Before(x.Minute.Add(-maxCarry)) {
				want[KeyOf(x.Symbol, x.Minute)] = x.Minute
			}
		}
	}
	out := map[MinuteKey]feeds.Result{}
	rec := a.rec
	if rec == nil {
		rec, _ = a.reconciler(1)
	}
	for k, m := range want {
		res, _ := rec.Price(ctx, k.Symbol, m, feeds.WaitAll())
		out[k] = res
	}
	return out
}
