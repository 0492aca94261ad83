package backfill

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

var prp = []market.Session{market.Pre, market.Regular, market.Post}

// checkCover fails unless the windows are ordered, disjoint, inside the span, and together hold
// every minute of the sessions in it.
func checkCover(t *testing.T, span history.Span, ws []history.Span, sessions []market.Session) {
	t.Helper()
	for i, w := range ws {
		if w.Empty() || w.From.Before(span.From) || w.To.After(span.To) {
			t.Fatalf("window %d %v outside %v", i, w, span)
		}
		if i > 0 && w.From.Before(ws[i-1].To) {
			t.Fatalf("windows %d and %d overlap", i-1, i)
		}
		if !market.HasSessionMinute(w.From, w.To, sessions) {
			t.Fatalf("window %d %v holds no minute of the sessions", i, w)
		}
	}
	covered := 0
	for _, w := range ws {
		covered += sessionMinutes(w.From, w.To, sessions)
	}
	if want := sessionMinutes(span.From, span.To, sessions); covered != want {
		t.Fatalf("the windows hold %d minutes of the sessions, the span %d", covered, want)
	}
}

func TestWindowsCostOneRequestEach(t *testing.T) {
	year := history.Span{From: ny(2025, time.November, 3, 4, 0), To: ny(2026, time.October, 30, 20, 0)}
	mid := history.Span{From: ny(2025, time.October, 28, 9, 30), To: ny(2025, time.December, 3, 16, 0)}
	for _, tc := range []struct {
		name  string
		typ   string
		cov   sources.Coverage
		span  history.Span
		n     int
		check func(t *testing.T, w history.Span)
		want  int // -1: at most the formula
	}{
		{"alphavantage months", "alphavantage", sources.Coverage{MaxWindow: 31 * 24 * time.Hour, Cut: sources.CutMonth}, mid, 1, func(t *testing.T, w history.Span) {
			a, b := w.From.In(market.NewYork), w.To.Add(-time.Nanosecond).In(market.NewYork)
			if a.Year() != b.Year() || a.Month() != b.Month() {
				t.Errorf("window %v spans two New York months", w)
			}
		}, 3},
		{"alphavantage a year", "alphavantage", sources.Coverage{Cut: sources.CutMonth}, year, 1, nil, 12},
		{"massive paged: the year whole", "massive", sources.Coverage{Sessions: prp, MaxWindow: 30 * 24 * time.Hour, Page: 50000, Paged: true}, year, 1, nil, 1},
		{"yahoo 8 days", "yahoo", sources.Coverage{MaxWindow: 8 * 24 * time.Hour}, mid, 1, func(t *testing.T, w history.Span) {
			if n := len(sources.Windows(w.From, w.To, 8*24*time.Hour)); n != 1 {
				t.Errorf("window %v is %d requests to the adapter", w, n)
			}
		}, -1},
		{"5000 points a request", "twelvedata", sources.Coverage{Sessions: prp, MaxWindow: 30 * 24 * time.Hour, Page: 5000}, mid, 1, func(t *testing.T, w history.Span) {
			if m := sessionMinutes(w.From, w.To, prp); m > 5000 {
				t.Errorf("window %v holds up to %d bars, over 5000 points", w, m)
			}
		}, -1},
		{"tiingo dates", "tiingo", sources.Coverage{MaxWindow: 7 * 24 * time.Hour, Cut: sources.CutDates, Dates: 7}, mid, 1, func(t *testing.T, w history.Span) {
			if n := len(sources.DateRanges(w.From, w.To, 7)); n != 1 {
				t.Errorf("window %v is %d date runs to the adapter", w, n)
			}
		}, -1},
		{"alpaca paged, three symbols: the year whole", "alpaca", sources.Coverage{Sessions: prp, MaxWindow: 7 * 24 * time.Hour, Page: 10000, Paged: true}, year, 3, nil, 1},
		{"three symbols a page, not paged", "alpaca", sources.Coverage{Sessions: prp, MaxWindow: 7 * 24 * time.Hour, Page: 10000}, year, 3, func(t *testing.T, w history.Span) {
			if m := sessionMinutes(w.From, w.To, prp) * 3; m > 10000 || w.Duration() > 7*24*time.Hour {
				t.Errorf("window %v holds up to %d bars of three symbols, over one 10000-bar page", w, m)
			}
		}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := policyOf(tc.cov)
			ws := p.windows(tc.span, tc.n, prp)
			checkCover(t, tc.span, ws, prp)
			for _, w := range ws {
				if tc.check != nil {
					tc.check(t, w)
				}
			}
			if tc.want >= 0 && len(ws) != tc.want {
				t.Errorf("%d windows, want %d", len(ws), tc.want)
			}
			if tc.want < 0 && p.cut == sources.CutSpan && p.page == 0 {
				if ceil := int((tc.span.Duration() + p.max - 1) / p.max); len(ws) > ceil {
					t.Errorf("%d windows, more than ceil(span / max) = %d", len(ws), ceil)
				}
			}
			if got := p.minRequests(tc.span, tc.n, prp); got != len(ws) && !p.paged {
				t.Errorf("minimum %d, %d windows", got, len(ws))
			}
		})
	}
}

