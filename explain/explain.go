// Package explain is `pricerig explain`: how an answer was made, shown from the bar ledger
// alone. It derives the minute again offline (feeds.Rederive: the reconciler's own plan, Derive
// and Reconcile over what the ledger holds, no request sent), lists each source's bars around
// the minute as the ledger keeps them (close, volume, when fetched, final or provisional), the
// bar each source used or carried from and why, the outliers dropped, the lower median and the
// answer × 10^8; for a task, what the journal's rigs committed and revealed, their distance to
// the stored median, and whether the answer derived again is the one committed; and the bars a
// later fetch revised (the ledger's revisions), marked when revised after the answer.
//
// It sits with the audit: it reads feeds/history (the ledger) and rig/journal, never the chain
// machinery, and changes nothing.
//
// Files: explain.go (Options and Run: the minute or the task derived again, the journal's rigs,
// the chain's reveals, the ledger's revisions), report.go (Report and its parts, each source's
// "why", the --json shapes), text.go (the report for a person to read).
package explain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
)

// Ledger is what explain reads of the bar ledger: the history store.
type Ledger interface {
	feeds.Ledger
	Revisions(ctx context.Context, source, symbol string, from, to time.Time) ([]history.Revision, error)
	EvidenceOf(ctx context.Context, task uint64) (history.Evidence, bool, error)
}

// Tasks is what explain reads of the rig's journal.
type Tasks interface {
	Task(ctx context.Context, taskID uint64) ([]journal.Entry, error)
}

// Chain reads a task on chain (the AgentRig client): every drawn rig's reveal and the stored
// answer.
type Chain interface {
	Task(ctx context.Context, taskID *big.Int) (agentrig.AgentRigTaskInfo, error)
}

// Options say what to explain: a symbol and minute, or a task (whose symbol and minute the
// journal, else the ledger's evidence, holds).
type Options struct {
	Spec    *feeds.Spec
	Ledger  Ledger
	Journal Tasks // nil without --journal
	Chain   Chain // nil without a chain: a task's reveals are then our rigs' alone (the journal's)
	Symbol  string
	Minute  time.Time
	Task    uint64 // 0: Symbol and Minute
	// Now is price's clock (nil: the real one): a minute younger than a source's publication
	// delay is derived as price would derive it now.
	Now func() time.Time
}

// ErrUnknownTask is the error for a task neither the journal nor the ledger knows.
var ErrUnknownTask = errors.New("task not found")

// Run derives the answer again and explains it.
func Run(ctx context.Context, o Options) (Report, error) {
	var rep Report
	var tr *TaskReport
	if o.Task != 0 {
		t, err := taskOf(ctx, o)
		if err != nil {
			return rep, err
		}
		tr, o.Symbol, o.Minute = &t, t.Symbol, t.Minute
		if t.Refusal != "" {
			// the spec refused the task: its answer is the refusal_answer every rig gave, not a
			// price of the ledger's
			t.Rederived = true
			return Report{Symbol: t.Symbol, Minute: t.Minute, Reason: "the spec refused the task: " + t.Refusal,
				Sources: []Source{}, Revisions: []Revision{}, Task: &t}, nil
		}
	}
	off, err := feeds.OfflineAt(o.Spec, o.Ledger, o.Now)
	if err != nil {
		return rep, err
	}
	var counted []string
	if tr != nil {
		counted = tr.Counted
	}
	d, err := off.Rederive(ctx, o.Symbol, o.Minute, counted)
	if err != nil {
		return rep, err
	}
	rep = reportOf(d, o.Spec.Rules)
	span := d.Span()
	if span.From.IsZero() {
		span.From, span.To = d.Result.Effective, d.Result.Effective.Add(time.Minute)
	}
	revs, err := o.Ledger.Revisions(ctx, "", o.Symbol, span.From, span.To)
	if err != nil {
		return rep, fmt.Errorf("reading the ledger's revisions: %w", err)
	}
	used := map[string]time.Time{}
	for _, s := range rep.Sources {
		if s.Used {
			used[s.Source] = s.BarTime
		}
	}
	for _, r := range revs {
		rv := Revision{Source: r.Source, Minute: r.Minute, Old: r.Old, New: r.New, OldFetched: r.OldFetched, Seen: r.Seen, OldFinal: r.OldFinal}
		rv.Used = used[r.Source].Equal(r.Minute) && !r.Minute.IsZero()
		if tr != nil && !tr.AnsweredAt.IsZero() {
			rv.AfterAnswer = r.Seen.After(tr.AnsweredAt)
		}
		rep.Revisions = append(rep.Revisions, rv)
	}
	if tr != nil {
		tr.Rederived = rep.Agreed && rep.Answer == tr.Committed
		rep.Task = tr
		if o.Chain != nil {
			if err := onChain(ctx, o.Chain, tr); err != nil {
				return rep, err
			}
		}
		tr.EvidenceDiffers = evidenceDiffers(tr)
	}
	return rep, nil
}

