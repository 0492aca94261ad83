package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// A Tuesday afternoon (13:00:30 New York) with the Monday before it a full trading day.
var tuesday = time.Date(2026, 11, 24, 18, 0, 30, 0, time.UTC)

func ny(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, market.NewYork).UTC()
}

func TestTapeIsDeterministicAndOrderFree(t *testing.T) {
	now := func() time.Time { return tuesday }
	a, b := NewTape(42, now), NewTape(42, now)
	var minutes []time.Time
	for d := 0; d < 40; d++ { // spread over years, sessions and closed hours
		minutes = append(minutes, ny(2020+d%7, time.Month(1+d%12), 1+d%27, d%24, (d*7)%60))
	}
	for m := ny(2026, 11, 23, 9, 30); m.Before(ny(2026, 11, 23, 9, 50)); m = m.Add(time.Minute) {
		minutes = append(minutes, m)
	}
	shuffled := slices.Clone(minutes)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, m := range shuffled { // b sees the minutes in another order, warming other caches
		b.Bar("TSLA", m)
	}
	traded := 0
	for _, sym := range a.Symbols() {
		for _, m := range minutes {
			x, okX := a.Bar(sym, m)
			y, okY := b.Bar(sym, m)
			if okX != okY || x != y {
				t.Fatalf("%s %s: %v %v vs %v %v", sym, m, x, okX, y, okY)
			}
			if okX {
				traded++
			}
		}
	}
	if traded < 40 {
		t.Fatalf("only %d traded minutes among the samples: the tape is too sparse to test", traded)
	}
	c := NewTape(43, now)
	same := 0
	for m := ny(2026, 11, 23, 9, 30); m.Before(ny(2026, 11, 23, 9, 50)); m = m.Add(time.Minute) {
		x, _ := a.Bar("NVDA", m)
		y, _ := c.Bar("NVDA", m)
		if x == y {
			same++
		}
	}
	if same == 20 {
		t.Fatal("seeds 42 and 43 give the same tape")
	}
}

func TestTapeLevelsArePlausible(t *testing.T) {
	tape := NewTape(1, func() time.Time { return tuesday })
	tests := []struct {
		sym    string
		at     time.Time
		lo, hi float64 // as-traded dollars
	}{
		{"NVDA", ny(2026, 11, 23, 12, 0), 120, 260},
		{"TSLA", ny(2026, 11, 23, 12, 0), 280, 560},
		{"SPY", ny(2026, 11, 23, 12, 0), 520, 840},
		{"NVDA", ny(2020, 1, 15, 12, 0), 160, 330}, // ×40 of ~6
		{"TSLA", ny(2020, 1, 15, 12, 0), 250, 600}, // ×15 of ~28
		{"NVDA", ny(2024, 6, 6, 12, 0), 850, 1600}, // ×10 of ~120
		{"SPY", ny(2020, 3, 23, 12, 0), 160, 300},
	}
	for _, tc := range tests {
		var b numeric.Scaled
		for m := tc.at; b == 0 && m.Before(tc.at.Add(time.Hour)); m = m.Add(time.Minute) {
			if bar, ok := tape.Bar(tc.sym, m); ok {
				b = bar.Close
			}
		}
		f, _ := strconv.ParseFloat(b.String(), 64)
		if f < tc.lo || f > tc.hi {
			t.Errorf("%s at %s trades at %s, want %g–%g", tc.sym, tc.at.Format(time.DateOnly), b, tc.lo, tc.hi)
		}
	}
}

func TestTapeHasSubPennyPricesThatSurviveFloat32AndMinutesWithoutTrades(t *testing.T) {
	tape := NewTape(1, func() time.Time { return tuesday })
	sub, missingRegular, missingPre, regularMinutes, preMinutes := 0, 0, 0, 0, 0
	for m := ny(2026, 11, 16, 4, 0); m.Before(ny(2026, 11, 20, 20, 0)); m = m.Add(time.Minute) {
		s, ok := market.SessionAt(m)
		if !ok {
			continue
		}
		b, traded := tape.Bar("NVDA", m)
		switch s {
		case market.Regular:
			regularMinutes++
			if !traded {
				missingRegular++
			}
		case market.Pre, market.Post:
			preMinutes++
			if !traded {
				missingPre++
			}
		}
		if !traded {
			continue
		}
		if int64(b.Close)%1_000_000 != 0 {
			sub++
		}
		if b.Close <= 0 || b.Volume <= 0 || int64(b.Close)%10_000 != 0 {
			t.Fatalf("%s: close %s volume %d: want a positive price with at most 4 decimals and a positive volume", m, b.Close, b.Volume)
		}
		text, err := numeric.CanonicalFloat32(Float32Text(b.Close))
		if err != nil || numeric.MustPrice(text) != b.Close {
			t.Fatalf("%s: %s does not survive Yahoo's float32 (%q, %v)", m, b.Close, text, err)
		}
	}
	if sub == 0 || missingRegular == 0 {
		t.Fatalf("%d sub-penny closes, %d regular minutes without a trade: want some of each", sub, missingRegular)
	}
	if missingPre*regularMinutes <= missingRegular*preMinutes {
		t.Fatalf("extended hours miss %d/%d minutes, regular %d/%d: extended hours should be thinner", missingPre, preMinutes, missingRegular, regularMinutes)
	}
}