// The adapters declare how their providers divide history into requests; the planner reads
// those facts, not the provider's name.
func TestAdaptersDeclareHowTheyAreAsked(t *testing.T) {
	providers := []string{"alpaca", "massive", "alphavantage", "twelvedata", "yahoo", "tiingo", "fmp"}
	spec, err := feeds.Load([]byte(specYAML(providers, "1/s")), feeds.LoadOptions{
		Sim: &feeds.SimTarget{Root: "http://127.0.0.1:1", Key: sim.Key, Secret: sim.Secret},
	})
	if err != nil {
		t.Fatal(err)
	}
	built, err := feeds.BuildSources(spec, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]policy{
		"alpaca":       {cut: sources.CutSpan, max: 7 * 24 * time.Hour, page: 10000, paged: true},
		"massive":      {cut: sources.CutSpan, max: 30 * 24 * time.Hour, page: 50000, paged: true},
		"alphavantage": {cut: sources.CutMonth, max: 31 * 24 * time.Hour},
		"twelvedata":   {cut: sources.CutSpan, max: 7 * 24 * time.Hour, page: 5000, paged: true},
		"yahoo":        {cut: sources.CutSpan, max: 8 * 24 * time.Hour},
		"tiingo":       {cut: sources.CutDates, max: 7 * 24 * time.Hour, days: 7},
		"fmp":          {cut: sources.CutDates, max: 7 * 24 * time.Hour, days: 7},
	}
	if len(built) != len(want) {
		t.Fatalf("%d sources built", len(built))
	}
	for _, b := range built {
		got := policyOf(b.Source.Coverage())
		got.all = nil // the sessions are the source's own, checked elsewhere
		if !reflect.DeepEqual(got, want[b.Name]) {
			t.Errorf("%s: policy %+v, want %+v", b.Name, got, want[b.Name])
		}
		if _, ok := b.Source.(sources.Pager); ok != got.paged {
			t.Errorf("%s: declares paged %v, is a Pager %v", b.Name, got.paged, ok)
		}
	}
}

func TestBatchedWindowsBeatOneSymbolAtATime(t *testing.T) {
	year := history.Span{From: ny(2025, time.November, 3, 4, 0), To: ny(2026, time.October, 30, 20, 0)}
	p := policyOf(sources.Coverage{Sessions: prp, MaxWindow: 7 * 24 * time.Hour, Page: 10000})
	batched, alone := p.minRequests(year, 3, prp), 3*p.minRequests(year, 1, prp)
	if batched >= alone {
		t.Errorf("three symbols in one request: %d requests; one at a time: %d", batched, alone)
	}
	// the floor: every minute of the sessions of three symbols in 10000-bar pages
	floor := (3*sessionMinutes(year.From, year.To, prp) + 9999) / 10000
	// the windows cut anywhere, so they fill their pages: at most one more than the floor
	if batched < floor || batched > floor+1 {
		t.Errorf("%d requests, the floor is %d pages", batched, floor)
	}
}

// tenYears is the benchmark's and the linearity test's backfill: ten years of three symbols from
// three sources, on an empty store.
func tenYears(tb testing.TB, store *history.Store) (Options, *fakeClock) {
	now := ny(2026, time.November, 20, 12, 0)
	clock := newClock(now)
	spec, err := feeds.Load([]byte(specYAML(three, "1000/s")), feeds.LoadOptions{
		Sim: &feeds.SimTarget{Root: "http://127.0.0.1:1", Key: sim.Key, Secret: sim.Secret},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return Options{Spec: spec, From: ny(2016, time.November, 21, 0, 0), To: ny(2026, time.November, 20, 0, 0), Clock: clock}, clock
}

// Planning is linear in the windows: the calendar days it looks at are a small multiple of the
// days in the range (each window walks its own days, a few times over), not the windows times the
// range. Before, each window walked the rest of the range: ten years took millions of days.
func TestPlanningIsLinear(t *testing.T) {
	store := openStore(t, "plan.db")
	o, _ := tenYears(t, store)
	before := market.CalendarDays.Load()
	b, err := New(store, o)
	if err != nil {
		t.Fatal(err)
	}
	walked := market.CalendarDays.Load() - before
	days := int64(o.To.Sub(o.From) / (24 * time.Hour))
	windows := 0
	for _, jobs := range b.jobs {
		windows += len(jobs)
	}
	// alphavantage's months are most of them: alpaca and massive page through the range whole
	if windows < 3*12*10 {
		t.Fatalf("%d windows planned for ten years of three sources", windows)
	}
	// per source: need (the range, twice), count and minimum (each window's days), the cut
	if limit := 3 * 12 * days; walked > limit {
		t.Fatalf("planning %d windows over %d days looked at %d calendar days, more than %d", windows, days, walked, limit)
	}
	t.Logf("%d windows over %d days: %d calendar days looked at", windows, days, walked)
}

// Planning stops when its context is cancelled.
func TestPlanningIsCancellable(t *testing.T) {
	store := openStore(t, "plan.db")
	o, _ := tenYears(t, store)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewContext(ctx, store, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("planning a cancelled context: %v", err)
	}
}

// BenchmarkPlanTenYearsThreeSymbols is issue 11's bound: the planner for ten years of three
// symbols (three sources, an empty store) must take well under a second.
func BenchmarkPlanTenYearsThreeSymbols(b *testing.B) {
	dir := b.TempDir()
	store, err := history.Open(filepath.Join(dir, "plan.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	o, _ := tenYears(b, store)
	b.ResetTimer()
	for range b.N {
		if _, err := New(store, o); err != nil {
			b.Fatal(err)
		}
	}
}
