package history_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/pgtest"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// noSources stands for the reconciler of a rig whose sources must not be asked.
type noSources struct{}

func (noSources) Price(context.Context, string, time.Time, ...feeds.PriceOption) (feeds.Result, error) {
	return feeds.Result{}, errors.New("the sources were asked")
}

// A rig answering from a backfill store (rig --db) keeps the bars its answer was derived from as
// evidence in its own ledger (issue 33 item 2), so explain --task derives the answer again from
// the ledger alone: here a price carried from a 09:58 bar over two final minutes without a trade.
// An answer the sources gave copies nothing from the backfill.
// The same on SQLite and PostgreSQL.
func TestARigAnsweringFromABackfillKeepsItsBarsAsEvidence(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		testBackfillBarsKeptAsEvidence(t, func(name string) string { return filepath.Join(dir, name) })
	})
	t.Run("postgres", func(t *testing.T) {
		dbs := map[string]string{}
		testBackfillBarsKeptAsEvidence(t, func(name string) string {
			if _, ok := dbs[name]; !ok {
				dbs[name] = pgtest.Shared(t).NewDatabase(t)
			}
			return dbs[name]
		})
	})
}

// testBackfillBarsKeptAsEvidence runs the test on the stores at target(name), one per name.
func testBackfillBarsKeptAsEvidence(t *testing.T, target func(name string) string) {
	ctx := context.Background()
	spec, err := feeds.Load([]byte(alpacaSpec), feeds.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	backfill, ledger := openStore(t, target("prices.db")), openStore(t, target("rig.ledger.db"))
	minute := nyTime(2026, time.October, 5, 10, 0)
	window := market.Span{From: nyTime(2026, time.October, 5, 9, 50), To: nyTime(2026, time.October, 5, 10, 10)}
	bars := []sources.Bar{
		{Start: nyTime(2026, time.October, 5, 9, 55), Close: numeric.MustPrice("187.10"), Volume: 10},
		{Start: nyTime(2026, time.October, 5, 9, 58), Close: numeric.MustPrice("187.25"), Volume: 10},
		{Start: nyTime(2026, time.October, 5, 10, 5), Close: numeric.MustPrice("188.00"), Volume: 10},
	}
	if _, err := backfill.PutWindow(ctx, history.FetchedWindow{Source: "alpaca", Span: window, Symbols: []string{"NVDA"},
		Bars: map[string][]sources.Bar{"NVDA": bars}, Requests: 1, Fetched: window.To.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	// the backfill reconciles the minute from its store, as it does after fetching
	offline, err := feeds.Offline(spec, backfill)
	if err != nil {
		t.Fatal(err)
	}
	derived, err := offline.Price(ctx, "NVDA", minute)
	if err != nil || !derived.Agreed || derived.Price != numeric.MustPrice("187.25") {
		t.Fatalf("the backfill's answer: %s agreed=%v (%s) %v; want 187.25 carried from 09:58", derived.Price, derived.Agreed, derived.Reason, err)
	}
	rules, err := backfill.RulesetID(ctx, history.RulesText(spec, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := backfill.PutAnswers(ctx, rules, []history.AnswerRow{{Symbol: "NVDA", Minute: minute, Session: derived.Session, Result: derived, Complete: true, Ords: []int{0}}}); err != nil {
		t.Fatal(err)
	}

	res, stored, err := history.StoreFirst{Store: backfill, Spec: spec, Next: noSources{}}.Answer(ctx, "NVDA", minute)
	if err != nil || !stored {
		t.Fatalf("the rig's answer: stored=%v %v; want the backfill store's", stored, err)
	}
	keeper := history.Evidencer{Store: ledger, Backfill: backfill, Spec: spec}
	const task = 9
	if err := keeper.KeepEvidence(ctx, task, res, minute.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}

	// explain --task: the evidence and the ledger alone
	ev, ok, err := ledger.EvidenceOf(ctx, task)
	if err != nil || !ok {
		t.Fatalf("evidence of task %d: %v %v", task, ok, err)
	}
	again, err := feeds.Offline(spec, ledger)
	if err != nil {
		t.Fatal(err)
	}
	d, err := again.Rederive(ctx, "NVDA", ev.Minute, ev.Counted)
	if err != nil || !d.Result.Agreed || d.Result.Price != ev.Price || ev.Price != res.Price {
		t.Errorf("derived again from the rig's ledger: %s agreed=%v (%s) %v; want the answer %s", d.Result.Price, d.Result.Agreed, d.Result.Reason, err, res.Price)
	}
	held, err := ledger.Held(ctx, "alpaca", "NVDA", window.From, window.To)
	if err != nil {
		t.Fatal(err)
	}
	// only what the answer read (09:58 to 10:01): not the 09:55 bar before it, nor the 10:05 bar
	// after, and no window claiming their minutes final
	if len(held.Bars) != 1 || !held.Bars[0].Start.Equal(bars[1].Start) || held.Bars[0].Close != bars[1].Close {
		t.Errorf("the ledger holds bars %+v; want only the 09:58 bar the answer used", held.Bars)
	}
	for _, w := range held.Windows {
		if w.Span.From.Before(bars[1].Start) || w.Span.To.After(minute.Add(time.Minute)) {
			t.Errorf("the ledger holds window %s–%s, beyond what the answer read", w.Span.From, w.Span.To)
		}
	}

	// a ledger in the backfill's own database (another handle, as under another URL) holds the
	// bars already: nothing is added beside the backfill's window
	shared := openStore(t, target("prices.db"))
	if err := (history.Evidencer{Store: shared, Backfill: backfill, Spec: spec}).KeepEvidence(ctx, task, res, minute.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if held, err := shared.Held(ctx, "alpaca", "NVDA", window.From, window.To); err != nil || len(held.Windows) != 1 || len(held.Bars) != len(bars) {
		t.Errorf("the shared store holds %d windows and %d bars (%v); want the backfill's 1 and %d", len(held.Windows), len(held.Bars), err, len(bars))
	}

	// an answer the sources gave (the store lacks the minute) copies nothing
	live := minute.Add(3 * time.Minute)
	if err := keeper.KeepEvidence(ctx, task+1, feeds.Result{Symbol: "NVDA", Minute: live, Effective: live, Agreed: true, Price: numeric.MustPrice("187.60"),
		Quotes: []feeds.Quote{{Source: "alpaca", Status: feeds.StatusOK, Price: numeric.MustPrice("187.60"), BarTime: live}}}, live.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if held, err := ledger.Held(ctx, "alpaca", "NVDA", live, live.Add(time.Minute)); err != nil || len(held.Bars)+len(held.Windows) != 0 {
		t.Errorf("a live answer copied %+v from the backfill (%v); want nothing", held, err)
	}
}
