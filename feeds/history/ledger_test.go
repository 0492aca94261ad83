package history

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/sqldb"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

var prp = []market.Session{market.Pre, market.Regular, market.Post}

func bar(t time.Time, c int64) sources.Bar {
	return sources.Bar{Start: t, Close: numeric.Scaled(c), Volume: 10}
}

// A fetch of a growing day: its bars are kept with their fetch time, final before FinalTo and
// provisional after, and only its final part is a window the ledger knows; a later fetch from
// the last final bar extends it, turns the provisional bars final and keeps the close it
// changed as a revision; a fetch that arrives late (sent before the one written) changes no bar.
func TestTheLedgerKeepsFetchesAndRevisions(t *testing.T) {
	eachBackend(t, func(t *testing.T, be storeBackend) {
		ctx := context.Background()
		s := be.open(t, "ledger.db")
		open := ny(2025, time.November, 20, 9, 30)
		at := func(m int) time.Time { return open.Add(time.Duration(m) * time.Minute) }
		first := at(10).Add(20 * time.Second) // fetched 20 s into 09:40
		k := feeds.Kept{Source: "alpaca", Symbol: "NVDA", Span: market.Span{From: at(0), To: at(10)},
			Bars:    []sources.Bar{bar(at(0), 100), bar(at(1), 101), bar(at(8), 108), bar(at(9), 109)},
			Fetched: first, FinalTo: feeds.FinalTo(35*time.Second, first), Requests: 1}
		if k.FinalTo != at(9) {
			t.Fatalf("FinalTo %s, want 09:39 (09:39's bar is final at 09:40:35)", k.FinalTo)
		}
		if err := s.Keep(ctx, k); err != nil {
			t.Fatal(err)
		}
		h, err := s.Held(ctx, "alpaca", "NVDA", at(0), at(30))
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Bars) != 4 || !h.Bars[2].Final || h.Bars[3].Final || !h.Bars[3].Fetched.Equal(first) {
			t.Fatalf("held %+v", h.Bars)
		}
		if want := []market.Span{{From: at(0), To: at(9)}}; !reflect.DeepEqual(h.Final(), want) {
			t.Fatalf("final windows %v, want %v", h.Final(), want)
		}
		if len(h.Windows) != 1 || h.Windows[0].Span != k.Span || !h.Windows[0].Fetched.Equal(first) {
			t.Fatalf("windows %+v, want the one asked", h.Windows)
		}
		if miss := h.Missing(market.Span{From: at(0), To: at(20)}, prp); len(miss) != 1 || miss[0].From != at(9) {
			t.Fatalf("missing %v: the day is extended from its last final bar", miss)
		}

		// extended from 09:39 a minute later: 09:39 is final now, with another close
		second := at(12)
		k2 := feeds.Kept{Source: "alpaca", Symbol: "NVDA", Span: market.Span{From: at(9), To: at(12)},
			Bars: []sources.Bar{bar(at(9), 110), bar(at(10), 111)}, Fetched: second, FinalTo: feeds.FinalTo(35*time.Second, second), Requests: 1}
		if err := s.Keep(ctx, k2); err != nil {
			t.Fatal(err)
		}
		// a fetch sent before that one (at 09:40:50), written after it: it changes no bar
		late := at(10).Add(50 * time.Second)
		k3 := feeds.Kept{Source: "alpaca", Symbol: "NVDA", Span: market.Span{From: at(9), To: at(10)},
			Bars: []sources.Bar{bar(at(9), 105)}, Fetched: late, FinalTo: feeds.FinalTo(35*time.Second, late), Requests: 1}
		if err := s.Keep(ctx, k3); err != nil {
			t.Fatal(err)
		}
		h, err = s.Held(ctx, "alpaca", "NVDA", at(0), at(30))
		if err != nil {
			t.Fatal(err)
		}
		if b := h.Bars[3]; b.Close != 110 || !b.Final || !b.Fetched.Equal(second) {
			t.Errorf("09:39 held %+v, want the later fetch's final 110", b)
		}
		if merged := market.MergeSpans(h.Final(), prp); len(merged) != 1 || merged[0].To != at(11) {
			t.Errorf("final windows %v, want 09:30-09:41", merged)
		}
		revs, err := s.Revisions(ctx, "alpaca", "NVDA", at(0), at(30))
		if err != nil {
			t.Fatal(err)
		}
		// 109 (provisional at 09:40:20) → 110 (09:42), and 105 (final at 09:40:50: a finished bar
		// the provider changed) → 110, the later fetch winning though it was written first
		if len(revs) != 2 {
			t.Fatalf("revisions %+v", revs)
		}
		olds := map[numeric.Scaled]bool{}
		for _, r := range revs {
			if r.New != 110 || !r.Seen.Equal(second) || !r.Minute.Equal(at(9)) {
				t.Errorf("revision %+v", r)
			}
			olds[r.Old] = r.OldFinal
		}
		if final, ok := olds[109]; !ok || final {
			t.Errorf("the provisional close 109 is not a revision from a provisional bar: %+v", revs)
		}
		if final, ok := olds[105]; !ok || !final {
			t.Errorf("the final close 105 is not a revision from a final bar: %+v", revs)
		}
		// a narrower answer from a window's start leaves the wider window
		k4 := feeds.Kept{Source: "alpaca", Symbol: "NVDA", Span: market.Span{From: at(0), To: at(2)},
			Bars: []sources.Bar{bar(at(0), 100), bar(at(1), 101)}, Fetched: at(20), FinalTo: at(19), Requests: 1}
		if err := s.Keep(ctx, k4); err != nil {
			t.Fatal(err)
		}
		h, _ = s.Held(ctx, "alpaca", "NVDA", at(0), at(30))
		if merged := market.MergeSpans(h.Final(), prp); len(merged) != 1 || merged[0].To != at(11) {
			t.Errorf("after a narrower fetch, final windows %v", merged)
		}
	})
}