func TestTapeSplitsJumpOnTheRealDates(t *testing.T) {
	tape := NewTape(1, func() time.Time { return tuesday })
	tests := []struct {
		sym   string
		ratio int64
		last  time.Time // the post session before the split day
		first time.Time // the split day's pre-market
	}{
		{"NVDA", 4, ny(2021, 7, 19, 19, 0), ny(2021, 7, 20, 4, 0)},
		{"NVDA", 10, ny(2024, 6, 7, 19, 0), ny(2024, 6, 10, 4, 0)},
		{"TSLA", 5, ny(2020, 8, 28, 19, 0), ny(2020, 8, 31, 4, 0)},
		{"TSLA", 3, ny(2022, 8, 24, 19, 0), ny(2022, 8, 25, 4, 0)},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %d:1", tc.sym, tc.ratio), func(t *testing.T) {
			before := lastClose(t, tape, tc.sym, tc.last, tc.last.Add(time.Hour))
			after := firstClose(t, tape, tc.sym, tc.first, tc.first.Add(time.Hour))
			// the as-traded price drops by the ratio, give or take a night's move
			ratio := float64(before) / float64(after)
			if ratio < float64(tc.ratio)*0.9 || ratio > float64(tc.ratio)*1.1 {
				t.Fatalf("raw %s → %s is ×%.3f across the split, want about %d", before, after, ratio, tc.ratio)
			}
			for m := tc.first.Add(-8 * time.Hour); m.Before(tc.first); m = m.Add(time.Minute) {
				if b, ok := tape.Bar(tc.sym, m); ok {
					t.Fatalf("a trade at %s in the ambiguous night before the split: %v", m, b)
				}
			}
			// no jump between the two trading days before, where nothing split
			prev := lastClose(t, tape, tc.sym, tc.last.Add(-4*24*time.Hour), tc.last.Add(-20*time.Hour))
			if r := float64(prev) / float64(before); r < 0.85 || r > 1.15 {
				t.Fatalf("a ×%.3f move between two ordinary days", r)
			}
		})
	}
}

func lastClose(t *testing.T, tape *Tape, sym string, from, to time.Time) numeric.Scaled {
	t.Helper()
	var p numeric.Scaled
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		if b, ok := tape.Bar(sym, m); ok {
			p = b.Close
		}
	}
	if p == 0 {
		t.Fatalf("%s: no trade in [%s, %s)", sym, from, to)
	}
	return p
}

func firstClose(t *testing.T, tape *Tape, sym string, from, to time.Time) numeric.Scaled {
	t.Helper()
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		if b, ok := tape.Bar(sym, m); ok {
			return b.Close
		}
	}
	t.Fatalf("%s: no trade in [%s, %s)", sym, from, to)
	return 0
}

func TestEveryProviderServesTheTapeInItsSessions(t *testing.T) {
	f := newFixture(t, tuesday, Options{Seed: 5})
	// Monday New York: the overnight into Monday (from midnight), pre, regular, post and the
	// start of Tuesday's overnight
	from, to := ny(2026, 11, 23, 0, 0), ny(2026, 11, 24, 0, 0)
	for _, p := range Providers() {
		t.Run(p, func(t *testing.T) {
			got := f.bars(p, "TSLA", from, to, nil)
			want := tapeBars(f.s.Tape(), "TSLA", from, to, Sessions(p), false, tuesday)
			if d := diffBars(got, want); d != "" {
				t.Fatal(d)
			}
			seen := map[market.Session]bool{}
			for _, b := range got {
				s, _ := market.SessionAt(b.start)
				seen[s] = true
			}
			for _, s := range market.AllSessions {
				if seen[s] != slices.Contains(Sessions(p), s) {
					t.Errorf("session %s: served %v, want %v", s, seen[s], slices.Contains(Sessions(p), s))
				}
			}
		})
	}
	if !slices.Equal(Sessions("pyth"), market.AllSessions) || slices.Contains(Sessions("alpaca"), market.Overnight) ||
		!slices.Equal(Sessions("twelvedata"), []market.Session{market.Regular}) {
		t.Fatalf("coverage: pyth %v alpaca %v twelvedata %v", Sessions("pyth"), Sessions("alpaca"), Sessions("twelvedata"))
	}
}

// TestNoBarAtOrAfterTheCurrentMinute: in the instant world (Options.Instant) no provider serves
// the minute in progress; TestPublication has the providers' own ways.
func TestNoBarAtOrAfterTheCurrentMinute(t *testing.T) {
	f := newFixture(t, tuesday, Options{Instant: true})
	minute := tuesday.Truncate(time.Minute)
	if _, ok := f.s.Tape().Bar("SPY", minute); ok {
		t.Fatal("the tape has a bar for the minute in progress")
	}
	from, to := minute.Add(-20*time.Minute), minute.Add(20*time.Minute)
	for _, p := range Providers() {
		t.Run(p, func(t *testing.T) {
			got := f.bars(p, "SPY", from, to, nil)
			if len(got) == 0 {
				t.Fatal("no bars before now")
			}
			if last := got[len(got)-1].start; !last.Before(minute) {
				t.Fatalf("bar at %s, now is %s", last, tuesday)
			}
		})
	}
	// a minute later, the minute that was in progress has closed and shows as the tape has it
	f.now = tuesday.Add(time.Minute)
	b, ok := f.s.Tape().Bar("SPY", minute)
	b2, ok2 := NewTape(1, func() time.Time { return tuesday.Add(time.Hour) }).Bar("SPY", minute)
	if ok != ok2 || b != b2 || !ok {
		t.Fatalf("after the minute closed: %v %v, a later clock sees %v %v", b, ok, b2, ok2)
	}
}

