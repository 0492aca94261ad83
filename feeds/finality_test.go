package feeds

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// liveSource is a provider as the world has it: the bar of minute m appears lag after m ends,
// its close is provisional (the bar's final close plus a cent) until revise after m ends, and
// then final. It reads the test's clock, so a test moves time instead of sleeping.
type liveSource struct {
	name        string
	cov         sources.Coverage
	clock       *fakeClock
	bars        []sources.Bar // the final truth, minute by minute
	lag, revise time.Duration

	mu    sync.Mutex
	calls []time.Time // the clock at each request
}

func (s *liveSource) Name() string               { return s.name }
func (s *liveSource) Coverage() sources.Coverage { return s.cov }

func (s *liveSource) Bars(_ context.Context, _ string, from, to time.Time) ([]sources.Bar, error) {
	now := s.clock.Now()
	s.mu.Lock()
	s.calls = append(s.calls, now)
	s.mu.Unlock()
	var out []sources.Bar
	for _, b := range s.bars {
		ends := b.Start.Add(time.Minute)
		if b.Start.Before(from) || !b.Start.Before(to) || now.Before(ends.Add(s.lag)) {
			continue
		}
		if now.Before(ends.Add(s.revise)) {
			b.Close += numeric.Scaled(1_000_000) // a cent off until the late trade is in
		}
		out = append(out, b)
	}
	return out, nil
}

func (s *liveSource) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// liveFeed builds a reconciler over live sources with the clock at now; Wait moves the clock.
func liveFeed(now time.Time, rules Rules, make func(clock *fakeClock) []*liveSource) (*Reconciler, *fakeClock, []*liveSource) {
	clock := &fakeClock{now: now}
	srcs := make(clock)
	feed := Feed{Symbol: "NVDA"}
	var members []Member
	for _, s := range srcs {
		members = append(members, Member{Name: s.name, Source: s})
		feed.Sources = append(feed.Sources, FeedSource{Source: s.name, Symbol: "NVDA"})
	}
	r := NewReconciler(Config{Rules: rules, Feeds: []Feed{feed}, Members: members}, Deps{
		Deps: sources.Deps{Now: clock.Now},
		Wait: func(_ context.Context, until time.Time) error {
			clock.mu.Lock()
			if until.After(clock.now) {
				clock.now = until
			}
			clock.mu.Unlock()
			return nil
		},
	})
	return r, clock, srcs
}