// A store of schema 3 (bars blocks of format 1, coverage without fetch times) opens at the
// current schema with its bars final, fetched at an unknown time, and its windows known final.
func TestAVersionThreeStoreMigrates(t *testing.T) {
	eachBackend(t, func(t *testing.T, be storeBackend) {
		ctx := context.Background()
		target := be.target(t, "v3.db")
		old := config
		old.Migrations = func(pg bool) []sqldb.Migration { return Migrations(pg)[:3] }
		db, err := sqldb.Open(target, true, old)
		if err != nil {
			t.Fatal(err)
		}
		day := ny(2025, time.November, 20, 0, 0)
		from, to := ny(2025, time.November, 20, 9, 30), ny(2025, time.November, 20, 16, 0)
		p := packer{b: []byte{packBars}}
		p.u(1)
		p.u(uint64(from.Unix() - dayOf(day.Unix())))
		p.i(12345)
		p.u(3)
		for _, stmt := range []struct {
			q    string
			args []any
		}{
			{`INSERT INTO bar_days (symbol, day, source, bars, data) VALUES (?, ?, ?, ?, ?)`, []any{"NVDA", dayOf(day.Unix()), "yahoo", 1, p.b}},
			{`INSERT INTO coverage (source, symbol, win_from, win_to, bars) VALUES (?, ?, ?, ?, ?)`, []any{"yahoo", "NVDA", from.Unix(), to.Unix(), 1}},
		} {
			if _, err := db.ExecContext(ctx, db.Q(stmt.q), stmt.args...); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		s, err := Open(target)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if v, _ := s.Version(ctx); v != SchemaVersion {
			t.Fatalf("version %d", v)
		}
		h, err := s.Held(ctx, "yahoo", "NVDA", from, to)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Bars) != 1 || !h.Bars[0].Final || !h.Bars[0].Fetched.IsZero() || h.Bars[0].Close != 12345 {
			t.Errorf("held %+v", h.Bars)
		}
		if !h.FinalAt(from, to, prp) {
			t.Errorf("the stored window is not final: %v", h.Windows)
		}
		// and a fetch over the old block merges into it
		k := feeds.Kept{Source: "yahoo", Symbol: "NVDA", Span: market.Span{From: from, To: from.Add(2 * time.Minute)},
			Bars: []sources.Bar{bar(from, 12345), bar(from.Add(time.Minute), 12346)}, Fetched: to, FinalTo: to, Requests: 1}
		if err := s.Keep(ctx, k); err != nil {
			t.Fatal(err)
		}
		h, _ = s.Held(ctx, "yahoo", "NVDA", from, to)
		if len(h.Bars) != 2 || !h.Bars[0].Fetched.Equal(to) {
			t.Errorf("after a fetch: %+v", h.Bars)
		}
		if revs, _ := s.Revisions(ctx, "", "", from, to); len(revs) != 0 {
			t.Errorf("the same close fetched again is no revision: %+v", revs)
		}
	})
}

