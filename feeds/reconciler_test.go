package feeds

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

var regularOnly = []market.Session{market.Regular}
var allDay = []market.Session{market.Overnight, market.Pre, market.Regular, market.Post}

// src makes a fake source whose tape runs over the five days before the minute of the test and
// one day after it (the reconciler must not look at bars after the minute).
func src(name string, sessions []market.Session, base string, around time.Time) *fakeSource {
	bars := tape(around.Add(-5*24*time.Hour), around.Add(24*time.Hour), sessions, base, 1)
	return &fakeSource{
		name: name,
		cov:  sources.Coverage{Sessions: sessions, Adjustment: sources.Raw},
		bars: map[string][]sources.Bar{"NVDA": bars},
	}
}

// build makes a reconciler over the fakes, all in the NVDA feed, with the clock at now.
func build(now time.Time, rules Rules, fakes ...*fakeSource) (*Reconciler, chan time.Time) {
	deadline := make(chan time.Time, 1)
	feed, members := nvdaFeed(fakes)
	clock := &fakeClock{now: now}
	r := NewReconciler(Config{Rules: rules, Feeds: []Feed{feed}, Members: members},
		Deps{Deps: sources.Deps{Now: clock.Now}, After: func(time.Duration) <-chan time.Time { return deadline }})
	return r, deadline
}

// nvdaFeed is the NVDA feed over the fakes, and the members they are.
func nvdaFeed(fakes []*fakeSource) (Feed, []Member) {
	feed := Feed{Symbol: "NVDA"}
	var members []Member
	for _, f := range fakes {
		members = append(members, Member{Name: f.name, Source: f})
		feed.Sources = append(feed.Sources, FeedSource{Source: f.name, Symbol: "NVDA"})
	}
	return feed, members
}

func quoteOf(t *testing.T, res Result, name string) Quote {
	t.Helper()
	for _, q := range res.Quotes {
		if q.Source == name {
			return q
		}
	}
	t.Fatalf("no quote for %s in %+v", name, res.Quotes)
	return Quote{}
}

// scenario is one minute priced over a set of fake sources.
type scenario struct {
	name    string
	minute  string
	now     string // default: minute + 1 h
	rules   func(*Rules)
	fakes   func(m time.Time) []*fakeSource
	wantErr error
	// the expected answer: the price of the tape with this base at this bar time
	wantBase, wantBar string
	wantEff           string // effective minute, default the minute
	want              map[string]Status
	check             func(t *testing.T, res Result, fakes []*fakeSource)
}