// TestFreshMinuteIsNeverCarriedNorProvisional is issue 24's case: asked 2 s after a minute
// closes, against providers that publish 25–45 s late and revise a close within 40 s, Price
// never answers the previous minute's close nor a provisional one: it says which sources are
// not final yet, or (waiting) answers the final price. Before finality the missing minute was
// carried from the one before it and counted as priced.
func TestFreshMinuteIsNeverCarriedNorProvisional(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z") // Tuesday, regular session
	truth := tape(m.Add(-2*time.Hour), m.Add(2*time.Hour), extended, "180.00", 1)
	want := priceOf(m, "180.00", 1)
	sources3 := func(clock *fakeClock) []*liveSource {
		cov := sources.Coverage{Sessions: extended, Adjustment: sources.Raw, FinalAfter: 50 * time.Second}
		return []*liveSource{
			{name: "a", cov: cov, clock: clock, bars: truth, lag: 25 * time.Second, revise: 40 * time.Second},
			{name: "b", cov: cov, clock: clock, bars: truth, lag: 35 * time.Second, revise: 40 * time.Second},
			{name: "c", cov: cov, clock: clock, bars: truth, lag: 45 * time.Second, revise: 45 * time.Second},
		}
	}
	asked := m.Add(time.Minute + 2*time.Second)

	t.Run("no wait: not final yet, never carried", func(t *testing.T) {
		r, _, _ := liveFeed(asked, DefaultRules(), sources3)
		res, err := r.Price(context.Background(), "NVDA", m)
		if !errors.Is(err, ErrNotFinal) || res.Agreed {
			t.Fatalf("err %v agreed %v price %s, want ErrNotFinal and no answer", err, res.Agreed, res.Price)
		}
		for _, q := range res.Quotes {
			if q.Status != StatusNotFinal || q.Kind != sources.KindNotFinal || q.Final || q.Status.Priced() {
				t.Errorf("%s: status %s kind %s final %v, want not_final", q.Source, q.Status, q.Kind, q.Final)
			}
			if !q.FetchedAt.Equal(asked) {
				t.Errorf("%s fetched at %v, want %v", q.Source, q.FetchedAt, asked)
			}
		}
		if got := strings.Join(res.NotFinal(), ","); got != "a,b,c" || !strings.Contains(res.Reason, "not final yet") {
			t.Errorf("not final %q, reason %q", got, res.Reason)
		}
	})

	t.Run("a provisional close is not final", func(t *testing.T) {
		r, _, _ := liveFeed(m.Add(time.Minute+36*time.Second), DefaultRules(), sources3) // a and b out, not revised yet; c not out
		res, err := r.Price(context.Background(), "NVDA", m)
		if !errors.Is(err, ErrNotFinal) || res.Agreed {
			t.Fatalf("err %v answer %s, want no answer from provisional closes", err, res.Price)
		}
		for _, q := range res.Quotes[:2] {
			if q.Status != StatusNotFinal || q.Price != want+1_000_000 || !q.BarTime.Equal(m) || !strings.Contains(q.Err, "provisional") {
				t.Errorf("%s: %s %s at %v (%s), want its provisional bar kept as not_final", q.Source, q.Status, q.Price, q.BarTime, q.Err)
			}
		}
		if q := quoteOf(t, res, "c"); q.Status != StatusNotFinal || q.Price != 0 || !strings.Contains(q.Err, "no bar at 15:30 yet") {
			t.Errorf("c: %s %s (%s), want not_final with no bar", q.Status, q.Price, q.Err)
		}
	})

	t.Run("waiting answers the final close", func(t *testing.T) {
		r, clock, srcs := liveFeed(asked, DefaultRules(), sources3)
		res, err := r.Price(context.Background(), "NVDA", m, WaitFinal(asked.Add(2*time.Minute)))
		if err != nil || !res.Agreed || res.Price != want {
			t.Fatalf("err %v agreed %v price %s, want the final %s", err, res.Agreed, res.Price, want)
		}
		for _, q := range res.Quotes {
			if q.Status != StatusOK || !q.Final || !q.BarTime.Equal(m) || q.Price != want {
				t.Errorf("%s: %s final %v %s at %v", q.Source, q.Status, q.Final, q.Price, q.BarTime)
			}
		}
		// asked once at once, once more when final_after passed: never in between
		if got := clock.Now(); !got.Equal(m.Add(time.Minute + 50*time.Second)) {
			t.Errorf("answered at %v, want at the sources' final_after", got)
		}
		for _, s := range srcs {
			if s.requests() != 2 {
				t.Errorf("%s asked %d times, want 2", s.name, s.requests())
			}
		}
	})

	t.Run("a wait too short to reach finality gives up at once", func(t *testing.T) {
		r, clock, _ := liveFeed(asked, DefaultRules(), sources3)
		_, err := r.Price(context.Background(), "NVDA", m, WaitFinal(asked.Add(10*time.Second)))
		if !errors.Is(err, ErrNotFinal) || !clock.Now().Equal(asked) {
			t.Errorf("err %v at %v, want ErrNotFinal without waiting", err, clock.Now())
		}
	})
}

