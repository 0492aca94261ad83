package rig

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

// failingJournal is a journal whose next fails answer records fail, as a database that is
// briefly unreachable.
type failingJournal struct {
	journal.Journal
	fails int
}

func (j *failingJournal) RecordAnswer(ctx context.Context, e journal.Entry) (journal.Entry, error) {
	if j.fails > 0 {
		j.fails--
		return journal.Entry{}, errors.New("the journal is unreachable")
	}
	return j.Journal.RecordAnswer(ctx, e)
}

// firstEvidence keeps a task's first evidence only, as the ledger does (history.Store.KeepEvidence:
// a task's first evidence stays).
type firstEvidence struct {
	mu   sync.Mutex
	kept map[uint64]numeric.Scaled
}

func (k *firstEvidence) KeepEvidence(_ context.Context, taskID uint64, res feeds.Result, _ time.Time) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.kept[taskID]; !ok {
		k.kept[taskID] = res.Price
	}
	return nil
}

// pricesInTurn answers each pricing with the next of its prices.
type pricesInTurn struct{ prices []numeric.Scaled }

func (p *pricesInTurn) Price(_ context.Context, symbol string, minute time.Time, _ ...feeds.PriceOption) (feeds.Result, error) {
	price := p.prices[0]
	p.prices = p.prices[1:]
	return feeds.Result{Symbol: symbol, Minute: minute, Effective: minute, Agreed: true, Price: price, Median: price, Survivors: 3}, nil
}

// The evidence is the answer (issue 33 item 2): when the journal fails to record the answer and
// the task is priced again at another price, the evidence kept is the price the journal holds
// (the one committed), not the first pricing's. Kept before the journal write, the first
// pricing's evidence stood and explain --task explained a price nobody committed.
func TestTheEvidenceKeptIsTheAnswerTheJournalRecorded(t *testing.T) {
	b := newBatchRig(t, false, 0)
	now := time.Date(2026, 11, 27, 15, 40, 0, 0, time.UTC)
	keeper := &firstEvidence{kept: map[uint64]numeric.Scaled{}}
	cfg := b.cfg
	cfg.Evidence, cfg.Now = keeper, func() time.Time { return now }
	flaky := &failingJournal{Journal: b.journal, fails: 1}
	r, err := NewRunner(b.ctx, b.sim.Client, flaky, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	first, second := numeric.MustPrice("100.01"), numeric.MustPrice("100.02")
	r.pricer = &pricesInTurn{prices: []numeric.Scaled{first, second}}
	const taskID = 9
	ts := r.task(taskID)
	ts.input = rigtask.Input{Symbol: "SPY", Minute: now.Add(-5 * time.Minute)}
	rigID := r.RigIDs()[0]
	info := agentrig.TaskView{ID: taskID, JobID: cfg.JobID, RigIDs: []uint64{rigID}, CommitDeadline: now.Add(10 * time.Minute), RevealDeadline: now.Add(20 * time.Minute)}

	r.answer(b.ctx, ts, info, now) // the journal write fails: nothing is committed
	if _, ok, err := b.journal.Get(b.ctx, taskID, rigID); err != nil || ok {
		t.Fatalf("after the failed journal write the journal holds an answer (%v, %v)", ok, err)
	}
	r.forgetPrice(taskID) // the next step prices the task again
	r.answer(b.ctx, ts, info, now)

	e, ok, err := b.journal.Get(b.ctx, taskID, rigID)
	if err != nil || !ok || e.Price != second {
		t.Fatalf("the journal holds %v (%v, %v); want the second pricing's %s", e.Price, ok, err, second)
	}
	kept, ok := keeper.kept[taskID]
	if !ok || kept != second {
		t.Errorf("the evidence kept is %s (kept: %v); want the committed answer %s, not the unrecorded %s", kept, ok, second, first)
	}
}