func TestAdjustmentConventions(t *testing.T) {
	// two days after NVDA's 10:1 split, so Yahoo still reaches the pre-split Friday
	now := ny(2024, 6, 12, 12, 0)
	f := newFixture(t, now, Options{})
	from, to := ny(2024, 6, 7, 9, 30), ny(2024, 6, 7, 10, 30)
	tests := []struct {
		provider string
		extra    url.Values
		adjusted bool
	}{
		{"yahoo", nil, true},
		{"alpaca", nil, false},
		{"alpaca", url.Values{"adjustment": {"split"}}, true},
		{"alpaca", url.Values{"adjustment": {"all"}}, true},
		{"massive", url.Values{"adjusted": {}}, true}, // an empty value: leave the parameter out
		{"massive", url.Values{"adjusted": {"false"}}, false},
		{"twelvedata", url.Values{"adjust": {}}, true},
		{"twelvedata", url.Values{"adjust": {"none"}}, false},
		{"alphavantage", url.Values{"adjusted": {}}, true},
		{"alphavantage", url.Values{"adjusted": {"false"}}, false},
		{"fmp", url.Values{"nonadjusted": {}}, true},
		{"fmp", url.Values{"nonadjusted": {"true"}}, false},
		{"tiingo", nil, false},
		{"pyth", nil, false},
		{"finnhub", nil, false},
		{"udf", nil, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %v", tc.provider, tc.extra), func(t *testing.T) {
			got := f.bars(tc.provider, "NVDA", from, to, tc.extra)
			want := tapeBars(f.s.Tape(), "NVDA", from, to, Regular, tc.adjusted, now)
			if d := diffBars(got, want); d != "" {
				t.Fatal(d)
			}
			raw := tapeBars(f.s.Tape(), "NVDA", from, to, Regular, false, now)
			if tc.adjusted && raw[0].close != got[0].close*10 {
				t.Fatalf("adjusted %s is not raw %s ÷ 10", got[0].close, raw[0].close)
			}
		})
	}
}

func TestAdjustedSeriesHaveNoSplitJump(t *testing.T) {
	f := newFixture(t, tuesday, Options{})
	// massive's default is split-adjusted: across TSLA's 3:1 the adjusted closes stay level
	from, to := ny(2022, 8, 24, 15, 0), ny(2022, 8, 25, 10, 0)
	adj := f.bars("massive", "TSLA", from, to, url.Values{"adjusted": {"true"}})
	raw := f.bars("massive", "TSLA", from, to, nil)
	jumpAdj, jumpRaw := maxStep(adj), maxStep(raw)
	if jumpAdj > 1.1 || jumpRaw < 2.5 {
		t.Fatalf("largest minute-to-minute ratio: adjusted %.3f, raw %.3f", jumpAdj, jumpRaw)
	}
}

func maxStep(bars []tb) float64 {
	worst := 1.0
	for i := 1; i < len(bars); i++ {
		r := float64(bars[i-1].close) / float64(bars[i].close)
		worst = max(worst, r, 1/r)
	}
	return worst
}

func TestUnauthorized(t *testing.T) {
	f := newFixture(t, tuesday, Options{})
	from, to := tuesday.Add(-time.Hour), tuesday
	window := map[string]struct {
		path string
		q    url.Values
	}{
		"alpaca":       {"/v2/stocks/NVDA/bars", url.Values{"timeframe": {"1Min"}, "feed": {"iex"}}},
		"massive":      {fmt.Sprintf("/v2/aggs/ticker/NVDA/range/1/minute/%d/%d", from.UnixMilli(), to.UnixMilli()), nil},
		"twelvedata":   {"/time_series", url.Values{"symbol": {"NVDA"}, "interval": {"1min"}}},
		"alphavantage": {"/query", url.Values{"function": {"TIME_SERIES_INTRADAY"}, "symbol": {"NVDA"}, "interval": {"1min"}}},
		"tiingo":       {"/iex/NVDA/prices", url.Values{"resampleFreq": {"1min"}}},
		"pyth":         {"/v1/fixed_rate@200ms/history", url.Values{"symbol": {"Equity.US.NVDA/USD"}, "resolution": {"1"}, "from": {fmt.Sprint(from.Unix())}, "to": {fmt.Sprint(to.Unix())}}},
		"finnhub":      {"/api/v1/stock/candle", url.Values{"symbol": {"NVDA"}, "resolution": {"1"}, "from": {fmt.Sprint(from.Unix())}, "to": {fmt.Sprint(to.Unix())}}},
		"fmp":          {"/stable/historical-chart/1min", url.Values{"symbol": {"NVDA"}}},
	}
	wrong := map[string]func(q url.Values, h map[string]string){
		"alpaca":       func(_ url.Values, h map[string]string) { h["APCA-API-KEY-ID"], h["APCA-API-SECRET-KEY"] = Key, "nope" },
		"massive":      func(q url.Values, _ map[string]string) { q.Set("apiKey", "nope") },
		"twelvedata":   func(q url.Values, _ map[string]string) { q.Set("apikey", "nope") },
		"alphavantage": func(q url.Values, _ map[string]string) { q.Set("apikey", "nope") },
		"tiingo":       func(_ url.Values, h map[string]string) { h["Authorization"] = "Token nope" },
		"pyth":         func(_ url.Values, h map[string]string) { h["Authorization"] = "Bearer nope" },
		"finnhub":      func(q url.Values, _ map[string]string) { q.Set("token", "nope") },
		"fmp":          func(q url.Values, _ map[string]string) { q.Set("apikey", "nope") },
	}
	tests := []struct {
		provider      string
		missingStatus int
		missingBody   string
		wrongStatus   int
		wrongBody     string
	}{
		{"alpaca", 401, `{"message":"unauthorized."}`, 403, `{"message":"forbidden."}`},
		{"massive", 401, `"error":"API Key was not provided"`, 401, `"error":"Unknown API Key"`},
		{"twelvedata", 401, `"apikey parameter is incorrect or not specified.`, 401, `"code":401`},
		{"alphavantage", 200, `"Error Message": "the parameter apikey is invalid or missing.`, 200, `apikey is invalid or missing`},
		{"tiingo", 403, `{"detail":"Please supply a token"}`, 401, `{"detail":"Invalid token."}`},
		{"pyth", 401, "missing API key", 401, "invalid API key"},
		{"finnhub", 401, `{"error":"Please use an API key."}`, 401, `{"error":"Invalid API key."}`},
		{"fmp", 401, `"Error Message":"Invalid API KEY. Feel free to create a Free API Key`, 401, `Invalid API KEY`},
	}
	for _, tc := range tests {
		t.Run(tc.provider, func(t *testing.T) {
			w := window[tc.provider]
			r := f.get(tc.provider, w.path, w.q, false, nil)
			if r.status != tc.missingStatus || !strings.Contains(string(r.body), tc.missingBody) {
				t.Fatalf("no key: HTTP %d %s", r.status, r.body)
			}
			q, h := cloneValues(w.q), map[string]string{}
			wrong[tc.provider](q, h)
			r = f.get(tc.provider, w.path, q, false, h)
			if r.status != tc.wrongStatus || !strings.Contains(string(r.body), tc.wrongBody) {
				t.Fatalf("wrong key: HTTP %d %s", r.status, r.body)
			}
			if r := f.get(tc.provider, w.path, w.q, true, nil); r.status != http.StatusOK {
				t.Fatalf("the right key: HTTP %d %s", r.status, clip(r.body))
			}
		})
	}
	t.Run("yahoo wants a browser", func(t *testing.T) {
		r := f.get("yahoo", "/v8/finance/chart/NVDA", url.Values{"interval": {"1m"}}, false, map[string]string{"User-Agent": "curl/8.5.0"})
		if r.status != http.StatusTooManyRequests || string(r.body) != "Edge: Too Many Requests" {
			t.Fatalf("HTTP %d %q", r.status, r.body)
		}
	})
	t.Run("udf key is optional", func(t *testing.T) {
		q := url.Values{"symbol": {"NVDA"}, "resolution": {"1"}, "from": {fmt.Sprint(from.Unix())}, "to": {fmt.Sprint(to.Unix())}}
		if r := f.get("udf", "/history", q, false, nil); r.status != http.StatusOK {
			t.Fatalf("without a key: HTTP %d", r.status)
		}
		if r := f.get("udf", "/history", q, false, map[string]string{"Authorization": "Bearer nope"}); r.status != http.StatusUnauthorized {
			t.Fatalf("a wrong key: HTTP %d", r.status)
		}
	})
}