func TestPriceScenarios(t *testing.T) {
	tests := []scenario{
		{
			name:   "happy path: three sources agree at the minute",
			minute: "2026-11-24T15:30:00Z", // Tuesday 10:30 EST
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.10", m), src("c", regularOnly, "180.05", m)}
			},
			wantBase: "180.05", wantBar: "2026-11-24T15:30:00Z",
			want: map[string]Status{"a": StatusOK, "b": StatusOK, "c": StatusOK},
			check: func(t *testing.T, res Result, fakes []*fakeSource) {
				// one request each: the minute's New York date, as far as it has closed (the
				// ledger keeps all of it)
				for _, f := range fakes {
					calls := f.seen()
					if len(calls) != 1 || !calls[0].from.Equal(mustTime("2026-11-24T05:00:00Z")) || !calls[0].to.Equal(mustTime("2026-11-24T16:30:00Z")) {
						t.Errorf("%s asked %+v, want one request [05:00, 16:30)", f.name, calls)
					}
				}
				if res.Session != market.Regular || res.Early {
					t.Errorf("session %s early %v", res.Session, res.Early)
				}
			},
		},
		{
			name:   "an outlier source is dropped",
			minute: "2026-11-24T15:30:00Z",
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "181.00", m), src("c", extended, "180.02", m)}
			},
			// the first median is c; without b the lower middle of a and c is a
			wantBase: "180.00", wantBar: "2026-11-24T15:30:00Z",
			want: map[string]Status{"a": StatusOK, "b": StatusOutlier, "c": StatusOK},
		},
		{
			name:   "a quorum that fails: two sources, one percent apart",
			minute: "2026-11-24T15:30:00Z",
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "181.80", m)}
			},
			wantErr: ErrNoAnswer,
			want:    map[string]Status{"a": StatusOK, "b": StatusOutlier},
		},
		{
			name:   "an even number of sources: the lower middle",
			minute: "2026-11-24T15:30:00Z",
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.03", m), src("b", extended, "180.01", m), src("c", extended, "180.07", m), src("d", extended, "180.05", m)}
			},
			wantBase: "180.03", wantBar: "2026-11-24T15:30:00Z",
		},
		{
			name:   "all sources down",
			minute: "2026-11-24T15:30:00Z",
			fakes: func(m time.Time) []*fakeSource {
				a, b := src("a", extended, "180", m), src("b", extended, "180", m)
				a.err = &sources.Error{Source: "a", Kind: sources.ErrUnavailable, Status: 503}
				b.err = &sources.Error{Source: "b", Kind: sources.ErrRateLimited, Status: 429, RetryAfter: time.Minute}
				return []*fakeSource{a, b}
			},
			wantErr: ErrNoAnswer,
			want:    map[string]Status{"a": StatusError, "b": StatusError},
			check: func(t *testing.T, res Result, _ []*fakeSource) {
				if q := quoteOf(t, res, "b"); !strings.Contains(q.Err, "rate limited (HTTP 429)") {
					t.Errorf("error text %q", q.Err)
				}
				if res.Reason != "no source gave a price" {
					t.Errorf("reason %q", res.Reason)
				}
			},
		},
		{
			name:   "a carry past max_carry is no data; within it, the minute's date holds it",
			minute: "2026-11-24T15:30:00Z",
			rules:  func(r *Rules) { r.MaxCarry = 3 * time.Hour },
			fakes: func(m time.Time) []*fakeSource {
				a, b, c := src("a", extended, "180", m), src("b", extended, "180", m), src("c", extended, "180", m)
				b.bars["NVDA"] = tape(m.Add(-48*time.Hour), m.Add(-2*time.Hour), extended, "180", 1) // last bar 13:29
				c.bars["NVDA"] = tape(m.Add(-48*time.Hour), m.Add(-4*time.Hour), extended, "180", 1) // last bar 11:29: too old
				return []*fakeSource{a, b, c}
			},
			// a's 15:30 bar (180.30) and b's 13:29 bar (180.29): the lower middle is b's
			wantBase: "180", wantBar: "2026-11-24T13:29:00Z",
			want: map[string]Status{"a": StatusOK, "b": StatusCarried, "c": StatusNoData},
			check: func(t *testing.T, res Result, fakes []*fakeSource) {
				b := quoteOf(t, res, "b")
				if !b.BarTime.Equal(mustTime("2026-11-24T13:29:00Z")) || b.Requests != 1 {
					t.Errorf("b carried %s with %d requests", b.BarTime, b.Requests)
				}
				for _, f := range fakes {
					if calls := f.seen(); len(calls) != 1 {
						t.Errorf("%s asked %+v, want one request: the date reaches back past max_carry", f.name, calls)
					}
				}
			},
		},
		{
			name:   "a Saturday minute prices at Friday's last print, one request each",
			minute: "2026-11-21T15:30:00Z",
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.02", m), src("td", regularOnly, "180.01", m)}
			},
			// Friday 2026-11-20 post ends 20:00 EST = 01:00Z Saturday
			wantEff: "2026-11-21T00:59:00Z", wantBase: "180.00", wantBar: "2026-11-21T00:59:00Z",
			want: map[string]Status{"a": StatusCarried, "b": StatusCarried, "td": StatusNotCovered},
			check: func(t *testing.T, res Result, fakes []*fakeSource) {
				for _, f := range fakes[:2] {
					calls := f.seen()
					if len(calls) != 1 || !calls[0].to.Equal(mustTime("2026-11-21T05:00:00Z")) || !calls[0].from.Equal(mustTime("2026-11-20T05:00:00Z")) {
						t.Errorf("%s asked %+v, want one request: Friday's New York date", f.name, calls)
					}
				}
				if len(fakes[2].seen()) != 0 {
					t.Errorf("a regular-only source must not be asked about the post session")
				}
				if res.Session != market.Post {
					t.Errorf("session %s", res.Session)
				}
			},
		},
		{
			name:   "an early-close day's after-hours minute carries the 16:59 ET print",
			minute: "2026-11-27T22:30:00Z", // Black Friday 17:30 EST: post ended at 17:00
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.01", m)}
			},
			wantEff: "2026-11-27T21:59:00Z", wantBase: "180.00", wantBar: "2026-11-27T21:59:00Z",
			want: map[string]Status{"a": StatusCarried, "b": StatusCarried},
		},
		{
			name:   "an early-close day's post session after the 13:00 close is covered",
			minute: "2026-11-27T18:30:00Z", // 13:30 EST: post on an early-close day
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.01", m), src("td", regularOnly, "180.00", m)}
			},
			wantBase: "180.00", wantBar: "2026-11-27T18:30:00Z",
			want: map[string]Status{"a": StatusOK, "b": StatusOK, "td": StatusNotCovered},
		},
		{
			name:   "a holiday carries the evening before",
			minute: "2026-11-26T16:00:00Z", // Thanksgiving
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.01", m)}
			},
			wantEff: "2026-11-26T00:59:00Z", wantBase: "180.00", wantBar: "2026-11-26T00:59:00Z",
			want: map[string]Status{"a": StatusCarried, "b": StatusCarried},
		},
		{
			name:   "DST week, EST side: 14:00Z Monday is pre-market, the regular-only source sits out",
			minute: "2026-11-02T14:00:00Z",
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.01", m), src("td", regularOnly, "180.00", m)}
			},
			wantBase: "180.00", wantBar: "2026-11-02T14:00:00Z",
			want: map[string]Status{"a": StatusOK, "b": StatusOK, "td": StatusNotCovered},
			check: func(t *testing.T, res Result, _ []*fakeSource) {
				if res.Session != market.Pre {
					t.Errorf("session %s, want pre", res.Session)
				}
			},
		},
		{
			name:   "DST week, EDT side: 14:00Z the Friday before is regular",
			minute: "2026-10-30T14:00:00Z",
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.01", m), src("td", regularOnly, "180.00", m)}
			},
			wantBase: "180.00", wantBar: "2026-10-30T14:00:00Z",
			want: map[string]Status{"a": StatusOK, "b": StatusOK, "td": StatusOK},
		},
		{
			name:   "an overnight minute without overnight in sessions carries Monday's post",
			minute: "2026-11-24T07:00:00Z", // Tuesday 02:00 EST
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.01", m), src("pyth", allDay, "185.00", m)}
			},
			wantEff: "2026-11-24T00:59:00Z", wantBase: "180.00", wantBar: "2026-11-24T00:59:00Z",
			want: map[string]Status{"a": StatusCarried, "b": StatusCarried, "pyth": StatusOutlier},
			check: func(t *testing.T, res Result, _ []*fakeSource) {
				// pyth has bars at 07:00 but they are not in the sessions: it carries 00:59 too
				if q := quoteOf(t, res, "pyth"); !q.BarTime.Equal(mustTime("2026-11-24T00:59:00Z")) {
					t.Errorf("pyth bar %s", q.BarTime)
				}
			},
		},
		{
			name:   "an overnight minute with overnight in sessions: only the overnight source can answer",
			minute: "2026-11-24T07:00:00Z",
			rules:  func(r *Rules) { r.Sessions = allDay },
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("b", extended, "180.01", m), src("pyth", allDay, "180.00", m)}
			},
			wantErr: ErrNoAnswer,
			want:    map[string]Status{"a": StatusNotCovered, "b": StatusNotCovered, "pyth": StatusOK},
		},
		{
			name:   "overnight in sessions with min_sources 1",
			minute: "2026-11-24T07:00:00Z",
			rules:  func(r *Rules) { r.Sessions = allDay; r.MinSources = 1 },
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180.00", m), src("pyth", allDay, "180.00", m)}
			},
			wantBase: "180.00", wantBar: "2026-11-24T07:00:00Z",
			want: map[string]Status{"a": StatusNotCovered, "pyth": StatusOK},
		},
		{
			name:    "the minute has not closed",
			minute:  "2026-11-24T15:30:00Z",
			now:     "2026-11-24T15:30:59Z",
			fakes:   func(m time.Time) []*fakeSource { return []*fakeSource{src("a", extended, "1", m)} },
			wantErr: ErrNotClosed,
		},
		{
			name:   "a minute that just closed can be asked",
			minute: "2026-11-24T15:30:00Z",
			now:    "2026-11-24T15:31:00Z",
			fakes: func(m time.Time) []*fakeSource {
				return []*fakeSource{src("a", extended, "180", m), src("b", extended, "180", m)}
			},
			wantBase: "180", wantBar: "2026-11-24T15:30:00Z",
		},
		{
			name:   "older than every source's lookback",
			minute: "2026-10-01T15:30:00Z",
			now:    "2026-11-24T15:30:00Z",
			fakes: func(m time.Time) []*fakeSource {
				a, b := src("a", extended, "1", m), src("b", extended, "1", m)
				a.cov.Lookback, b.cov.Lookback = 29*24*time.Hour, 7*24*time.Hour
				return []*fakeSource{a, b}
			},
			wantErr: ErrTooOld,
			want:    map[string]Status{"a": StatusNotCovered, "b": StatusNotCovered},
		},
		{
			name:   "lookback clips the window of a source that still reaches the minute",
			minute: "2026-10-27T15:30:00Z",
			now:    "2026-11-25T15:15:30Z", // 29 days back is 2026-10-27T15:15:30 → first whole minute 15:16
			fakes: func(m time.Time) []*fakeSource {
				a, b := src("a", extended, "180", m), src("b", extended, "180", m)
				a.cov.Lookback = 29 * 24 * time.Hour
				return []*fakeSource{a, b}
			},
			wantBase: "180", wantBar: "2026-10-27T15:30:00Z",
			check: func(t *testing.T, _ Result, fakes []*fakeSource) {
				if c := fakes[0].seen(); len(c) != 1 || !c[0].from.Equal(mustTime("2026-10-27T15:16:00Z")) {
					t.Errorf("a asked %+v, want from 15:16", c)
				}
			},
		},
		{
			name:   "a source still inside its publication delay sits out",
			minute: "2026-11-24T15:30:00Z",
			now:    "2026-11-24T15:40:00Z",
			fakes: func(m time.Time) []*fakeSource {
				a, b, c := src("a", extended, "180", m), src("b", extended, "180", m), src("c", extended, "180", m)
				c.cov.Delay = 15 * time.Minute
				return []*fakeSource{a, b, c}
			},
			wantBase: "180", wantBar: "2026-11-24T15:30:00Z",
			want: map[string]Status{"a": StatusOK, "b": StatusOK, "c": StatusNotCovered},
		},
		{
			name:   "an empty window reported as ErrNoData is no data, not an error",
			minute: "2026-11-24T15:30:00Z",
			fakes: func(m time.Time) []*fakeSource {
				a, b, c := src("a", extended, "180", m), src("b", extended, "180", m), src("c", extended, "180", m)
				c.err = sources.Errorf("c", sources.ErrNoData, "No data is available on the specified dates")
				return []*fakeSource{a, b, c}
			},
			wantBase: "180", wantBar: "2026-11-24T15:30:00Z",
			want: map[string]Status{"a": StatusOK, "b": StatusOK, "c": StatusNoData},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustTime(tc.minute)
			now := m.Add(time.Hour)
			if tc.now != "" {
				now = mustTime(tc.now)
			}
			rules := DefaultRules()
			if tc.rules != nil {
				tc.rules(&rules)
			}
			fakes := tc.fakes(m)
			r, _ := build(now, rules, fakes...)
			// WaitAll: every source answers, so every status is deterministic; early stops have
			// their own tests
			res, err := r.Price(context.Background(), "NVDA", m, WaitAll())
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				if res.Agreed {
					t.Errorf("an error with an answer")
				}
			} else {
				if err != nil {
					t.Fatalf("Price: %v (quotes %+v)", err, res.Quotes)
				}
				bar := mustTime(tc.wantBar)
				if want := priceOf(bar, tc.wantBase, 1); res.Price != want || !res.Agreed {
					t.Errorf("price %s agreed %v, want %s (the %s bar of base %s)", res.Price, res.Agreed, want, tc.wantBar, tc.wantBase)
				}
				eff := m
				if tc.wantEff != "" {
					eff = mustTime(tc.wantEff)
				}
				if !res.Effective.Equal(eff) {
					t.Errorf("effective %s, want %s", res.Effective, eff)
				}
			}
			for name, st := range tc.want {
				if q := quoteOf(t, res, name); q.Status != st {
					t.Errorf("%s: status %s (%s), want %s", name, q.Status, q.Err, st)
				}
			}
			if len(tc.want) > 0 && len(res.Quotes) != len(fakes) {
				t.Errorf("%d quotes for %d sources", len(res.Quotes), len(fakes))
			}
			if tc.check != nil {
				tc.check(t, res, fakes)
			}
		})
	}
}