// Two processes on one store spend from one quota: a source declared 5/day is asked at most 5
// times across them, and the count survives a restart; a breaker one opens the other honours.
func TestTheStoreBudgetIsShared(t *testing.T) {
	eachBackend(t, func(t *testing.T, be storeBackend) {
		ctx := context.Background()
		target := be.target(t, "budget.db")
		a, err := Open(target)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Open(target)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		q := sources.Quota{{N: 5, Per: sources.QuotaDay}}
		now := ny(2025, time.November, 20, 10, 0)
		sent := 0
		for i := range 8 {
			st := a
			if i%2 == 1 {
				st = b
			}
			err := st.Spend(ctx, "av", q, now.Add(time.Duration(i)*time.Minute))
			switch {
			case err == nil:
				sent++
			case sources.KindOf(err) != sources.KindOverQuota:
				t.Fatalf("spend %d: %v", i, err)
			}
		}
		if sent != 5 {
			t.Errorf("%d requests allowed, quota 5/day", sent)
		}
		a.Close()
		a, err = Open(target) // a restart
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if err := a.Spend(ctx, "av", q, now.Add(time.Hour)); sources.KindOf(err) != sources.KindOverQuota {
			t.Errorf("after a restart: %v, want over_quota", err)
		}
		st, err := b.Standing(ctx, "av", q, now.Add(time.Hour))
		if err != nil || len(st.Limits) != 1 || st.Limits[0].Used != 5 || st.Limits[0].Left != 0 {
			t.Errorf("standing %+v, %v", st, err)
		}
		if err := a.Spend(ctx, "av", q, now.Add(sources.QuotaDay+time.Minute)); err != nil {
			t.Errorf("a day after the first request: %v", err)
		}
		// a breaker one process opens, the other honours; only the first opens it
		br := sources.Breaker{Opened: now, Until: now.Add(sources.RefusalBackoff), Kind: sources.KindUnauthorized, Why: "HTTP 402: Restricted Endpoint"}
		if opened, err := a.Trip(ctx, "fmp", br); err != nil || !opened {
			t.Fatalf("trip: %v %v", opened, err)
		}
		if opened, err := b.Trip(ctx, "fmp", br); err != nil || opened {
			t.Errorf("a second trip while open: opened %v, %v", opened, err)
		}
		err = b.Spend(ctx, "fmp", nil, now.Add(time.Minute))
		if sources.KindOf(err) != sources.KindUnauthorized {
			t.Errorf("while the breaker is open: %v", err)
		}
		if err := b.Spend(ctx, "fmp", nil, now.Add(sources.RefusalBackoff)); err != nil {
			t.Errorf("once it closed: %v", err)
		}
	})
}