func TestRateLimitAnswers429WithRetryAfter(t *testing.T) {
	now := tuesday.Truncate(time.Minute).Add(45 * time.Second)
	f := newFixture(t, now, Options{RateLimit: 2})
	bodies := map[string]string{
		"yahoo":        "Edge: Too Many Requests",
		"alpaca":       `"code":42910000`,
		"massive":      "You've exceeded the maximum requests per minute",
		"twelvedata":   "3 API credits were used, with the current limit being 2",
		"alphavantage": `"Information"`,
		"tiingo":       "hourly request allocation",
		"pyth":         "Too Many Requests",
		"finnhub":      "API limit reached",
		"fmp":          "Limit Reach",
		"udf":          "too many requests",
	}
	for _, p := range Providers() {
		t.Run(p, func(t *testing.T) {
			f.now = now
			from, to := now.Add(-time.Hour), now
			f.bars(p, "NVDA", from, to, nil)
			f.bars(p, "NVDA", from, to, nil)
			r := f.get(p, "/anything", nil, true, nil)
			if r.status != http.StatusTooManyRequests || !strings.Contains(string(r.body), bodies[p]) {
				t.Fatalf("third request: HTTP %d %s", r.status, r.body)
			}
			if ra := r.header.Get("Retry-After"); atoi(t, ra) != 15 {
				t.Fatalf("Retry-After %q, want 15 (seconds to the next minute)", ra)
			}
			f.now = now.Add(15 * time.Second) // the next minute: a fresh allowance
			f.bars(p, "NVDA", from, to, nil)
			if n := f.s.Requests(p); n != 4 {
				t.Fatalf("%d requests counted, want 4", n)
			}
		})
	}
	f.s.ResetCounts()
	if n := f.s.Requests("yahoo"); n != 0 {
		t.Fatalf("after ResetCounts: %d", n)
	}
	f.s.SetRateLimit("fmp", 0)
	f.now = now
	for i := 0; i < 4; i++ {
		if r := f.get("fmp", "/stable/historical-chart/1min", url.Values{"symbol": {"NVDA"}}, true, nil); r.status != http.StatusOK {
			t.Fatalf("fmp unlimited, request %d: HTTP %d", i, r.status)
		}
	}
}

