package explain

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/sources"
	_ "github.com/pricerig/pricerig/sources/all"
)

var minute = time.Date(2026, 3, 10, 15, 31, 0, 0, time.UTC)

// keep stores a window of bars of one source around the minute, fetched at fetched, every bar
// final; the minute's close is close, the others a cent apart.
func keep(t *testing.T, st *history.Store, source string, close numeric.Scaled, fetched time.Time) {
	t.Helper()
	span := market.Span{From: minute.Add(-10 * time.Minute), To: minute.Add(10 * time.Minute)}
	var bars []sources.Bar
	for m := span.From; m.Before(span.To); m = m.Add(time.Minute) {
		c := close + numeric.Scaled(m.Sub(minute)/time.Minute)*1000
		bars = append(bars, sources.Bar{Start: m, Close: c, Volume: 100})
	}
	if err := st.Keep(context.Background(), feeds.Kept{Source: source, Symbol: "NVDA", Span: span, Bars: bars, Fetched: fetched, FinalTo: span.To, Requests: 1}); err != nil {
		t.Fatal(err)
	}
}

// specAndLedger is the shipped spec, no key set, and an empty bar ledger closed at the test's end.
func specAndLedger(t *testing.T) (*feeds.Spec, *history.Store) {
	t.Helper()
	spec, err := feeds.Load(pricerig.DefaultSpec, feeds.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	st, err := history.Open(filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return spec, st
}

// keepThree stores yahoo's, alpaca's and pyth's bars fetched at fetched: at the minute 100.00,
// 100.01 and 100.02, whose lower median is 100.01.
func keepThree(t *testing.T, st *history.Store, fetched time.Time) {
	t.Helper()
	keep(t, st, "yahoo", 100_00000000, fetched)
	keep(t, st, "alpaca", 100_01000000, fetched)
	keep(t, st, "pyth", 100_02000000, fetched)
}

type tasks []journal.Entry

func (ts tasks) Task(_ context.Context, id uint64) ([]journal.Entry, error) {
	var out []journal.Entry
	for _, e := range ts {
		if e.TaskID == id {
			out = append(out, e)
		}
	}
	return out, nil
}

// A task answered from three sources' final bars is derived again to the same answer; a later
// fetch revising the bar one source used is shown as a revision after the answer, and the
// answer derived again from the ledger as it now stands is no longer the committed one.
func TestExplainShowsARevisionAfterTheAnswer(t *testing.T) {
	spec, st := specAndLedger(t)
	ctx := context.Background()
	fetched := minute.Add(time.Hour)
	keepThree(t, st, fetched)
	answered := fetched.Add(time.Minute)
	committed := numeric.Scaled(100_01000000) // the lower median of the three
	if err := st.KeepEvidence(ctx, history.Evidence{Task: 9, Symbol: "NVDA", Minute: minute, Answered: answered, Price: committed,
		Span: market.Span{From: minute, To: minute.Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	j := tasks{{TaskID: 9, RigID: 1, Symbol: "NVDA", Minute: minute, Price: committed, Answer: committed.Answer(), State: journal.StateSettled,
		StoredAnswer: committed.Answer(), Agreed: true, Inside: true, RealizedCentiBps: 0}}

	rep, err := Run(ctx, Options{Spec: spec, Ledger: st, Journal: j, Task: 9})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Agreed || rep.Answer != committed || rep.Task == nil || !rep.Task.Rederived || !rep.Task.Evidence || len(rep.Revisions) != 0 {
		t.Fatalf("before the revision: %+v (task %+v)", rep, rep.Task)
	}
	if r := rep.Task.Rigs; len(r) != 1 || r[0].Revealed == nil || *r[0].Revealed != committed || r[0].StoredMedian == nil || r[0].DistanceCentiBps != 0 {
		t.Errorf("rigs %+v", r)
	}
	used := 0
	for _, s := range rep.Sources {
		if s.Used {
			used++
			if s.Status != feeds.StatusOK || len(s.Bars) != 11 || !s.Bars[5].Used || !s.Bars[5].Final || !s.Bars[5].FetchedAt.Equal(fetched) {
				t.Errorf("%s: %+v", s.Source, s)
			}
		}
	}
	if used != 3 {
		t.Errorf("%d sources used, want 3", used)
	}

	// alpaca revises its 15:31 close after the answer
	keep(t, st, "alpaca", 100_01500000, answered.Add(time.Hour))
	rep, err = Run(ctx, Options{Spec: spec, Ledger: st, Journal: j, Task: 9})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Task.Rederived || rep.Answer != 100_01500000 {
		t.Errorf("after the revision: answer %s, rederived %v; want 100.015, not the committed", rep.Answer, rep.Task.Rederived)
	}
	var mine *Revision
	for i, r := range rep.Revisions {
		if r.Source == "alpaca" && r.Minute.Equal(minute) {
			mine = &rep.Revisions[i]
		}
	}
	if mine == nil || !mine.AfterAnswer || !mine.Used || mine.Old != committed || mine.New != 100_01500000 {
		t.Fatalf("revisions %+v, want alpaca's 15:31 after the answer", rep.Revisions)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DIFFERS from the answer committed", "alpaca 2026-03-10 15:31: 100.01 → 100.015", "(after the answer)", "rig 1 settled"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if _, err := Run(ctx, Options{Spec: spec, Ledger: st, Task: 10}); err == nil || !strings.Contains(err.Error(), "task 10") {
		t.Errorf("an unknown task: %v", err)
	}
	// a task the spec refused (a symbol no feed has) is explained by its refusal, not priced
	refused := tasks{{TaskID: 11, RigID: 1, Symbol: "XYZ", Minute: minute, Price: 0, Refusal: "XYZ is not a feed of the spec"}}
	rep, err = Run(ctx, Options{Spec: spec, Ledger: st, Journal: refused, Task: 11})
	if err != nil || rep.Task == nil || !rep.Task.Rederived || !strings.Contains(rep.Reason, "not a feed") || len(rep.Sources) != 0 {
		t.Errorf("a refused task: %+v (task %+v), %v", rep, rep.Task, err)
	}
}

// A task answered on an early quorum counted three sources; the two slower ones finished after
// the answer and their bars are in the ledger too. Derived again with the sources its evidence
// says it counted, the answer is the committed one, and the others are shown not counted;
// evidence that does not say (kept before schema 6) counts every source, and the answer then
// differs, which is what explain said of every early-quorum answer before the evidence kept them.
func TestExplainCountsTheSourcesTheAnswerCounted(t *testing.T) {
	spec, st := specAndLedger(t)
	ctx := context.Background()
	fetched := minute.Add(time.Hour)
	keepThree(t, st, fetched)
	answered := fetched.Add(time.Second)
	keep(t, st, "twelvedata", 100_03000000, answered.Add(time.Second)) // after the answer
	keep(t, st, "tiingo", 100_04000000, answered.Add(time.Second))
	committed := numeric.Scaled(100_01000000) // the lower median of the three it counted
	span := market.Span{From: minute, To: minute.Add(time.Minute)}
	for task, counted := range map[uint64][]string{1: {"yahoo", "alpaca", "pyth"}, 2: nil} {
		if err := st.KeepEvidence(ctx, history.Evidence{Task: task, Symbol: "NVDA", Minute: minute, Answered: answered, Price: committed,
			Span: span, Counted: counted}); err != nil {
			t.Fatal(err)
		}
	}

	rep, err := Run(ctx, Options{Spec: spec, Ledger: st, Task: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Agreed || rep.Answer != committed || !rep.Task.Rederived || rep.Survivors != 3 || len(rep.Task.Counted) != 3 {
		t.Fatalf("counting what the answer counted: answer %s of %d, rederived %v, counted %v; want %s of 3", rep.Answer, rep.Survivors, rep.Task.Rederived, rep.Task.Counted, committed)
	}
	notCounted := 0
	for _, s := range rep.Sources {
		if s.Source == "twelvedata" || s.Source == "tiingo" {
			notCounted++
			if s.Used || s.Status != feeds.StatusPending || s.Why != feeds.NotCounted || len(s.Bars) == 0 {
				t.Errorf("%s: %+v, want pending, not counted, its bars listed", s.Source, s)
			}
		}
	}
	if notCounted != 2 {
		t.Errorf("%d sources not counted, want 2", notCounted)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"equals the answer committed", "counted, as when it was answered: yahoo, alpaca, pyth", feeds.NotCounted} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}

	rep, err = Run(ctx, Options{Spec: spec, Ledger: st, Task: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Task.Rederived || rep.Answer != 100_02000000 || rep.Survivors != 5 {
		t.Errorf("evidence without its counted sources: answer %s of %d, rederived %v; want every source counted (100.02 of 5)", rep.Answer, rep.Survivors, rep.Task.Rederived)
	}
	text.Reset()
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "does not say which sources it counted") {
		t.Errorf("text does not say the evidence lacks the counted sources:\n%s", text.String())
	}
}

// TestExplainUsesPricesClockAndDeadlines (issue 33): a minute younger than a delayed source's
// publication delay is not_covered, as price calls it (ready at minute + delay), not not_final
// with a deadline; no source's line names a deadline before the minute it describes; a weekend
// minute's carried bar is not also "no bar at" its own minute.
func TestExplainUsesPricesClockAndDeadlines(t *testing.T) {
	spec, st := specAndLedger(t)
	keepThree(t, st, minute.Add(10*time.Minute))
	now := minute.Add(3 * time.Minute)
	rep, err := Run(context.Background(), Options{Spec: spec, Ledger: st, Symbol: "NVDA", Minute: minute, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	massive := sourceOf(t, rep, "massive")
	if massive.Status != feeds.StatusNotCovered || !strings.Contains(massive.Why, "ready at "+minute.Add(time.Minute+24*time.Hour).Format(time.RFC3339)) {
		t.Errorf("massive inside its delay: %s %q, want not_covered as price says", massive.Status, massive.Why)
	}
	noDeadlineBefore(t, rep, minute)

	saturday := time.Date(2026, 3, 14, 15, 0, 0, 0, time.UTC)
	rep, err = Run(context.Background(), Options{Spec: spec, Ledger: st, Symbol: "NVDA", Minute: saturday, Now: func() time.Time { return saturday.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	noDeadlineBefore(t, rep, saturday)
	for _, s := range rep.Sources {
		if strings.Contains(s.Why, "may still publish") {
			t.Errorf("%s: %q: the Friday bar was final at the source before Saturday", s.Source, s.Why)
		}
	}
	carried := why(feeds.Quote{Source: "yahoo", Status: feeds.StatusCarried, BarTime: rep.Effective}, feeds.Result{Minute: saturday, Effective: rep.Effective}, spec.Rules)
	if strings.Contains(carried, "no bar at "+rep.Effective.Format("15:04")) {
		t.Errorf("carried from the effective minute's own bar: %q", carried)
	}
}

func sourceOf(t *testing.T, rep Report, name string) Source {
	t.Helper()
	for _, s := range rep.Sources {
		if s.Source == name {
			return s
		}
	}
	t.Fatalf("no source %s in %+v", name, rep.Sources)
	return Source{}
}

// noDeadlineBefore fails on any time a source's line names that is before the minute described.
func noDeadlineBefore(t *testing.T, rep Report, m time.Time) {
	t.Helper()
	for _, s := range rep.Sources {
		for _, w := range strings.Fields(strings.NewReplacer(",", " ", ";", " ", ")", " ", "(", " ").Replace(s.Why)) {
			if at, err := time.Parse(time.RFC3339, w); err == nil && at.Before(m) && strings.Contains(s.Why, "until") {
				t.Errorf("%s: %q names a deadline %s before the minute %s", s.Source, s.Why, at, m)
			}
		}
	}
}

// TestExplainComparesTheEvidenceWithTheAnswerGiven (issue 33's reproduction): the evidence kept
// the first price (100.01), the rig committed and revealed a second (100.02) after recording the
// first answer failed; explain names both instead of calling the evidence "committed".
func TestExplainComparesTheEvidenceWithTheAnswerGiven(t *testing.T) {
	spec, st := specAndLedger(t)
	ctx := context.Background()
	keepThree(t, st, minute.Add(time.Hour))
	first, second := numeric.Scaled(100_01000000), numeric.Scaled(100_02000000)
	if err := st.KeepEvidence(ctx, history.Evidence{Task: 9, Symbol: "NVDA", Minute: minute, Answered: minute.Add(61 * time.Minute), Price: first,
		Span: market.Span{From: minute, To: minute.Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	j := tasks{{TaskID: 9, RigID: 1, Symbol: "NVDA", Minute: minute, Price: second, Answer: second.Answer(), State: journal.StateRevealed}}
	rep, err := Run(ctx, Options{Spec: spec, Ledger: st, Journal: j, Task: 9})
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Task.EvidenceDiffers
	if !strings.Contains(d, "evidence's price is 100.01") || !strings.Contains(d, "rig 1 committed 100.02 (the journal)") || !strings.Contains(d, "rig 1 revealed 100.02") {
		t.Errorf("evidence_differs %q, want both prices named", d)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "the evidence is NOT the answer given") {
		t.Errorf("text:\n%s", text.String())
	}
	// the same evidence and commit: nothing differs
	j[0].Price = first
	j[0].Answer = first.Answer()
	if rep, err := Run(ctx, Options{Spec: spec, Ledger: st, Journal: j, Task: 9}); err != nil || rep.Task.EvidenceDiffers != "" {
		t.Errorf("evidence_differs %q, %v for the answer given", rep.Task.EvidenceDiffers, err)
	}
}