// TestFinalityOfAMinuteWithoutATrade: a source with no bar at the minute may carry an earlier
// bar only once the minute's absence is final: its final_after passed since the minute ended,
// whatever later bar the same answer holds (issue 33). Each case is one request kept
// in a ledger, from which the quote is derived.
func TestFinalityOfAMinuteWithoutATrade(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	cov := sources.Coverage{FinalAfter: 30 * time.Second}
	bar := func(at time.Time) sources.Bar { return sources.Bar{Start: at, Close: numeric.MustPrice("180")} }
	before, after := bar(m.Add(-time.Minute)), bar(m.Add(time.Minute))
	tests := []struct {
		name    string
		bars    []sources.Bar
		fetched time.Time
		final   bool
	}{
		{"the bar at the minute, young", []sources.Bar{bar(m)}, m.Add(time.Minute + 29*time.Second), false},
		{"the bar at the minute, old enough", []sources.Bar{bar(m)}, m.Add(time.Minute + 30*time.Second), true},
		{"no bar yet, nothing later, young", []sources.Bar{before}, m.Add(time.Minute + 5*time.Second), false},
		{"no bar, final_after passed", []sources.Bar{before}, m.Add(time.Minute + 30*time.Second), true},
		{"no bar, a later bar, the carried one final", []sources.Bar{before, after}, m.Add(2*time.Minute + time.Second), true},
		{"no bar, nothing at all, young", nil, m.Add(time.Minute + time.Second), false},
		{"no bar, nothing but a later bar", []sources.Bar{after}, m.Add(2*time.Minute + time.Second), true},
	}
	final := func(bars []sources.Bar, cov sources.Coverage, fetched time.Time) bool {
		l := NewMemoryLedger()
		w := market.Span{From: m.Add(-time.Hour), To: fetched.Truncate(time.Minute)}
		if err := l.Keep(context.Background(), Kept{Source: "s", Symbol: "NVDA", Span: w, Bars: bars, Fetched: fetched, FinalTo: FinalTo(cov.FinalAfter, fetched)}); err != nil {
			t.Fatal(err)
		}
		h, _ := l.Held(context.Background(), "s", "NVDA", w.From, w.To)
		return Derive(h, m, m, w.From, time.Hour, extended, extended).Final
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := final(tc.bars, cov, tc.fetched); got != tc.final {
				t.Errorf("final %v, want %v", got, tc.final)
			}
		})
	}
	// Massive: a later bar shows the minute had no trade, but the bar before it is still inside
	// the late-trade window, so carrying it waits
	slow := sources.Coverage{FinalAfter: 15 * time.Minute}
	if final([]sources.Bar{before, after}, slow, m.Add(2*time.Minute+time.Second)) {
		t.Errorf("a carried bar inside its late-trade window was final")
	}
	// issue 33's reproduction: the carried bar is long final and the answer holds a later bar,
	// but 3 minutes after the minute closed a late trade can still make its bar
	longFinal := bar(m.Add(-30 * time.Minute))
	if final([]sources.Bar{longFinal, after}, slow, m.Add(4*time.Minute)) {
		t.Errorf("a minute without a bar was final 3 minutes after it closed, inside final_after (15m)")
	}
	if !final([]sources.Bar{longFinal, after}, slow, m.Add(16*time.Minute)) {
		t.Errorf("a minute without a bar was not final once final_after passed")
	}
	// a later bar of another request says nothing of a minute that request did not ask for
	l := NewMemoryLedger()
	for _, k := range []Kept{
		{Span: market.Span{From: m.Add(-time.Hour), To: m.Add(-30 * time.Second).Truncate(time.Minute)}, Bars: []sources.Bar{before}, Fetched: m.Add(5 * time.Second)},
		{Span: market.Span{From: m.Add(time.Minute), To: m.Add(2 * time.Minute)}, Bars: []sources.Bar{after}, Fetched: m.Add(2*time.Minute + time.Second)},
	} {
		k.Source, k.Symbol, k.FinalTo = "s", "NVDA", FinalTo(cov.FinalAfter, k.Fetched)
		if err := l.Keep(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	h, _ := l.Held(context.Background(), "s", "NVDA", m.Add(-time.Hour), m.Add(2*time.Minute))
	if d := Derive(h, m, m, m.Add(-time.Hour), time.Hour, extended, extended); d.Final || !d.Need.Equal(m) {
		t.Errorf("derived %+v: the minute was asked by neither request, its absence is not known", d)
	}
}

// TestFinalPricesAnswerWithoutTheSlowSource: a source whose final_after is long (Massive's late-
// trade window) does not hold the answer once the others' final prices meet the early quorum;
// it stays not_final in the result, and the answer is the final one.
func TestFinalPricesAnswerWithoutTheSlowSource(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	truth := tape(m.Add(-time.Hour), m.Add(time.Hour), extended, "180.00", 1)
	fast := sources.Coverage{Sessions: extended, Adjustment: sources.Raw, FinalAfter: 35 * time.Second}
	slow := fast
	slow.FinalAfter = 15 * time.Minute
	asked := m.Add(time.Minute + time.Second)
	r, clock, _ := liveFeed(asked, DefaultRules(), func(clock *fakeClock) []*liveSource {
		return []*liveSource{
			{name: "a", cov: fast, clock: clock, bars: truth, revise: 30 * time.Second},
			{name: "b", cov: fast, clock: clock, bars: truth, revise: 30 * time.Second},
			{name: "slow", cov: slow, clock: clock, bars: truth, revise: 10 * time.Minute},
		}
	})
	res, err := r.Price(context.Background(), "NVDA", m, WaitFinal(asked.Add(20*time.Minute)))
	if err != nil || res.Price != priceOf(m, "180.00", 1) {
		t.Fatalf("err %v price %s", err, res.Price)
	}
	if q := quoteOf(t, res, "slow"); q.Status != StatusNotFinal || !slices.Equal(res.NotFinal(), []string{"slow"}) {
		t.Errorf("slow source %s, not final %v", q.Status, res.NotFinal())
	}
	if !clock.Now().Equal(m.Add(time.Minute + 35*time.Second)) {
		t.Errorf("answered at %v, want when the fast sources were final", clock.Now())
	}
}

// TestReconcileProvisional is the rig's last resort at its commit deadline: the provisional bars
// of not_final quotes count, and the result says so.
func TestReconcileProvisional(t *testing.T) {
	p := numeric.MustPrice("180.00")
	quotes := []Quote{
		{Source: "a", Status: StatusOK, Price: p, Final: true},
		{Source: "b", Status: StatusNotFinal, Price: p + 1_000_000},
		{Source: "c", Status: StatusNotFinal}, // no bar at all yet
	}
	if res := Reconcile(quotes, DefaultRules()); res.Agreed {
		t.Fatalf("one final price answered: %+v", res)
	}
	res := ReconcileProvisional(quotes, DefaultRules())
	if !res.Agreed || !res.Provisional || res.Price != p || quotes[1].Status != StatusNotFinal {
		t.Errorf("agreed %v provisional %v price %s (input status %s)", res.Agreed, res.Provisional, res.Price, quotes[1].Status)
	}
}

// TestLastResortAtTheDeadline is the rig's wait inside its commit window: by until, it answers
// from the final prices when at least min_sources are final (Unsettled: fewer than it would have
// waited for), else, asking the rest once more at the last moment a round can end by until, from
// the provisional bars too (Provisional). Without LastResort the second case is ErrNotFinal.
func TestLastResortAtTheDeadline(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	truth := tape(m.Add(-time.Hour), m.Add(time.Hour), extended, "180.00", 1)
	want := priceOf(m, "180.00", 1)
	fast := sources.Coverage{Sessions: extended, Adjustment: sources.Raw, FinalAfter: 35 * time.Second}
	slow := fast
	slow.FinalAfter = 15 * time.Minute
	asked := m.Add(time.Minute + time.Second)
	until := asked.Add(90 * time.Second)
	feed := func(nFast, nSlow int) func(clock *fakeClock) []*liveSource {
		return func(clock *fakeClock) []*liveSource {
			var out []*liveSource
			for i := range nFast {
				out = append(out, &liveSource{name: fmt.Sprint("fast", i), cov: fast, clock: clock, bars: truth, revise: 30 * time.Second})
			}
			for i := range nSlow {
				out = append(out, &liveSource{name: fmt.Sprint("slow", i), cov: slow, clock: clock, bars: truth, revise: 10 * time.Minute})
			}
			return out
		}
	}

	r, clock, _ := liveFeed(asked, DefaultRules(), feed(2, 2))
	res, err := r.Price(context.Background(), "NVDA", m, WaitFinal(until), LastResort())
	if err != nil || res.Price != want || !res.Unsettled || res.Provisional {
		t.Errorf("two of four final: err %v price %s unsettled %v provisional %v, want the final %s from them", err, res.Price, res.Unsettled, res.Provisional, want)
	}
	if !clock.Now().Equal(until.Add(-DefaultRules().Deadline)) {
		t.Errorf("answered at %v, want after the last round (%v)", clock.Now(), until.Add(-DefaultRules().Deadline))
	}

	r, clock, srcs := liveFeed(asked, DefaultRules(), feed(1, 2))
	res, err = r.Price(context.Background(), "NVDA", m, WaitFinal(until), LastResort())
	if err != nil || !res.Agreed || !res.Unsettled || !res.Provisional {
		t.Fatalf("one of three final: err %v agreed %v unsettled %v provisional %v", err, res.Agreed, res.Unsettled, res.Provisional)
	}
	if q := quoteOf(t, res, "slow0"); q.Final || !q.FetchedAt.Equal(until.Add(-DefaultRules().Deadline)) {
		t.Errorf("slow0 final %v fetched %v, want asked once more at the last moment", q.Final, q.FetchedAt)
	}
	if n := srcs[1].requests(); n != 2 {
		t.Errorf("slow0 asked %d times, want 2 (at once, and at the last moment)", n)
	}
	_ = clock

	r, _, _ = liveFeed(asked, DefaultRules(), feed(1, 2))
	if _, err := r.Price(context.Background(), "NVDA", m, WaitFinal(until)); !errors.Is(err, ErrNotFinal) {
		t.Errorf("without LastResort: %v, want ErrNotFinal", err)
	}
}