func TestWindowLookbackAndEmptyAnswers(t *testing.T) {
	f := newFixture(t, tuesday, Options{})
	sat, sun := ny(2026, 11, 21, 10, 0), ny(2026, 11, 22, 10, 0) // a weekend: no session
	secs := func(t time.Time) string { return fmt.Sprint(t.Unix()) }
	tests := []struct {
		name, provider, path string
		q                    url.Values
		status               int
		body                 string // exact, or a prefix ending in "…"
	}{
		{"yahoo too wide", "yahoo", "/v8/finance/chart/NVDA", url.Values{"interval": {"1m"}, "period1": {secs(tuesday.Add(-9 * 24 * time.Hour))}, "period2": {secs(tuesday)}},
			422, `{"chart":{"result":null,"error":{"code":"Unprocessable Entity","description":"Only 8 days worth of 1m granularity data are allowed to be fetched per request."}}}`},
		{"yahoo too old", "yahoo", "/v8/finance/chart/NVDA", url.Values{"interval": {"1m"}, "period1": {secs(tuesday.Add(-30 * 24 * time.Hour))}, "period2": {secs(tuesday.Add(-29 * 24 * time.Hour))}},
			422, fmt.Sprintf(`{"chart":{"result":null,"error":{"code":"Unprocessable Entity","description":"1m data not available for startTime=%d and endTime=%d. The requested range must be within the last 30 days."}}}`, tuesday.Add(-30*24*time.Hour).Unix(), tuesday.Add(-29*24*time.Hour).Unix())},
		{"yahoo unknown symbol", "yahoo", "/v8/finance/chart/ZZZZ", url.Values{"interval": {"1m"}},
			404, `{"chart":{"result":null,"error":{"code":"Not Found","description":"No data found, symbol may be delisted"}}}`},
		{"yahoo weekend", "yahoo", "/v8/finance/chart/NVDA", url.Values{"interval": {"1m"}, "period1": {secs(sat)}, "period2": {secs(sun)}},
			200, `{"chart":{"result":[{"meta":…`},
		{"twelvedata weekend", "twelvedata", "/time_series", url.Values{"symbol": {"NVDA"}, "interval": {"1min"}, "start_date": {"2026-11-21"}, "end_date": {"2026-11-22"}},
			200, `{"code":400,"message":"No data is available on the specified dates. Try setting different start/end dates.","status":"error"}`},
		{"twelvedata unknown", "twelvedata", "/time_series", url.Values{"symbol": {"ZZZZ"}, "interval": {"1min"}},
			200, `{"code":404,"message":"**symbol** not found: ZZZZ.…`},
		{"finnhub weekend", "finnhub", "/api/v1/stock/candle", url.Values{"symbol": {"NVDA"}, "resolution": {"1"}, "from": {secs(sat)}, "to": {secs(sun)}},
			200, `{"s":"no_data"}`},
		{"finnhub unknown", "finnhub", "/api/v1/stock/candle", url.Values{"symbol": {"ZZZZ"}, "resolution": {"1"}, "from": {secs(tuesday.Add(-time.Hour))}, "to": {secs(tuesday)}},
			200, `{"s":"no_data"}`},
		{"pyth weekend", "pyth", "/v1/fixed_rate@200ms/history", url.Values{"symbol": {"Equity.US.NVDA/USD"}, "resolution": {"1"}, "from": {secs(sat)}, "to": {secs(sun)}},
			200, `{"s":"ok","t":[],"o":[],"h":[],"l":[],"c":[],"v":[]}`},
		{"pyth unknown", "pyth", "/v1/fixed_rate@200ms/history", url.Values{"symbol": {"NVDA"}, "resolution": {"1"}, "from": {secs(sat)}, "to": {secs(sun)}},
			200, `{"errmsg":"unknown_symbol","s":"error"}`},
		{"udf weekend", "udf", "/history", url.Values{"symbol": {"NVDA"}, "resolution": {"1"}, "from": {secs(sat)}, "to": {secs(sun)}},
			200, `{"s":"ok","t":[],"o":[],"h":[],"l":[],"c":[],"v":[]}`},
		{"massive weekend", "massive", fmt.Sprintf("/v2/aggs/ticker/NVDA/range/1/minute/%d/%d", sat.UnixMilli(), sun.UnixMilli()), nil,
			200, `{"adjusted":true,"count":0,"queryCount":0,"request_id":…`},
		{"fmp weekend", "fmp", "/stable/historical-chart/1min", url.Values{"symbol": {"NVDA"}, "from": {"2026-11-21"}, "to": {"2026-11-22"}}, 200, `[]`},
		{"fmp unknown", "fmp", "/stable/historical-chart/1min", url.Values{"symbol": {"ZZZZ"}}, 200, `[]`},
		{"tiingo weekend", "tiingo", "/iex/NVDA/prices", url.Values{"startDate": {"2026-11-21"}, "endDate": {"2026-11-22"}, "resampleFreq": {"1min"}}, 200, `[]`},
		{"tiingo unknown", "tiingo", "/iex/ZZZZ/prices", url.Values{"resampleFreq": {"1min"}}, 404, `{"detail":"Error: Ticker 'ZZZZ' not found"}`},
		{"alpaca unknown", "alpaca", "/v2/stocks/bars", url.Values{"symbols": {"ZZZZ"}, "timeframe": {"1Min"}, "feed": {"iex"}}, 200, `{"bars":{},"next_page_token":null}`},
		{"alpaca single empty", "alpaca", "/v2/stocks/NVDA/bars", url.Values{"timeframe": {"1Min"}, "feed": {"iex"}, "start": {sat.Format(time.RFC3339)}, "end": {sun.Format(time.RFC3339)}},
			200, `{"bars":null,"next_page_token":null,"symbol":"NVDA"}`},
		{"alpaca recent sip", "alpaca", "/v2/stocks/NVDA/bars", url.Values{"timeframe": {"1Min"}, "feed": {"sip"}, "end": {tuesday.Format(time.RFC3339)}},
			403, `{"code":42210000,"message":"subscription does not permit querying recent SIP data"}`},
		{"alphavantage before 2000", "alphavantage", "/query", url.Values{"function": {"TIME_SERIES_INTRADAY"}, "symbol": {"NVDA"}, "interval": {"1min"}, "month": {"1999-12"}},
			200, "{\n    \"Error Message\": \"Invalid API call.…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.get(tc.provider, tc.path, tc.q, true, nil)
			body := string(r.body)
			ok := body == tc.body
			if prefix, cut := strings.CutSuffix(tc.body, "…"); cut {
				ok = strings.HasPrefix(body, prefix)
			}
			if r.status != tc.status || !ok {
				t.Fatalf("HTTP %d %s\nwant HTTP %d %s", r.status, clip(r.body), tc.status, tc.body)
			}
		})
	}
	// Yahoo's empty window: no timestamp key and quote [{}]
	r := f.get("yahoo", "/v8/finance/chart/NVDA", url.Values{"interval": {"1m"}, "period1": {secs(sat)}, "period2": {secs(sun)}}, true, nil)
	if strings.Contains(string(r.body), `"timestamp"`) || !strings.Contains(string(r.body), `"indicators":{"quote":[{}]}`) {
		t.Fatalf("empty Yahoo window: %s", r.body)
	}
}