// The store counts what every process sends, by the longest span any quota reads: a process
// with an hourly quota does not delete the counts a daily quota needs (each Spend pruned by its
// own span), and a source with no quota is counted too (issue 32).
func TestTheStoreKeepsEveryQuotasCounts(t *testing.T) {
	eachBackend(t, func(t *testing.T, be storeBackend) {
		ctx := context.Background()
		s := be.open(t, "counts.db")
		day := sources.Quota{{N: 25, Per: sources.QuotaDay}}
		hour := sources.Quota{{N: 50, Per: sources.QuotaHour}}
		now := ny(2025, time.November, 20, 10, 0)
		for i := range 3 {
			if err := s.Spend(ctx, "av", day, now.Add(time.Duration(i)*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		// two hours later a process reading an hourly quota sends one
		later := now.Add(2 * time.Hour)
		if err := s.Spend(ctx, "av", hour, later); err != nil {
			t.Fatal(err)
		}
		st, err := s.Standing(ctx, "av", day, later)
		if err != nil || len(st.Limits) != 1 || st.Limits[0].Used != 4 {
			t.Errorf("after an hourly quota's spend, the daily quota counts %+v (%v), want 4", st, err)
		}
		for range 2 {
			if err := s.Spend(ctx, "massive", nil, later); err != nil {
				t.Fatal(err)
			}
		}
		st, err = s.Standing(ctx, "massive", sources.Quota{{N: 1000, Per: sources.QuotaDay}}, later)
		if err != nil || len(st.Limits) != 1 || st.Limits[0].Used != 2 {
			t.Errorf("a source with no quota: counted %+v (%v), want 2", st, err)
		}
	})
}

// The store and a MemoryLedger hold the same after the same requests, a request of minutes not
// final yet among them (its window has no final part: the backfill's coverage never sees it).
func TestTheStoreHoldsWhatAMemoryLedgerHolds(t *testing.T) {
	eachBackend(t, func(t *testing.T, be storeBackend) {
		ctx := context.Background()
		s := be.open(t, "same.db")
		mem := feeds.NewMemoryLedger()
		open := ny(2025, time.November, 20, 9, 30)
		at := func(m int) time.Time { return open.Add(time.Duration(m) * time.Minute) }
		fin := func(fetched time.Time) time.Time { return feeds.FinalTo(time.Minute, fetched) }
		keeps := []feeds.Kept{
			// a fresh minute: asked 5 s after it closed, nothing final yet
			{Span: market.Span{From: at(3), To: at(4)}, Bars: []sources.Bar{bar(at(3), 3)}, Fetched: at(4).Add(5 * time.Second)},
			{Span: market.Span{From: at(0), To: at(5)}, Bars: []sources.Bar{bar(at(0), 1), bar(at(2), 2), bar(at(3), 4)}, Fetched: at(5)},
			{Span: market.Span{From: at(0), To: at(3)}, Bars: []sources.Bar{bar(at(0), 1)}, Fetched: at(6)},
			{Span: market.Span{From: at(4), To: at(9)}, Bars: []sources.Bar{bar(at(5), 5), bar(at(8), 8)}, Fetched: at(20)},
		}
		for _, k := range keeps {
			k.Source, k.Symbol, k.FinalTo, k.Requests = "massive", "TSLA", fin(k.Fetched), 1
			if err := s.Keep(ctx, k); err != nil {
				t.Fatal(err)
			}
			if err := mem.Keep(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		for _, w := range []market.Span{{From: at(0), To: at(30)}, {From: at(3), To: at(4)}, {From: at(6), To: at(8)}} {
			got, err := s.Held(ctx, "massive", "TSLA", w.From, w.To)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := mem.Held(ctx, "massive", "TSLA", w.From, w.To)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v: the store holds\n%+v\na MemoryLedger\n%+v", w, got, want)
			}
		}
		cov, err := s.Coverage(ctx, "massive", "TSLA")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cov {
			if c.Empty() {
				t.Errorf("coverage lists the empty window %v of a request of minutes not final yet", c)
			}
		}
		if len(cov) != 2 {
			t.Errorf("coverage %v, want the two windows with a final part", cov)
		}
	})
}

// TestBarsThatAppearOrVanishAreRevisions: a bar at a minute an earlier fetch saw empty, and a
// bar a later fetch of its minute no longer returns, are revisions like a changed close (issue
// 33: an answer carried over a minute that later got a bar was invisible to the audit); the
// later fetch wins, so the vanished bar is no longer held.
func TestBarsThatAppearOrVanishAreRevisions(t *testing.T) {
	eachBackend(t, func(t *testing.T, be storeBackend) {
		ctx := context.Background()
		s := be.open(t, "ledger.db")
		open := ny(2025, time.November, 20, 9, 30)
		at := func(m int) time.Time { return open.Add(time.Duration(m) * time.Minute) }
		keep := func(fetched time.Time, bars ...sources.Bar) {
			k := feeds.Kept{Source: "massive", Symbol: "NVDA", Span: market.Span{From: at(0), To: at(10)},
				Bars: bars, Fetched: fetched, FinalTo: feeds.FinalTo(0, fetched), Requests: 1}
			if err := s.Keep(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		first, second := at(10).Add(20*time.Second), at(30)
		keep(first, bar(at(0), 100), bar(at(5), 105))
		keep(second, bar(at(0), 100), bar(at(3), 103))
		revs, err := s.Revisions(ctx, "massive", "NVDA", at(0), at(30))
		if err != nil {
			t.Fatal(err)
		}
		want := []Revision{
			{Source: "massive", Symbol: "NVDA", Minute: at(3), Old: 0, New: 103, OldFetched: first.Truncate(time.Second), Seen: second, OldFinal: true},
			{Source: "massive", Symbol: "NVDA", Minute: at(5), Old: 105, New: 0, OldFetched: first.Truncate(time.Second), Seen: second, OldFinal: true},
		}
		if !reflect.DeepEqual(revs, want) {
			t.Errorf("revisions\n%+v, want\n%+v", revs, want)
		}
		h, err := s.Held(ctx, "massive", "NVDA", at(0), at(30))
		if err != nil {
			t.Fatal(err)
		}
		var starts []time.Time
		for _, b := range h.Bars {
			starts = append(starts, b.Start)
		}
		if !reflect.DeepEqual(starts, []time.Time{at(0), at(3)}) {
			t.Errorf("held bars at %v, want 09:30 and 09:33 (the later fetch wins)", starts)
		}
	})
}
