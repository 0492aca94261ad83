package yahoo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

// The AMZN sample was captured at 2023-05-02 16:00:04 EDT (its regularMarketTime).
var sampleNow = time.Unix(1683057604, 0).UTC()

func newSource(t testing.TB, base string, now time.Time, s sources.Settings) *Source {
	t.Helper()
	s.BaseURL = base
	src, err := factory.New(s, sources.Deps{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	y := src.(*Source)
	y.Client().Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return y
}

func TestParseAMZNSample(t *testing.T) {
	bars, err := parse(adaptertest.ReadFile(t, "yahoo-chart-1m-amzn-range30m.json"), "AMZN")
	if err != nil {
		t.Fatal(err)
	}
	// The float32-widened closes of 15:31–15:59 EDT as the decimals Yahoo stored
	// (103.62999725341797 is 103.63); the volume-0 edge bars of 15:30 and 16:00 are gone.
	want := []struct {
		close  numeric.Scaled
		volume int64
	}{
		{10360000000, 200320}, {10366500000, 105044}, {10360500000, 107497}, {10356500000, 171676},
		{10363000000, 156262}, {10372840000, 115712}, {10369000000, 153781}, {10376000000, 137695},
		{10384000000, 197050}, {10375010000, 187189}, {10373000000, 152296}, {10371010000, 144236},
		{10363000000, 134027}, {10366000000, 121863}, {10357000000, 163943}, {10366000000, 139638},
		{10357500000, 110475}, {10354000000, 161123}, {10360000000, 231181}, {10359000000, 251760},
		{10370000000, 232015}, {10369000000, 217153}, {10366500000, 199454}, {10368000000, 261127},
		{10367060000, 276844}, {10368000000, 357772}, {10373500000, 371413}, {10377500000, 380628},
		{10366000000, 862819},
	}
	if len(bars) != len(want) {
		t.Fatalf("%d bars, want %d", len(bars), len(want))
	}
	first := time.Date(2023, 5, 2, 19, 31, 0, 0, time.UTC) // 15:31 EDT
	for i, w := range want {
		b := bars[i]
		if !b.Start.Equal(first.Add(time.Duration(i)*time.Minute)) || b.Close != w.close || b.Volume != w.volume {
			t.Errorf("bar %d = %s %d %d, want %s %d %d", i, b.Start.Format(time.RFC3339), b.Close, b.Volume,
				first.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), w.close, w.volume)
		}
		if b.Start.Location() != time.UTC {
			t.Errorf("bar %d not in UTC", i)
		}
	}
}

func TestParseWeekendIsEmpty(t *testing.T) {
	bars, err := parse(adaptertest.ReadFile(t, "yahoo-chart-1m-weekend-empty.body.json"), "AAPL")
	if err != nil || bars == nil || len(bars) != 0 {
		t.Fatalf("weekend: %v %v, want an empty slice and no error", bars, err)
	}
}

// body builds a chart body from parallel JSON arrays, as text so the table can break it.
func body(symbol, ts, closes, volumes string) string {
	return fmt.Sprintf(`{"chart":{"result":[{"meta":{"symbol":%q},"timestamp":[%s],"indicators":{"quote":[{"close":[%s],"volume":[%s]}]}}],"error":null}}`,
		symbol, ts, closes, volumes)
}

func TestParseMalformed(t *testing.T) {
	const t0 = 1683055860 // 2023-05-02 19:31 UTC
	ts := func(n int) string {
		var s []string
		for i := range n {
			s = append(s, strconv.Itoa(t0+60*i))
		}
		return strings.Join(s, ",")
	}
	sample := string(adaptertest.ReadFile(t, "yahoo-chart-1m-amzn-range30m.json"))
	cases := []struct {
		name   string
		body   string
		kind   error // nil: no error
		closes []numeric.Scaled
	}{
		{"truncated", sample[:len(sample)/2], sources.ErrBadResponse, nil},
		{"empty body", "", sources.ErrBadResponse, nil},
		{"not json", "Edge: Too Many Requests", sources.ErrBadResponse, nil},
		{"no chart", `{"finance":{}}`, sources.ErrBadResponse, nil},
		{"null result no error", `{"chart":{"result":null,"error":null}}`, sources.ErrBadResponse, nil},
		{"two results", `{"chart":{"result":[{"meta":{"symbol":"NVDA"}},{"meta":{"symbol":"NVDA"}}]}}`, sources.ErrBadResponse, nil},
		{"404 body in a 200", string(adaptertest.ReadFile(t, "yahoo-chart-error-404-not-found.json")), sources.ErrUnknownSymbol, nil},
		{"422 body in a 200", string(adaptertest.ReadFile(t, "yahoo-chart-error-422-1m-out-of-window.elided.json")), sources.ErrUnsupportedWindow, nil},
		{"outage in a 200", `{"chart":{"result":null,"error":{"code":"Internal Server Error","description":"Will be right back"}}}`, sources.ErrUnavailable, nil},
		{"other chart error", `{"chart":{"result":null,"error":{"code":"Bad Request","description":"Invalid input"}}}`, sources.ErrBadResponse, nil},
		{"wrong symbol", body("TSLA", ts(2), "1.5,2.5", "10,20"), sources.ErrBadResponse, nil},
		{"symbol case differs", body("nvda", ts(2), "1.5,2.5", "10,20"), nil, []numeric.Scaled{150000000, 250000000}},
		{"null closes skipped", body("NVDA", ts(3), "1.5,null,2.5", "10,null,20"), nil, []numeric.Scaled{150000000, 250000000}},
		{"numbers as strings", body("NVDA", ts(2), `"1.5","2.5"`, "10,20"), nil, []numeric.Scaled{150000000, 250000000}},
		{"null volume kept", body("NVDA", ts(2), "1.5,2.5", "null,20"), nil, []numeric.Scaled{150000000, 250000000}},
		{"no volumes at all", fmt.Sprintf(`{"chart":{"result":[{"meta":{"symbol":"NVDA"},"timestamp":[%s],"indicators":{"quote":[{"close":[1.5,2.5]}]}}]}}`, ts(2)), nil, []numeric.Scaled{150000000, 250000000}},
		{"all volume zero kept (extended hours)", body("NVDA", ts(3), "1.5,2.5,3.5", "0,0,0"), nil, []numeric.Scaled{150000000, 250000000, 350000000}},
		{"edges of volume 0 dropped", body("NVDA", ts(4), "1.5,2.5,3.5,4.5", "0,5,6,0"), nil, []numeric.Scaled{250000000, 350000000}},
		{"inner volume 0 kept", body("NVDA", ts(3), "1.5,2.5,3.5", "5,0,6"), nil, []numeric.Scaled{150000000, 250000000, 350000000}},
		{"live quote off the minute", body("NVDA", ts(2)+","+strconv.Itoa(t0+124), "1.5,2.5,2.6", "5,6,7"), nil, []numeric.Scaled{150000000, 250000000}},
		{"empty window", `{"chart":{"result":[{"meta":{"symbol":"NVDA"},"indicators":{"quote":[{}]}}],"error":null}}`, nil, []numeric.Scaled{}},
		{"empty arrays", body("NVDA", "", "", ""), nil, []numeric.Scaled{}},
		{"fewer closes", body("NVDA", ts(3), "1.5,2.5", "1,2,3"), sources.ErrBadResponse, nil},
		{"two quote series", fmt.Sprintf(`{"chart":{"result":[{"meta":{"symbol":"NVDA"},"timestamp":[%s],"indicators":{"quote":[{},{}]}}]}}`, ts(1)), sources.ErrBadResponse, nil},
		{"null timestamp", body("NVDA", "null", "1.5", "1"), sources.ErrBadResponse, nil},
		{"float timestamp", body("NVDA", "1683055860.5", "1.5", "1"), sources.ErrBadResponse, nil},
		{"negative price", body("NVDA", ts(1), "-1.5", "1"), sources.ErrBadResponse, nil},
		{"zero price", body("NVDA", ts(1), "0", "1"), sources.ErrBadResponse, nil},
		{"word for a price", body("NVDA", ts(1), `"NaN"`, "1"), sources.ErrBadResponse, nil},
		{"object for a price", body("NVDA", ts(1), `{}`, "1"), sources.ErrBadResponse, nil},
		{"fractional volume read by the shared parser", body("NVDA", ts(1), "1.5", "1.5"), nil, []numeric.Scaled{150000000}},
		{"negative volume", body("NVDA", ts(1), "1.5", "-1"), sources.ErrBadResponse, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bars, err := parse([]byte(tc.body), "NVDA")
			adaptertest.CheckCloses(t, bars, err, tc.kind, tc.closes)
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"yahoo-chart-1m-amzn-range30m.json", "yahoo-chart-1m-weekend-empty.body.json",
		"yahoo-chart-error-404-not-found.json", "yahoo-chart-error-422-1m-out-of-window.elided.json"} {
		f.Add(adaptertest.ReadFile(f, name), "AMZN")
	}
	f.Add([]byte(body("NVDA", "1683055860,1683055920", `"1.5",null`, "0,1")), "NVDA")
	f.Fuzz(func(t *testing.T, b []byte, symbol string) {
		bars, err := parse(b, symbol)
		adaptertest.Fuzzed(t, bars, err, true)
	})
}

// chartServer answers chart requests with bars it makes up from the query: one bar a minute
// from period1, plus the two things Yahoo adds: a bar at period2 and the live quote.
type chartServer struct {
	mu      sync.Mutex
	queries []url.Values
	paths   []string
	agents  []string
}

func closeAt(sec int64) string { return fmt.Sprintf("%d.%02d", 100+sec/60%100, sec/60%97) }

func (c *chartServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.queries = append(c.queries, r.URL.Query())
	c.paths = append(c.paths, r.URL.Path)
	c.agents = append(c.agents, r.Header.Get("User-Agent"))
	c.mu.Unlock()
	p1, _ := strconv.ParseInt(r.URL.Query().Get("period1"), 10, 64)
	p2, _ := strconv.ParseInt(r.URL.Query().Get("period2"), 10, 64)
	var ts, cl, vol []string
	for s := p1 - p1%60; s <= p2; s += 60 { // note ≤: Yahoo's trailing bar at period2
		ts, cl, vol = append(ts, strconv.FormatInt(s, 10)), append(cl, closeAt(s)), append(vol, "7")
	}
	sym := strings.TrimPrefix(r.URL.Path, "/v8/finance/chart/")
	fmt.Fprint(w, body(sym, strings.Join(ts, ","), strings.Join(cl, ","), strings.Join(vol, ",")))
}

func TestBarsSplitsWindowsAndSendsYahoosQuery(t *testing.T) {
	srv := &chartServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	now := time.Date(2026, 9, 25, 12, 0, 30, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{})
	from := time.Date(2026, 9, 3, 13, 30, 0, 0, time.UTC)
	to := from.Add(18*24*time.Hour + 5*time.Minute)
	bars, err := src.Bars(context.Background(), "NVDA", from, to)
	if err != nil {
		t.Fatal(err)
	}
	week := 8 * 24 * time.Hour
	wantPeriods := [][2]time.Time{{from, from.Add(week)}, {from.Add(week), from.Add(2 * week)}, {from.Add(2 * week), to}}
	if len(srv.queries) != len(wantPeriods) {
		t.Fatalf("%d requests, want %d", len(srv.queries), len(wantPeriods))
	}
	for i, q := range srv.queries {
		want := url.Values{
			"period1": {strconv.FormatInt(wantPeriods[i][0].Unix(), 10)}, "period2": {strconv.FormatInt(wantPeriods[i][1].Unix(), 10)},
			"interval": {"1m"}, "includePrePost": {"true"}, "events": {"div|split"},
		}
		if q.Encode() != want.Encode() {
			t.Errorf("request %d query %s, want %s", i, q.Encode(), want.Encode())
		}
		if srv.paths[i] != "/v8/finance/chart/NVDA" || !strings.HasPrefix(srv.agents[i], "Mozilla/5.0") {
			t.Errorf("request %d: path %s agent %q", i, srv.paths[i], srv.agents[i])
		}
	}
	wantN := int(to.Sub(from) / time.Minute)
	if len(bars) != wantN {
		t.Fatalf("%d bars, want one a minute: %d", len(bars), wantN)
	}
	for i, b := range bars {
		start := from.Add(time.Duration(i) * time.Minute)
		if !b.Start.Equal(start) || b.Close != numeric.MustPrice(closeAt(start.Unix())) {
			t.Fatalf("bar %d = %v, want %s at %s", i, b, closeAt(start.Unix()), start)
		}
	}
}

func TestBarsDropsTheMinuteInProgress(t *testing.T) {
	ts := httptest.NewServer(&chartServer{})
	defer ts.Close()
	now := time.Date(2026, 9, 3, 14, 0, 30, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{})
	bars, err := src.Bars(context.Background(), "NVDA", now.Add(-3*time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) != 2 || !bars[1].Start.Equal(time.Date(2026, 9, 3, 13, 59, 0, 0, time.UTC)) {
		t.Fatalf("bars %v, want 13:58 and 13:59 only", bars)
	}
}

func TestBarsOlderThanLookbackSendsNothing(t *testing.T) {
	srv := &chartServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	now := time.Date(2026, 9, 30, 12, 0, 0, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{})
	for _, from := range []time.Time{now.Add(-Lookback - time.Minute), now.Add(-60 * 24 * time.Hour)} {
		_, err := src.Bars(context.Background(), "NVDA", from, from.Add(time.Hour))
		if !errors.Is(err, sources.ErrUnsupportedWindow) {
			t.Errorf("from %s: error %v, want unsupported window", from, err)
		}
	}
	if len(srv.queries) != 0 {
		t.Errorf("%d requests sent for windows Yahoo cannot answer", len(srv.queries))
	}
	if _, err := src.Bars(context.Background(), "NVDA", now.Add(-Lookback), now.Add(-Lookback+time.Hour)); err != nil {
		t.Errorf("a window exactly 29 days back: %v", err)
	}
	if bars, err := src.Bars(context.Background(), "NVDA", now, now); err != nil || bars == nil || len(bars) != 0 {
		t.Errorf("empty window: %v %v", bars, err)
	}
}

func TestBarsHTTPFailures(t *testing.T) {
	now := time.Date(2026, 9, 3, 20, 0, 0, 0, time.UTC)
	adaptertest.Failures{Source: "yh", Bars: func(t *testing.T, base string) error {
		_, err := newSource(t, base, now, sources.Settings{Name: "yh", Retries: -1}).Bars(context.Background(), "NVDA", now.Add(-time.Hour), now)
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "429 with Retry-After", Status: 429, Header: http.Header{"Retry-After": {"17"}}, Body: "Edge: Too Many Requests", Kind: sources.ErrRateLimited, RetryAfter: 17 * time.Second},
		{Name: "404 unknown symbol", Status: 404, Body: string(adaptertest.ReadFile(t, "yahoo-chart-error-404-not-found.json")), Kind: sources.ErrUnknownSymbol},
		{Name: "422 out of window", Status: 422, Body: string(adaptertest.ReadFile(t, "yahoo-chart-error-422-1m-out-of-window.elided.json")), Kind: sources.ErrUnsupportedWindow},
		{Name: "401", Status: 401, Body: `{"finance":{"error":{"code":"Unauthorized","description":"Invalid Crumb"}}}`, Kind: sources.ErrUnauthorized},
		{Name: "403", Status: 403, Body: "Forbidden", Kind: sources.ErrUnauthorized},
		{Name: "500", Status: 500, Body: "Will be right back", Kind: sources.ErrUnavailable},
		{Name: "200 with chart error", Status: 200, Body: string(adaptertest.ReadFile(t, "yahoo-chart-error-404-not-found.json")), Kind: sources.ErrUnknownSymbol},
		{Name: "200 wrong symbol", Status: 200, Body: body("TSLA", "1683055860", "1.5", "1"), Kind: sources.ErrBadResponse},
	}}.Run(t)
}

func TestBarsFromRecordedBody(t *testing.T) {
	sample := adaptertest.ReadFile(t, "yahoo-chart-1m-amzn-range30m.json")
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(sample) }))
	defer ts.Close()
	src := newSource(t, ts.URL, sampleNow, sources.Settings{})
	from := time.Date(2023, 5, 2, 19, 40, 0, 0, time.UTC)
	bars, err := src.Bars(context.Background(), "AMZN", from, from.Add(3*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := []numeric.Scaled{10375010000, 10373000000, 10371010000} // 15:40–15:42 EDT
	if len(bars) != 3 || bars[0].Close != want[0] || bars[1].Close != want[1] || bars[2].Close != want[2] || !bars[0].Start.Equal(from) {
		t.Errorf("bars %v, want closes %v from %s", bars, want, from)
	}
}

func TestFactoryAndCoverage(t *testing.T) {
	f, ok := sources.Lookup(Type)
	if !ok || f.NeedsKey || f.DefaultRate != DefaultRate {
		t.Fatalf("registration: %+v %v", f, ok)
	}
	built := adaptertest.Coverages(t, Type, sources.Settings{Name: "y"}, []adaptertest.OptionCase{
		{Options: map[string]string{"feed": "x"}, Bad: "feed"},
		{Want: sources.Coverage{Sessions: []market.Session{market.Pre, market.Regular, market.Post}, Lookback: 29 * 24 * time.Hour,
			MaxWindow: 8 * 24 * time.Hour, Adjustment: sources.SplitAdjusted, Rate: sources.Rate{N: 60, Per: time.Minute}}},
	})
	if name := built[1].Name(); name != "y" {
		t.Errorf("name %q, want y", name)
	}
	adaptertest.RateReachesCoverage(t, Type, sources.Settings{Rate: sources.Rate{N: 10, Per: time.Minute}})
}

// TestLive asks the real Yahoo for the last few days of SPY. It runs only with PRICERIG_LIVE=1.
func TestLive(t *testing.T) {
	adaptertest.Live(t, "Yahoo")
	src, err := factory.New(sources.Settings{}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Minute)
	adaptertest.AskLive(t, src, "SPY", now.Add(-4*24*time.Hour), now, false)
}