func TestWireConventions(t *testing.T) {
	f := newFixture(t, tuesday, Options{})
	day := url.Values{"symbol": {"NVDA"}, "interval": {"1min"}, "start_date": {"2026-11-23 09:30:00"}, "end_date": {"2026-11-23 09:34:00"}}
	// what the tape traded on Monday's regular session, printed in New York time
	monday := tapeBars(f.s.Tape(), "NVDA", ny(2026, 11, 23, 9, 30), ny(2026, 11, 23, 16, 0), Regular, false, tuesday)
	nyText := func(b tb) string { return b.start.In(market.NewYork).Format(time.DateTime) }
	open, closing := nyText(monday[0]), nyText(monday[len(monday)-1])
	t.Run("twelvedata exchange time, desc, 5 decimals", func(t *testing.T) {
		var v struct {
			Values []map[string]string `json:"values"`
		}
		r := f.get("twelvedata", "/time_series", day, true, nil)
		if err := json.Unmarshal(r.body, &v); err != nil || len(v.Values) == 0 {
			t.Fatalf("%v %s", err, clip(r.body))
		}
		if d := v.Values[len(v.Values)-1]["datetime"]; d != open {
			t.Fatalf("oldest datetime %q, want %s (exchange time), listed last", d, open)
		}
		if c := v.Values[0]["close"]; len(c) < 6 || c[len(c)-6] != '.' {
			t.Fatalf("close %q: want 5 decimals", c)
		}
		utc := cloneValues(day)
		utc.Set("timezone", "UTC")
		utc.Set("start_date", "2026-11-23 14:30:00")
		utc.Set("end_date", "2026-11-23 14:34:00")
		utc.Set("order", "asc")
		r = f.get("twelvedata", "/time_series", utc, true, nil)
		if err := json.Unmarshal(r.body, &v); err != nil || v.Values[0]["datetime"] != "2026-11-23 14:30:00" {
			t.Fatalf("timezone=UTC: %s", clip(r.body))
		}
	})
	t.Run("alphavantage start-labelled New York keys", func(t *testing.T) {
		r := f.get("alphavantage", "/query", url.Values{"function": {"TIME_SERIES_INTRADAY"}, "symbol": {"NVDA"}, "interval": {"1min"},
			"month": {"2026-11"}, "outputsize": {"full"}, "extended_hours": {"false"}}, true, nil)
		body := string(r.body)
		if !strings.Contains(body, `"`+open+`"`) || strings.Contains(body, `"2026-11-23 16:00:00"`) || strings.Contains(body, `"2026-11-23 09:29:00"`) {
			t.Fatalf("a regular-only day should run from %s to %s (start labels)", open, closing)
		}
		if i, j := strings.Index(body, `"`+closing+`"`), strings.Index(body, `"`+open+`"`); i < 0 || j < 0 || i > j {
			t.Fatal("keys should be newest first")
		}
		if !strings.Contains(body, `"1. open": "`) || !strings.Contains(body, `"6. Time Zone": "US/Eastern"`) {
			t.Fatalf("shape: %s", clip(r.body))
		}
	})
	t.Run("fmp newest first in New York time", func(t *testing.T) {
		var v []map[string]any
		r := f.get("fmp", "/stable/historical-chart/1min", url.Values{"symbol": {"NVDA"}, "from": {"2026-11-23"}, "to": {"2026-11-23"}}, true, nil)
		if err := json.Unmarshal(r.body, &v); err != nil || len(v) < 300 {
			t.Fatalf("%v %d bars", err, len(v))
		}
		if v[0]["date"] != closing || v[len(v)-1]["date"] != open || len(v) != len(monday) {
			t.Fatalf("first %v last %v", v[0]["date"], v[len(v)-1]["date"])
		}
	})
	t.Run("tiingo ISO Z and volume only when asked", func(t *testing.T) {
		q := url.Values{"startDate": {"2026-11-23"}, "endDate": {"2026-11-23"}, "resampleFreq": {"1min"}}
		r := f.get("tiingo", "/iex/NVDA/prices", q, true, nil)
		if !strings.HasPrefix(string(r.body), `[{"date":"2026-11-23T14:30:00.000Z","open":`) || strings.Contains(string(r.body), "volume") {
			t.Fatalf("%s", clip(r.body))
		}
		q.Set("columns", "close,volume")
		r = f.get("tiingo", "/iex/NVDA/prices", q, true, nil)
		if !strings.Contains(string(r.body), `"volume":`) || strings.Contains(string(r.body), `"open"`) {
			t.Fatalf("%s", clip(r.body))
		}
	})
	t.Run("massive milliseconds and yahoo float32", func(t *testing.T) {
		from := ny(2026, 11, 23, 9, 30)
		r := f.get("massive", fmt.Sprintf("/v2/aggs/ticker/NVDA/range/1/minute/%d/%d", from.UnixMilli(), from.UnixMilli()), nil, true, nil)
		if !strings.Contains(string(r.body), fmt.Sprintf(`"t":%d`, from.UnixMilli())) {
			t.Fatalf("%s", r.body)
		}
		r = f.get("yahoo", "/v8/finance/chart/NVDA", url.Values{"interval": {"1m"}, "period1": {fmt.Sprint(from.Unix())}, "period2": {fmt.Sprint(from.Unix() + 3600)}}, true, nil)
		var v struct {
			Chart struct {
				Result []struct {
					Indicators struct {
						Quote []struct {
							Close []*json.Number `json:"close"`
						} `json:"quote"`
					} `json:"indicators"`
				} `json:"result"`
			} `json:"chart"`
		}
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatal(err)
		}
		widened := 0
		for _, c := range v.Chart.Result[0].Indicators.Quote[0].Close {
			if c == nil {
				continue
			}
			x, err := strconv.ParseFloat(c.String(), 64)
			if err != nil || float64(float32(x)) != x {
				t.Fatalf("%s is not a widened float32", c)
			}
			if len(c.String()) > 10 {
				widened++
			}
		}
		if widened == 0 {
			t.Fatal("no close printed with float32 noise: the widening is not happening")
		}
	})
	t.Run("yahoo synthetic closing bar without prepost", func(t *testing.T) {
		from := ny(2026, 11, 23, 15, 50)
		f := newFixture(t, ny(2026, 11, 23, 17, 0), Options{}) // after Monday's close
		r := f.get("yahoo", "/v8/finance/chart/NVDA", url.Values{"interval": {"1m"}, "includePrePost": {"false"},
			"period1": {fmt.Sprint(from.Unix())}, "period2": {fmt.Sprint(from.Unix() + 1800)}}, true, nil)
		want := fmt.Sprint(ny(2026, 11, 23, 16, 0).Unix())
		if !strings.Contains(string(r.body), want+`]`) || !strings.Contains(string(r.body), `,0]`) {
			t.Fatalf("want a last bar at 16:00 with volume 0: %s", clip(r.body))
		}
	})
}

