package history

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Prune keeps the days an answer's evidence pins, whatever their age, and drops the other days'
// bars, windows and revisions once older than the retention; the evidence itself goes after its
// own retention, and then its days go too. The same on SQLite and PostgreSQL.
func TestPruneKeepsTheEvidence(t *testing.T) {
	eachBackend(t, func(t *testing.T, be storeBackend) {
		ctx := context.Background()
		s := be.open(t, "ledger.db")
		keep := func(source string, m time.Time, closes ...int64) {
			t.Helper()
			var bars []sources.Bar
			for i, c := range closes {
				bars = append(bars, bar(m.Add(time.Duration(i)*time.Minute), c))
			}
			span := market.Span{From: m, To: m.Add(time.Duration(len(closes)) * time.Minute)}
			for _, fetched := range []time.Time{span.To, span.To.Add(time.Hour)} { // twice, the second revising the last close
				bars[len(bars)-1].Close++
				k := feeds.Kept{Source: source, Symbol: "NVDA", Span: span, Bars: bars, Fetched: fetched, FinalTo: span.To, Requests: 1}
				if err := s.Keep(ctx, k); err != nil {
					t.Fatal(err)
				}
			}
		}
		used := ny(2026, time.March, 10, 10, 0)  // a task's minute
		other := ny(2026, time.March, 11, 10, 0) // a day no task read
		recent := ny(2026, time.June, 2, 10, 0)  // younger than the retention
		for _, src := range []string{"alpaca", "yahoo"} {
			keep(src, used.Add(-3*time.Minute), 100, 101, 102, 103)
			keep(src, other, 200, 201)
			keep(src, recent, 300)
		}
		// a month's window (Alpha Vantage's request) over the pinned day: it says which minutes
		// of the day had no trade, and stays with it
		month := market.Span{From: ny(2026, time.March, 1, 0, 0), To: ny(2026, time.March, 31, 0, 0)}
		if err := s.Keep(ctx, feeds.Kept{Source: "alphavantage", Symbol: "NVDA", Span: month, Bars: []sources.Bar{bar(used, 103)},
			Fetched: month.To, FinalTo: month.To, Requests: 1}); err != nil {
			t.Fatal(err)
		}
		ev := Evidence{Task: 7, Symbol: "NVDA", Minute: used, Answered: used.Add(2 * time.Minute), Price: 103,
			Span: market.Span{From: used.Add(-3 * time.Minute), To: used.Add(time.Minute)}, Counted: []string{"alpaca", "yahoo"}}
		if err := s.KeepEvidence(ctx, ev); err != nil {
			t.Fatal(err)
		}
		// a second rig of the task changes nothing
		if err := s.KeepEvidence(ctx, Evidence{Task: 7, Symbol: "NVDA", Minute: used, Answered: used.Add(time.Hour), Price: 1}); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.EvidenceOf(ctx, 7)
		if err != nil || !ok || got.Price != 103 || !got.Answered.Equal(ev.Answered) || !got.Minute.Equal(used) || !slices.Equal(got.Counted, ev.Counted) {
			t.Fatalf("evidence %+v %v %v", got, ok, err)
		}
		held := func(m time.Time) int {
			h, err := s.Held(ctx, "alpaca", "NVDA", m.Add(-5*time.Minute), m.Add(5*time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			return len(h.Bars) + len(h.Windows)
		}
		revisions := func(m time.Time) int {
			r, err := s.Revisions(ctx, "", "NVDA", m.Add(-5*time.Minute), m.Add(5*time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			return len(r)
		}
		pinned, recentHeld := held(used), held(recent)
		if pinned != 5 || held(other) == 0 || revisions(used) == 0 || revisions(other) == 0 {
			t.Fatalf("kept %d of the pinned day (want 4 bars and a window), %d of the other", pinned, held(other))
		}

		now := ny(2026, time.June, 20, 12, 0)
		p, err := s.Prune(ctx, Retention{Bars: 30 * 24 * time.Hour, Evidence: 365 * 24 * time.Hour}, now)
		if err != nil {
			t.Fatal(err)
		}
		if p.BarDays != 2 || p.Windows != 2 || p.Revisions != 2 || p.Evidence != 0 {
			t.Errorf("pruned %+v, want the other day's 2 blocks, 2 windows and 2 revisions", p)
		}
		if held(other) != 0 || revisions(other) != 0 {
			t.Errorf("the unpinned day is still held")
		}
		if held(used) != pinned || revisions(used) != 2 || held(recent) != recentHeld {
			t.Errorf("pinned day: %d held of %d, %d revisions of 2; the recent day %d of %d", held(used), pinned, revisions(used), held(recent), recentHeld)
		}
		if h, err := s.Held(ctx, "alphavantage", "NVDA", used.Add(-time.Minute), used.Add(time.Minute)); err != nil || len(h.Windows) != 1 || len(h.Bars) != 1 {
			t.Errorf("the month over the pinned day: %+v (%v)", h, err)
		}
		// nothing more to prune: the same again drops nothing
		if p, err := s.Prune(ctx, Retention{Bars: 30 * 24 * time.Hour}, now); err != nil || p != (Pruned{}) {
			t.Errorf("second prune %+v, %v", p, err)
		}

		// a year and more later the evidence goes, and its days with it
		later := now.Add(400 * 24 * time.Hour)
		p, err = s.Prune(ctx, Retention{Bars: 30 * 24 * time.Hour, Evidence: 365 * 24 * time.Hour}, later)
		if err != nil || p.Evidence != 1 || p.BarDays != 5 || p.Windows != 5 {
			t.Errorf("pruned %+v (%v), want the evidence and every day left", p, err)
		}
		if _, ok, _ := s.EvidenceOf(ctx, 7); ok || held(used) != 0 {
			t.Errorf("the expired evidence's days are still held")
		}
	})
}

// PruneEvery prunes at once, logs what it dropped, prunes again each period (a day that ages
// past the retention while the rig runs goes at the next one), and returns when its context ends.
func TestPruneEveryPrunesAtOnceAndAgainEachPeriod(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := sqliteStore.open(t, "ledger.db")
	keep := func(m time.Time) {
		t.Helper()
		span := market.Span{From: m, To: m.Add(time.Minute)}
		if err := s.Keep(ctx, feeds.Kept{Source: "alpaca", Symbol: "NVDA", Span: span, Bars: []sources.Bar{bar(m, 100)},
			Fetched: span.To, FinalTo: span.To, Requests: 1}); err != nil {
			t.Fatal(err)
		}
	}
	held := func(m time.Time) int {
		t.Helper()
		h, err := s.Held(ctx, "alpaca", "NVDA", m, m.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		return len(h.Bars) + len(h.Windows)
	}
	first, second := ny(2026, time.March, 10, 10, 0), ny(2026, time.March, 11, 10, 0)
	keep(first)
	var now atomic.Int64
	now.Store(first.Add(DefaultRetention.Bars + 48*time.Hour).Unix()) // the first day is past the retention
	var logs syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.PruneEvery(ctx, DefaultRetention, 10*time.Millisecond, func() time.Time { return time.Unix(now.Load(), 0) }, log)
	}()
	eventually := func(what string, ok func() bool) {
		t.Helper()
		for range 2000 {
			if ok() {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("%s did not happen; the log:\n%s", what, logs.String())
	}
	eventually("the first prune", func() bool { return held(first) == 0 })
	eventually("its log line", func() bool { return strings.Contains(logs.String(), "pruned the bar ledger") })
	// a day still young is kept, until the clock moves past its retention too
	now.Store(second.Add(DefaultRetention.Bars - time.Hour).Unix())
	keep(second)
	time.Sleep(50 * time.Millisecond) // several periods
	if held(second) == 0 {
		t.Fatal("a day younger than the retention was pruned")
	}
	now.Store(second.Add(DefaultRetention.Bars + 48*time.Hour).Unix())
	eventually("the prune of the day that aged", func() bool { return held(second) == 0 })
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("PruneEvery did not return when its context ended")
	}
}

// TestPruneLeavesWhatABackfillWrote: a rig's ledger in the store a backfill fills (issue 33: the
// rig told the two apart by comparing URL strings) prunes its own old bars and never the
// backfill's, of the same source and day or not.
func TestPruneLeavesWhatABackfillWrote(t *testing.T) {
	eachBackend(t, func(t *testing.T, be storeBackend) {
		ctx := context.Background()
		s := be.open(t, "shared.db")
		old := ny(2026, time.March, 10, 10, 0)
		backfilled := market.Span{From: old, To: old.Add(2 * time.Minute)}
		if _, err := s.PutWindow(ctx, FetchedWindow{Source: "yahoo", Span: backfilled, Symbols: []string{"NVDA"},
			Bars: map[string][]sources.Bar{"NVDA": {bar(old, 100), bar(old.Add(time.Minute), 101)}}, Requests: 1, Fetched: backfilled.To}); err != nil {
			t.Fatal(err)
		}
		rigs := old.Add(24 * time.Hour) // the rig's own bars of the same source, a day later
		for _, src := range []string{"yahoo", "alpaca"} {
			span := market.Span{From: rigs, To: rigs.Add(time.Minute)}
			if err := s.Keep(ctx, feeds.Kept{Source: src, Symbol: "NVDA", Span: span, Bars: []sources.Bar{bar(rigs, 200)}, Fetched: span.To, FinalTo: span.To, Requests: 1}); err != nil {
				t.Fatal(err)
			}
		}
		p, err := s.Prune(ctx, DefaultRetention, rigs.Add(DefaultRetention.Bars+48*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		held := func(src string, m time.Time) int {
			h, err := s.Held(ctx, src, "NVDA", m, m.Add(2*time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			return len(h.Bars)
		}
		if n := held("yahoo", old); n != 2 {
			t.Errorf("the backfill's bars: %d left of 2 (pruned %+v)", n, p)
		}
		if held("yahoo", rigs)+held("alpaca", rigs) != 0 || p.BarDays != 2 {
			t.Errorf("the rig's own old bars were not pruned: %+v", p)
		}
	})
}