// TestPriceSplitDay prices NVDA around its 10:1 split with a source that only gives split-adjusted
// prices (like Yahoo) next to raw ones: the adjusted one is brought back to the shares of the
// minute and agrees.
func TestPriceSplitDay(t *testing.T) {
	splits := shippedSplits(t)
	now := mustTime("2024-06-20T15:00:00Z")
	tests := []struct {
		name, minute, rawBase, wantBar string
		factor                         int64
	}{
		{"Friday before the split, last regular minute", "2024-06-07T19:59:00Z", "1208.00", "2024-06-07T19:59:00Z", 10},
		{"Saturday between, carries Friday's post", "2024-06-08T15:00:00Z", "1208.00", "2024-06-07T23:59:00Z", 10},
		{"the split day's open", "2024-06-10T13:30:00Z", "121.00", "2024-06-10T13:30:00Z", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustTime(tc.minute)
			// raw tapes in the shares of the minute: the test only looks at one side of the split
			raw1, raw2 := src("alpaca", extended, tc.rawBase, m), src("massive", extended, tc.rawBase, m)
			yahoo := src("yahoo", extended, tc.rawBase, m)
			yahoo.cov.Adjustment = sources.SplitAdjusted
			for i, b := range yahoo.bars["NVDA"] {
				f, _ := Factor(splits["NVDA"], b.Start, now)
				if b.Close%numeric.Scaled(f) != 0 {
					t.Fatalf("tape price %s not divisible by %d", b.Close, f)
				}
				yahoo.bars["NVDA"][i].Close = b.Close / numeric.Scaled(f)
			}
			r, _ := build(now, DefaultRules(), raw1, raw2, yahoo)
			r.cfg.Splits = splits
			res, err := r.Price(context.Background(), "NVDA", m, WaitAll())
			if err != nil {
				t.Fatal(err)
			}
			want := priceOf(mustTime(tc.wantBar), tc.rawBase, 1)
			y := quoteOf(t, res, "yahoo")
			if y.Price != want || res.Price != want || y.DistanceCentiBps != 0 {
				t.Errorf("yahoo %s (%s), answer %s, want %s", y.Price, y.Status, res.Price, want)
			}
			if tc.factor > 1 {
				var adjusted numeric.Scaled
				for _, b := range yahoo.bars["NVDA"] {
					if b.Start.Equal(mustTime(tc.wantBar)) {
						adjusted = b.Close
					}
				}
				if adjusted*numeric.Scaled(tc.factor) != want {
					t.Errorf("the tape's adjusted %s × %d is not %s", adjusted, tc.factor, want)
				}
			}
		})
	}
}