func TestFaults(t *testing.T) {
	f := newFixture(t, tuesday, Options{})
	from, to := ny(2026, 11, 23, 10, 0), ny(2026, 11, 23, 10, 30)
	for _, p := range Providers() {
		t.Run(p, func(t *testing.T) {
			normal := f.bars(p, "NVDA", from, to, nil)
			if len(normal) == 0 {
				t.Fatal("no bars to fault")
			}
			defer f.s.SetFault(p, FaultNone)

			f.s.SetFault(p, Fault5xx)
			if r := f.get(p, "/x", nil, true, nil); r.status != http.StatusServiceUnavailable {
				t.Fatalf("5xx: HTTP %d", r.status)
			}

			f.s.SetFault(p, FaultWrongSymbol)
			wrong := f.barsAny(p, "NVDA", from, to)
			other := tapeBars(f.s.Tape(), "TSLA", from, to, Sessions(p), false, tuesday)
			if d := diffBars(wrong, other); d != "" {
				t.Fatalf("wrong symbol should serve TSLA's bars: %s", d)
			}

			f.s.SetFault(p, FaultTruncated)
			r := f.rawBars(p, "NVDA", from, to)
			if r.status != 200 || json.Valid(r.body) {
				t.Fatalf("truncated: HTTP %d, valid JSON %v", r.status, json.Valid(r.body))
			}

			f.s.SetFault(p, FaultErrorIn200)
			r = f.rawBars(p, "NVDA", from, to)
			if r.status != 200 {
				t.Fatalf("error in 200: HTTP %d", r.status)
			}
			if bars, err := parseBars(p, r.body, "NVDA"); err == nil && len(bars) > 0 {
				t.Fatalf("error in 200 still reads as %d bars: %s", len(bars), r.body)
			}

			f.s.SetFault(p, FaultUnauthorized)
			if r := f.rawBars(p, "NVDA", from, to); r.status != http.StatusUnauthorized && r.status != http.StatusForbidden &&
				!(p == "alphavantage" && strings.Contains(string(r.body), "apikey is invalid")) {
				t.Fatalf("unauthorized: HTTP %d %s", r.status, r.body)
			}

			f.s.SetFault(p, FaultTimeout)
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.s.BaseURL(f.ts.URL, p)+"/x", nil)
			if _, err := f.ts.Client().Do(req); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("timeout: %v", err)
			}

			f.s.SetFault(p, FaultNone)
			if d := diffBars(f.bars(p, "NVDA", from, to, nil), normal); d != "" {
				t.Fatalf("after clearing the fault: %s", d)
			}
		})
	}
}

// rawBars sends the request bars sends and returns the answer, whatever it is.
func (f *fixture) rawBars(p, symbol string, from, to time.Time) got {
	f.t.Helper()
	q, path := requestFor(p, symbol, from, to)
	return f.get(p, path, q, true, nil)
}

// barsAny reads bars with whatever symbol label the body carries.
func (f *fixture) barsAny(p, symbol string, from, to time.Time) []tb {
	f.t.Helper()
	r := f.rawBars(p, symbol, from, to)
	label := symbol
	if p == "alpaca" {
		var v struct {
			Bars map[string]json.RawMessage `json:"bars"`
		}
		_ = json.Unmarshal(r.body, &v)
		for k := range v.Bars {
			label = k
		}
	}
	bars, err := parseBars(p, r.body, label)
	if err != nil {
		f.t.Fatalf("%s: %v", p, err)
	}
	var out []tb
	for _, b := range bars {
		if !b.start.Before(from) && b.start.Before(to) {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b tb) int { return a.start.Compare(b.start) })
	return out
}

func httptestServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestLatencyAndCloseReleaseWaitingRequests(t *testing.T) {
	f := newFixture(t, tuesday, Options{Latency: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.s.BaseURL(f.ts.URL, "fmp")+"/stable/historical-chart/1min?symbol=NVDA&apikey="+Key, nil)
	if _, err := f.ts.Client().Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an hour of latency answered: %v", err)
	}
	f.s.SetLatency("fmp", 0)
	if r := f.get("fmp", "/stable/historical-chart/1min", url.Values{"symbol": {"NVDA"}}, true, nil); r.status != 200 {
		t.Fatalf("without latency: HTTP %d", r.status)
	}

	// a request hanging on FaultTimeout ends when the server closes
	arrived := make(chan struct{}, 1)
	s := New(Options{Now: func() time.Time { return tuesday }})
	s.SetFault("pyth", FaultTimeout)
	srv := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		s.ServeHTTP(w, r)
	}))
	errc := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Get(srv.URL + "/pyth/v1/x/history")
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-arrived
	s.Close()
	if err := <-errc; err == nil {
		t.Fatal("the hanging request got an answer after Close")
	}
}

func TestDriftAndExtraSplit(t *testing.T) {
	f := newFixture(t, tuesday, Options{})
	from, to := ny(2026, 11, 23, 10, 0), ny(2026, 11, 23, 10, 20)
	base := f.bars("finnhub", "SPY", from, to, nil)
	f.s.SetDriftBps("finnhub", 40)
	drifted := f.bars("finnhub", "SPY", from, to, nil)
	f.s.SetDriftBps("finnhub", 0)
	f.s.SetExtraSplit("pyth", 2, ny(2026, 11, 23, 10, 10))
	split := f.bars("pyth", "SPY", from, to, nil)
	if len(base) != len(drifted) || len(base) != len(split) {
		t.Fatalf("%d / %d / %d bars", len(base), len(drifted), len(split))
	}
	for i, b := range base {
		want := (int64(b.close)*10040 + 5000) / 10000
		if int64(drifted[i].close) != want {
			t.Fatalf("drifted %s, want %s × 1.004 = %d", drifted[i].close, b.close, want)
		}
		wantSplit := b.close
		if b.start.Before(ny(2026, 11, 23, 10, 10)) {
			wantSplit = numeric.Scaled((int64(b.close) + 1) / 2)
		}
		if split[i].close != wantSplit {
			t.Fatalf("%s: with an unrecorded 2:1 split %s, want %s", b.start, split[i].close, wantSplit)
		}
	}
	if got := f.bars("finnhub", "SPY", from, to, nil); diffBars(got, base) != "" {
		t.Fatal("drift 0 did not restore the prices")
	}
}