// evidenceDiffers compares the evidence's price with what our rigs committed and revealed (the
// journal) and revealed on chain: "" when every one is the evidence's, else a sentence naming
// both.
func evidenceDiffers(t *TaskReport) string {
	if !t.Evidence {
		return ""
	}
	var diff []string
	ours := map[uint64]bool{}
	for _, r := range t.Rigs {
		ours[r.Rig] = true
		if r.Committed != t.Committed {
			diff = append(diff, fmt.Sprintf("rig %d committed %s (the journal)", r.Rig, r.Committed))
		}
		if r.Revealed != nil && *r.Revealed != t.Committed {
			diff = append(diff, fmt.Sprintf("rig %d revealed %s (the journal)", r.Rig, *r.Revealed))
		}
	}
	for _, r := range t.Reveals {
		if ours[r.Rig] && r.Revealed != nil && *r.Revealed != t.Committed {
			diff = append(diff, fmt.Sprintf("rig %d revealed %s (the chain)", r.Rig, *r.Revealed))
		}
	}
	if len(diff) == 0 {
		return ""
	}
	return fmt.Sprintf("the evidence's price is %s, but %s", t.Committed, strings.Join(diff, ", "))
}

// onChain reads every drawn rig's reveal of the task and its distance to the stored answer (the
// median the contract kept), once the task is settled.
func onChain(ctx context.Context, c Chain, t *TaskReport) error {
	info, err := c.Task(ctx, new(big.Int).SetUint64(t.ID))
	if err != nil {
		return fmt.Errorf("reading task %d on chain: %w", t.ID, err)
	}
	var stored *numeric.Scaled
	if agentrig.Phase(info.Phase) == agentrig.PhaseSettled {
		if a := numeric.AnswerInt(info.Answer); a.IsInt64() {
			v := numeric.Scaled(a.Int64())
			stored, t.StoredMedian, t.Agreed = &v, &v, &info.Agreed
		}
	}
	t.Reveals = []Reveal{}
	for i, rig := range info.RigIds {
		r := Reveal{Rig: rig, DistanceCentiBps: -1}
		if info.RevealedMask&(1<<i) != 0 && i < len(info.Answers) {
			if a := numeric.AnswerInt(info.Answers[i]); a.IsInt64() {
				v := numeric.Scaled(a.Int64())
				r.Revealed = &v
				if stored != nil {
					r.DistanceCentiBps = numeric.DistanceCentiBps(v, *stored)
				}
			}
		}
		t.Reveals = append(t.Reveals, r)
	}
	return nil
}

// taskOf reads a task's answer: our rigs' entries in the journal, and the evidence the ledger
// keeps of it (when it was answered).
func taskOf(ctx context.Context, o Options) (TaskReport, error) {
	t := TaskReport{ID: o.Task}
	ev, haveEvidence, err := o.Ledger.EvidenceOf(ctx, o.Task)
	if err != nil {
		return t, fmt.Errorf("reading the ledger's evidence: %w", err)
	}
	if haveEvidence {
		t.Evidence = true
		t.Symbol, t.Minute, t.AnsweredAt, t.Committed, t.Counted = ev.Symbol, ev.Minute, ev.Answered, ev.Price, ev.Counted
	}
	var entries []journal.Entry
	if o.Journal != nil {
		if entries, err = o.Journal.Task(ctx, o.Task); err != nil {
			return t, fmt.Errorf("reading the journal: %w", err)
		}
	}
	for _, e := range entries {
		if e.Refusal != "" {
			t.Refusal = e.Refusal
		}
		if !haveEvidence && t.Symbol == "" {
			t.Symbol, t.Minute, t.Committed = e.Symbol, e.Minute, e.Price
		}
		t.Rigs = append(t.Rigs, rigOf(e))
	}
	if t.Symbol == "" {
		where := "the ledger's evidence"
		if o.Journal != nil {
			where = "the journal or " + where
		}
		return t, fmt.Errorf("%w: task %d is in neither %s", ErrUnknownTask, o.Task, where)
	}
	return t, nil
}

// rigOf is what one of our rigs did on the task.
func rigOf(e journal.Entry) RigAnswer {
	r := RigAnswer{Rig: e.RigID, State: string(e.State), Committed: e.Price, DistanceCentiBps: -1}
	if e.State == journal.StateRevealed || e.State == journal.StateSettled {
		a := numeric.AnswerInt(e.Answer)
		if a.IsInt64() {
			v := numeric.Scaled(a.Int64())
			r.Revealed = &v
		}
	}
	if e.State == journal.StateSettled {
		s := numeric.AnswerInt(e.StoredAnswer)
		if s.IsInt64() {
			v := numeric.Scaled(s.Int64())
			r.StoredMedian = &v
			r.DistanceCentiBps = e.RealizedCentiBps
			r.Agreed, r.Inside = &e.Agreed, &e.Inside
		}
	}
	return r
}