// gated returns a fake that answers only when its gate closes.
func gated(f *fakeSource) *fakeSource {
	f.gate = make(chan struct{})
	f.entered = make(chan struct{})
	return f
}

func TestEarlyQuorumLeavesAHangingSourcePending(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	hang := gated(src("hang", extended, "180", m))
	r, _ := build(m.Add(time.Hour), DefaultRules(), src("a", extended, "180.00", m), src("b", extended, "180.01", m), src("c", extended, "180.02", m), hang)
	res, err := r.Price(context.Background(), "NVDA", m)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Early || res.Price != priceOf(m, "180.01", 1) {
		t.Errorf("early %v price %s", res.Early, res.Price)
	}
	if q := quoteOf(t, res, "hang"); q.Status != StatusPending || q.Err != "stopped: 3 sources agreed first" {
		t.Errorf("hang: %s %q", q.Status, q.Err)
	}
}

// TestStopEarly checks the early-stop rule on its own, where the order of answers is fixed.
func TestStopEarly(t *testing.T) {
	rules := Rules{MinSources: 2, OutlierBps: 25}
	p := func(price string) Quote { return Quote{Status: StatusOK, Price: numeric.MustPrice(price)} }
	failed := Quote{Status: StatusError}
	tests := []struct {
		name    string
		answers []Quote // answered so far
		asked   int
		quorum  int
		want    string
	}{
		{"a quorum that agrees", []Quote{p("100"), p("100.1"), p("100.2")}, 4, 3, "stopped: 3 sources agreed first"},
		{"a quorum with an outlier waits", []Quote{p("100"), p("101"), p("100.1")}, 4, 3, ""},
		{"too few answers yet", []Quote{p("100"), p("100")}, 4, 3, ""},
		{"failures do not count toward the quorum", []Quote{p("100"), p("100"), failed}, 4, 3, ""},
		{"no answer possible any more", []Quote{failed, failed}, 3, 2, "stopped: only 1 source can still give a price; min_sources is 2"},
		{"everyone answered: nothing to stop", []Quote{p("100"), p("100")}, 2, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			quotes := make([]Quote, tc.asked)
			tasks := make([]task, tc.asked)
			done := map[int]bool{}
			for i := range tasks {
				tasks[i].idx = i
			}
			for i, q := range tc.answers {
				quotes[i] = q
				done[i] = true
			}
			if got := stopEarly(quotes, tasks, done, tc.quorum, rules); got != tc.want {
				t.Errorf("stopEarly = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEffectiveQuorum(t *testing.T) {
	tests := []struct{ early, min, asked, want int }{
		{0, 2, 6, 4}, {0, 2, 5, 3}, {0, 2, 2, 2}, {0, 3, 3, 3}, {0, 2, 1, 1},
		{5, 2, 6, 5}, {1, 2, 6, 2}, {9, 2, 6, 6}, {WaitForAll, 2, 6, 6},
	}
	for _, tc := range tests {
		if got := effectiveQuorum(tc.early, tc.min, tc.asked); got != tc.want {
			t.Errorf("effectiveQuorum(%d, %d, %d) = %d, want %d", tc.early, tc.min, tc.asked, got, tc.want)
		}
	}
}

func TestWaitAllOption(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	late := gated(src("late", extended, "180.03", m))
	r, _ := build(m.Add(time.Hour), DefaultRules(), src("a", extended, "180.00", m), src("b", extended, "180.01", m), late)
	done := make(chan Result)
	go func() {
		res, _ := r.Price(context.Background(), "NVDA", m, WaitAll())
		done <- res
	}()
	<-late.entered
	close(late.gate)
	res := <-done
	if res.Early || quoteOf(t, res, "late").Status != StatusOK {
		t.Errorf("WaitAll stopped early: %+v", res.Quotes)
	}
}

func TestDeadlineLeavesSourcesPending(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	rules := DefaultRules()
	rules.Deadline = 7 * time.Second
	r, deadline := build(m.Add(time.Hour), rules, gated(src("a", extended, "180", m)), gated(src("b", extended, "180", m)))
	deadline <- m
	res, err := r.Price(context.Background(), "NVDA", m)
	if !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("err %v", err)
	}
	for _, q := range res.Quotes {
		if q.Status != StatusPending || q.Err != "no answer within the 7s deadline" {
			t.Errorf("%s: %s %q", q.Source, q.Status, q.Err)
		}
	}
}

func TestStopsWhenNoAnswerIsPossible(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	broken := src("broken", extended, "180", m)
	broken.err = sources.Errorf("broken", sources.ErrUnauthorized, "invalid key")
	r, _ := build(m.Add(time.Hour), DefaultRules(), broken, gated(src("hang", extended, "180", m)))
	res, err := r.Price(context.Background(), "NVDA", m)
	if !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("err %v", err)
	}
	if q := quoteOf(t, res, "hang"); q.Status != StatusPending || q.Err != "stopped: only 1 source can still give a price; min_sources is 2" {
		t.Errorf("hang: %s %q", q.Status, q.Err)
	}
	if q := quoteOf(t, res, "broken"); q.Status != StatusError || q.Kind != sources.KindUnauthorized || !strings.Contains(q.Err, "invalid key") {
		t.Errorf("broken: %s %s %q", q.Status, q.Kind, q.Err)
	}
}

func TestCancelledContext(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	r, _ := build(m.Add(time.Hour), DefaultRules(), gated(src("a", extended, "180", m)), gated(src("b", extended, "180", m)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := r.Price(ctx, "NVDA", m)
	if !errors.Is(err, ErrNoAnswer) || quoteOf(t, res, "a").Status != StatusPending {
		t.Errorf("err %v quotes %+v", err, res.Quotes)
	}
}

func TestPriceBadInput(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	r, _ := build(m.Add(time.Hour), DefaultRules(), src("a", extended, "180", m))
	if _, err := r.Price(context.Background(), "AAPL", m); !errors.Is(err, ErrUnknownSymbol) || !strings.Contains(err.Error(), "NVDA") {
		t.Errorf("unknown symbol: %v", err)
	}
	if _, err := r.Price(context.Background(), "NVDA", m.Add(30*time.Second)); !errors.Is(err, ErrUnaligned) {
		t.Errorf("unaligned: %v", err)
	}
}

func TestSkippedAndUnmappedSources(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	a, b := src("a", extended, "180", m), src("b", extended, "180", m)
	feed := Feed{Symbol: "NVDA", Sources: []FeedSource{{"a", "NVDA"}, {"b", "NVDA"}, {"keyless", "NVDA"}}}
	members := []Member{{Name: "a", Source: a}, {Name: "b", Source: b}, {Name: "keyless", Missing: "K_ENV is not set"}, {Name: "other", Source: src("other", extended, "1", m)}}
	clock := &fakeClock{now: m.Add(time.Hour)}
	r := NewReconciler(Config{Rules: DefaultRules(), Feeds: []Feed{feed}, Members: members}, Deps{Deps: sources.Deps{Now: clock.Now}})
	res, err := r.Price(context.Background(), "NVDA", m)
	if err != nil {
		t.Fatal(err)
	}
	if q := quoteOf(t, res, "keyless"); q.Status != StatusNoKey || q.Err != "K_ENV is not set" {
		t.Errorf("keyless %s %q", q.Status, q.Err)
	}
	if q := quoteOf(t, res, "other"); q.Status != StatusNotCovered || q.Err != "not in the NVDA feed" {
		t.Errorf("other %s %q", q.Status, q.Err)
	}
	if len(res.Quotes) != 4 {
		t.Errorf("want a quote for every source of the spec")
	}
}