func TestRoutesAndMethods(t *testing.T) {
	f := newFixture(t, tuesday, Options{})
	if r := f.do(mustReq(t, http.MethodGet), f.ts.URL+"/nosuch/x"); r.status != 404 {
		t.Fatalf("unknown provider: HTTP %d", r.status)
	}
	if r := f.do(mustReq(t, http.MethodPost), f.ts.URL+"/finnhub/api/v1/stock/candle"); r.status != 405 {
		t.Fatalf("POST: HTTP %d", r.status)
	}
	if got := f.s.BaseURL("http://127.0.0.1:1/", "tiingo"); got != "http://127.0.0.1:1/tiingo" {
		t.Fatal(got)
	}
	want := []string{"alpaca", "alphavantage", "finnhub", "fmp", "massive", "pyth", "tiingo", "twelvedata", "udf", "yahoo"}
	if !slices.Equal(Providers(), want) {
		t.Fatalf("Providers() = %v", Providers())
	}
	if ProviderSymbol("pyth", "TSLA") != "Equity.US.TSLA/USD" || ProviderSymbol("alpaca", "TSLA") != "TSLA" {
		t.Fatal("symbol mapping")
	}
	// both base_url spellings of the providers whose docs disagree
	from, to := ny(2026, 11, 23, 10, 0), ny(2026, 11, 23, 10, 5)
	q := url.Values{"symbol": {"NVDA"}, "resolution": {"1"}, "from": {fmt.Sprint(from.Unix())}, "to": {fmt.Sprint(to.Unix())}}
	for _, path := range []string{"/api/v1/stock/candle", "/stock/candle"} {
		if r := f.get("finnhub", path, q, true, nil); r.status != 200 || !strings.HasPrefix(string(r.body), `{"c":[`) {
			t.Fatalf("finnhub %s: HTTP %d %s", path, r.status, clip(r.body))
		}
	}
	q.Set("symbol", "Equity.US.NVDA/USD")
	for _, path := range []string{"/v1/fixed_rate@200ms/history", "/real_time/history"} {
		if r := f.get("pyth", path, q, true, nil); r.status != 200 || !strings.HasPrefix(string(r.body), `{"s":"ok","t":[`) {
			t.Fatalf("pyth %s: HTTP %d %s", path, r.status, clip(r.body))
		}
	}
	if r := f.get("fmp", "/api/v3/historical-chart/1min/NVDA", url.Values{"from": {"2026-11-23"}, "to": {"2026-11-23"}}, true, nil); r.status != 200 || len(r.body) < 1000 {
		t.Fatalf("fmp legacy path: HTTP %d %s", r.status, clip(r.body))
	}
}

func mustReq(t *testing.T, method string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// FuzzRequests throws arbitrary paths and queries at every emulation: the server must answer
// each with a status, never panic, and every JSON body it sends must be valid JSON.
func FuzzRequests(f *testing.F) {
	f.Add("yahoo", "/v8/finance/chart/NVDA", "interval=1m&period1=1795700000&period2=1795710000&includePrePost=true")
	f.Add("alpaca", "/v2/stocks/bars", "symbols=NVDA,TSLA&timeframe=1Min&feed=iex&limit=3&start=2026-11-23&end=2026-11-23")
	f.Add("alpaca", "/v2/stocks/NVDA/bars", "timeframe=1Min&page_token=TlZEQXxNfDE3OTU3OTE2NjAwMDAwMDAwMDA=")
	f.Add("massive", "/v2/aggs/ticker/SPY/range/1/minute/2026-11-23/1795710000000", "cursor=bGltaXQ9MiZzb3J0PWFzYw&limit=2")
	f.Add("twelvedata", "/time_series", "symbol=NVDA&interval=1min&date=yesterday&timezone=Asia/Tokyo&outputsize=7")
	f.Add("alphavantage", "/query", "function=TIME_SERIES_INTRADAY&symbol=TSLA&interval=1min&month=2022-08&datatype=csv")
	f.Add("tiingo", "/iex/SPY/prices", "startDate=2026-11-23&resampleFreq=1min&forceFill=true&columns=close,volume")
	f.Add("pyth", "/v1/real_time/history", "symbol=equity.us.tsla/usd&resolution=1&from=1795700000&to=1795703600")
	f.Add("finnhub", "/stock/candle", "symbol=NVDA&resolution=1&from=-5&to=99999999999")
	f.Add("fmp", "/api/v3/historical-chart/1min/TSLA", "from=2026-11-20&to=2026-11-19")
	f.Add("udf", "/history", "symbol=SPY&resolution=1&from=1795700000&to=1795600000")
	s := New(Options{Now: func() time.Time { return tuesday }})
	f.Fuzz(func(t *testing.T, provider, path, query string) {
		u := &url.URL{Path: "/" + provider + path, RawQuery: query}
		req := httptest.NewRequest(http.MethodGet, "http://sim.test/", nil)
		req.URL = u
		req.Header.Set("User-Agent", "Mozilla/5.0")
		req.Header.Set("APCA-API-KEY-ID", Key)
		req.Header.Set("APCA-API-SECRET-KEY", Secret)
		req.Header.Set("Authorization", "Bearer "+Key)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code < 200 || rec.Code > 599 {
			t.Fatalf("status %d", rec.Code)
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("invalid JSON for %s: %s", u, clip(rec.Body.Bytes()))
		}
	})
}
