package audit

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/sources"
)

// TestRevisedFindsARigTaskAnsweredBeforeItsSourceChangedABar: the rig answers a minute from the
// ledger's final bars and journals it; the simulator then moves alpaca's closes (as a provider
// correcting finished bars would); the next audit rereads its window into the ledger, sees the
// new closes and reports `revised` for the task whose commit deadline passed before they were
// seen, and for the one whose evidence says it answered before they were — with the old close
// the task used, the new one, its committed answer and the answer the final bars give now — and
// not for a task still inside its commit window when they were that keeps no answer time.
func TestRevisedFindsARigTaskAnsweredBeforeItsSourceChangedABar(t *testing.T) {
	ctx := context.Background()
	m := tuesday.Truncate(time.Minute).Add(-2 * time.Minute)
	e := newSimEnv(t, m.Add(2*time.Minute))
	dir := t.TempDir()
	store, err := history.Open(filepath.Join(dir, "rig.ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	j, err := journal.OpenJournal(filepath.Join(dir, "rig.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	spec := e.spec(t)
	a := e.auditor(t, Config{Spec: spec, Symbols: []string{"NVDA"}, Minutes: 10, Ledger: store, Journal: j})
	if rep := a.Run(ctx); len(names(rep.Findings)[Revised]) != 0 {
		t.Fatalf("revised before anything changed: %+v", rep.Findings)
	}

	// the rig's answer, from the ledger the audit filled (as the rig's own fetch would have)
	priceAt := func(ledger feeds.Ledger) feeds.Result {
		t.Helper()
		rec, err := feeds.New(spec, feeds.Deps{Deps: sources.Deps{Now: e.clock.Now}, Ledger: ledger})
		if err != nil {
			t.Fatal(err)
		}
		res, err := rec.Price(ctx, "NVDA", m, feeds.WaitAll())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	then := priceAt(store)
	// task 7 is inside its commit window too, but its evidence says when it answered: now
	if err := store.KeepEvidence(ctx, history.EvidenceFor(7, then, e.clock.Now())); err != nil {
		t.Fatal(err)
	}
	for id, deadline := range map[uint64]time.Time{5: m.Add(4 * time.Minute), 6: m.Add(20 * time.Minute), 7: m.Add(20 * time.Minute)} {
		_, err := j.RecordAnswer(ctx, journal.Entry{TaskID: id, RigID: 1, Symbol: "NVDA", Minute: m, Price: then.Price, Answer: then.Price.Answer(),
			Salt: [32]byte{byte(id)}, ExpectedMedian: then.Median, CommitDeadline: deadline})
		if err != nil {
			t.Fatal(err)
		}
	}

	e.sim.SetDriftBps("alpaca", 10) // inside outlier_bps: alpaca still counts
	e.clock.Sleep(ctx, 5*time.Minute)
	rep := a.Run(ctx)
	now := priceAt(feeds.NewMemoryLedger()) // the final bars, fetched afresh
	old, _ := quoteOf(then.Quotes, "alpaca")
	cur, _ := quoteOf(now.Quotes, "alpaca")
	if old.Price == cur.Price {
		t.Fatalf("the drift left alpaca's close at %s", old.Price)
	}
	var task *Finding
	answeredBefore := false
	for i, f := range rep.Findings {
		if f.Name == Revised && f.TaskID == 6 {
			t.Errorf("task 6, inside its commit window when the revision was seen: %s", f.Message)
		}
		if f.Name == Revised && f.TaskID == 7 && f.Source == "alpaca" {
			answeredBefore = true
		}
		if f.Name == Revised && f.TaskID == 5 && f.Source == "alpaca" && f.BarTime.Equal(m) {
			task = &rep.Findings[i]
		}
	}
	if task == nil {
		t.Fatalf("no revised finding for task 5: %+v", rep.Findings)
	}
	if !answeredBefore {
		t.Errorf("no revised finding for task 7, whose evidence says it answered before the revision was seen: %+v", rep.Findings)
	}
	d := numeric.DistanceCentiBps(now.Price, then.Price)
	want := Warn
	if d > 5000 {
		want = Alert
	}
	if task.OldClose != old.Price.String() || task.NewClose != cur.Price.String() || task.Answer != then.Price.String() ||
		task.Rederived != now.Price.String() || task.Value != feeds.FormatCentiBps(d) || task.Severity != want || !task.Seen.Equal(e.clock.Now()) {
		t.Errorf("finding %+v: want old %s new %s, answer %s re-derived %s (%s bps, %s), seen at %s",
			*task, old.Price, cur.Price, then.Price, now.Price, feeds.FormatCentiBps(d), want, e.clock.Now())
	}
	if c, _ := rep.Check(CheckRevisionsName); c.State != CheckFindings {
		t.Errorf("revisions check %+v", c)
	}
}
