package massive

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
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

const fakeKey = "mAsSiVe-FAKE-key-4b1d-LEAK"

func newSource(t testing.TB, base string, now time.Time, s sources.Settings) *Source {
	t.Helper()
	s.BaseURL = base
	if s.Key == "" {
		s.Key = fakeKey
	}
	src, err := factory.New(s, sources.Deps{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	m := src.(*Source)
	m.Client().Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return m
}

func TestParseRecordedBodies(t *testing.T) {
	bars, next, err := parse(adaptertest.ReadFile(t, "polygon-aggs-range-example.json"), "AAPL")
	if err != nil {
		t.Fatal(err)
	}
	if next != "https://api.polygon.io/v2/aggs/ticker/AAPL/range/1/day/1578114000000/2020-01-10?cursor=bGltaXQ9MiZzb3J0PWFzYw" {
		t.Errorf("next_url %q", next)
	}
	want := []sources.Bar{
		{Start: time.Date(2020, 1, 2, 5, 0, 0, 0, time.UTC), Close: 7508750000, Volume: 135647456},
		{Start: time.Date(2020, 1, 3, 5, 0, 0, 0, time.UTC), Close: 7435750000, Volume: 146535512},
	}
	if len(bars) != len(want) {
		t.Fatalf("bars %v, want %v", bars, want)
	}
	for i := range want {
		if !bars[i].Start.Equal(want[i].Start) || bars[i].Start.Location() != time.UTC || bars[i].Close != want[i].Close || bars[i].Volume != want[i].Volume {
			t.Errorf("bar %d = %+v, want %+v", i, bars[i], want[i])
		}
	}
	bars, next, err = parse(adaptertest.ReadFile(t, "polygon-aggs-empty.json"), "AAPL")
	if err != nil || bars == nil || len(bars) != 0 || next != "" {
		t.Errorf("empty window: %v %q %v, want an empty slice", bars, next, err)
	}
}

func TestParseMalformed(t *testing.T) {
	sample := string(adaptertest.ReadFile(t, "polygon-aggs-range-example.json"))
	ok := func(results string) string {
		return `{"ticker":"NVDA","status":"OK","resultsCount":1,"results":` + results + `}`
	}
	cases := []struct {
		name   string
		body   string
		kind   error
		closes []numeric.Scaled
	}{
		{"truncated", sample[:len(sample)/3], sources.ErrBadResponse, nil},
		{"empty", "", sources.ErrBadResponse, nil},
		{"html", "<html>502</html>", sources.ErrBadResponse, nil},
		{"no status", `{"ticker":"NVDA","results":[]}`, sources.ErrBadResponse, nil},
		{"not authorized in a 200", `{"status":"NOT_AUTHORIZED","message":"You are not entitled to this data. Please upgrade your plan at https://polygon.io/pricing","request_id":"x"}`, sources.ErrUnauthorized, nil},
		{"rate limit in a 200", `{"status":"ERROR","request_id":"x","error":"You've exceeded the maximum requests per minute, please wait or upgrade your subscription to continue."}`, sources.ErrRateLimited, nil},
		{"bad key in a 200", `{"status":"ERROR","request_id":"x","error":"Unknown API Key"}`, sources.ErrUnauthorized, nil},
		{"other error", `{"status":"ERROR","error":"Could not parse the time parameter"}`, sources.ErrBadResponse, nil},
		{"not found status", `{"status":"NOT_FOUND","message":"Not Found"}`, sources.ErrBadResponse, nil},
		{"wrong ticker", `{"ticker":"TSLA","status":"OK","results":[{"t":1756733400000,"c":1.5}]}`, sources.ErrBadResponse, nil},
		{"ticker case differs", `{"ticker":"nvda","status":"OK","results":[{"t":1756733400000,"c":1.5}]}`, nil, []numeric.Scaled{150000000}},
		{"delayed is fine", `{"ticker":"NVDA","status":"DELAYED","results":[{"t":1756733400000,"c":1.5}]}`, nil, []numeric.Scaled{150000000}},
		{"empty: no results key", `{"ticker":"NVDA","queryCount":0,"resultsCount":0,"adjusted":false,"status":"OK"}`, nil, []numeric.Scaled{}},
		{"empty: null results", `{"ticker":"NVDA","status":"OK","results":null}`, nil, []numeric.Scaled{}},
		{"null close skipped", ok(`[{"t":1756733400000,"c":null},{"t":1756733460000,"c":2,"v":3}]`), nil, []numeric.Scaled{200000000}},
		{"numbers as strings", ok(`[{"t":1756733400000,"c":"2.5","v":"3"}]`), nil, []numeric.Scaled{250000000}},
		{"float volume", ok(`[{"t":1756733400000,"c":2.5,"v":1.2345e+06}]`), nil, []numeric.Scaled{250000000}},
		{"t in seconds", ok(`[{"t":1756733400,"c":2.5}]`), sources.ErrBadResponse, nil},
		{"t a string date", ok(`[{"t":"2025-09-01","c":2.5}]`), sources.ErrBadResponse, nil},
		{"t null", ok(`[{"t":null,"c":2.5}]`), sources.ErrBadResponse, nil},
		{"negative close", ok(`[{"t":1756733400000,"c":-2.5}]`), sources.ErrBadResponse, nil},
		{"close a word", ok(`[{"t":1756733400000,"c":"n/a"}]`), sources.ErrBadResponse, nil},
		{"volume a word", ok(`[{"t":1756733400000,"c":2.5,"v":"lots"}]`), sources.ErrBadResponse, nil},
		{"results an object", `{"ticker":"NVDA","status":"OK","results":{}}`, sources.ErrBadResponse, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bars, _, err := parse([]byte(tc.body), "NVDA")
			adaptertest.CheckCloses(t, bars, err, tc.kind, tc.closes)
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(adaptertest.ReadFile(f, "polygon-aggs-range-example.json"), "AAPL")
	f.Add(adaptertest.ReadFile(f, "polygon-aggs-empty.json"), "AAPL")
	f.Add([]byte(`{"ticker":"NVDA","status":"OK","results":[{"t":1756733400000,"c":"2.5","v":1e3}]}`), "NVDA")
	f.Fuzz(func(t *testing.T, b []byte, symbol string) {
		bars, _, err := parse(b, symbol)
		adaptertest.Fuzzed(t, bars, err, true)
	})
}

func tapeClose(m time.Time) string { return fmt.Sprintf("%d.%03d", 300+m.Hour(), m.Unix()/60%1000) }

// aggsServer serves the aggregates path over a made-up tape of one bar a minute, both ends
// inclusive as Massive reads them, pageSize bars a page with a next_url that has no key.
type aggsServer struct {
	pageSize int
	mu       sync.Mutex
	reqs     []*url.URL
}

func (a *aggsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.reqs = append(a.reqs, r.URL)
	a.mu.Unlock()
	if r.URL.Query().Get("apiKey") != fakeKey {
		w.WriteHeader(401)
		fmt.Fprint(w, `{"status":"ERROR","request_id":"x","error":"Unknown API Key"}`)
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v2/aggs/ticker/"), "/")
	fromMs, _ := strconv.ParseInt(parts[4], 10, 64)
	toMs, _ := strconv.ParseInt(parts[5], 10, 64)
	var results []string
	for ms := (fromMs + 59999) / 60000 * 60000; ms <= toMs; ms += 60000 {
		m := time.UnixMilli(ms).UTC()
		results = append(results, fmt.Sprintf(`{"v":%d,"vw":1,"o":1,"c":%s,"h":2,"l":0.5,"t":%d,"n":1}`, m.Minute()+1, tapeClose(m), ms))
	}
	next := ""
	if len(results) > a.pageSize {
		nextMs := (fromMs+59999)/60000*60000 + int64(a.pageSize)*60000
		results = results[:a.pageSize]
		next = fmt.Sprintf(`,"next_url":"http://%s/v2/aggs/ticker/%s/range/1/minute/%d/%d?cursor=Y3Vyc29y"`, r.Host, parts[0], nextMs, toMs)
	}
	fmt.Fprintf(w, `{"ticker":%q,"queryCount":%d,"resultsCount":%d,"adjusted":false,"results":[%s],"status":"OK","request_id":"r"%s}`,
		parts[0], len(results), len(results), strings.Join(results, ","), next)
}

func TestBarsWindowsAndPages(t *testing.T) {
	srv := &aggsServer{pageSize: 20000}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	now := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{})
	from := time.Date(2026, 9, 1, 13, 30, 0, 0, time.UTC)
	to := from.Add(45 * 24 * time.Hour)
	bars, err := src.Bars(context.Background(), "NVDA", from, to)
	if err != nil {
		t.Fatal(err)
	}
	if n := int(to.Sub(from) / time.Minute); len(bars) != n {
		t.Fatalf("%d bars, want %d", len(bars), n)
	}
	for i, b := range bars {
		m := from.Add(time.Duration(i) * time.Minute)
		if !b.Start.Equal(m) || b.Close != numeric.MustPrice(tapeClose(m)) || b.Volume != int64(m.Minute()+1) {
			t.Fatalf("bar %d = %+v, want %s at %s", i, b, tapeClose(m), m)
		}
	}
	// window 1: 30 days = 43200 minutes → 3 pages of 20000; window 2: 15 days = 21600 → 2 pages
	ms := func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
	mid := from.Add(30 * 24 * time.Hour)
	first := url.Values{"adjusted": {"false"}, "sort": {"asc"}, "limit": {"50000"}, "apiKey": {fakeKey}}.Encode()
	later := url.Values{"cursor": {"Y3Vyc29y"}, "apiKey": {fakeKey}}.Encode()
	want := []string{
		"/v2/aggs/ticker/NVDA/range/1/minute/" + ms(from) + "/" + ms(mid.Add(-time.Millisecond)) + "?" + first,
		"/v2/aggs/ticker/NVDA/range/1/minute/" + ms(from.Add(20000*time.Minute)) + "/" + ms(mid.Add(-time.Millisecond)) + "?" + later,
		"/v2/aggs/ticker/NVDA/range/1/minute/" + ms(from.Add(40000*time.Minute)) + "/" + ms(mid.Add(-time.Millisecond)) + "?" + later,
		"/v2/aggs/ticker/NVDA/range/1/minute/" + ms(mid) + "/" + ms(to.Add(-time.Millisecond)) + "?" + first,
		"/v2/aggs/ticker/NVDA/range/1/minute/" + ms(mid.Add(20000*time.Minute)) + "/" + ms(to.Add(-time.Millisecond)) + "?" + later,
	}
	if len(srv.reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(srv.reqs), len(want))
	}
	for i, u := range srv.reqs {
		got := u.Path + "?" + u.Query().Encode()
		if got != want[i] {
			t.Errorf("request %d:\n got %s\nwant %s", i, got, want[i])
		}
	}
}

func TestNextURLToAnotherHostGetsNoKey(t *testing.T) {
	var evilHits atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { evilHits.Add(1) }))
	defer evil.Close()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"ticker":"NVDA","status":"OK","results":[{"t":1756733400000,"c":2}],"next_url":"%s/steal?cursor=x"}`, evil.URL+"/x")
	}))
	defer ts.Close()
	now := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
	src := newSource(t, strings.Replace(ts.URL, "127.0.0.1", "localhost", 1), now, sources.Settings{})
	_, err := src.Bars(context.Background(), "NVDA", now.Add(-time.Hour), now)
	if !errors.Is(err, sources.ErrBadResponse) || evilHits.Load() != 0 {
		t.Errorf("error %v and %d requests to the other host; want a bad response and none", err, evilHits.Load())
	}
}

func TestBarsEmptyAndInProgress(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/1757073600000/") { // 2025-09-05 12:00Z, then nothing
			fmt.Fprint(w, string(adaptertest.ReadFile(t, "polygon-aggs-empty.json")))
			return
		}
		fmt.Fprint(w, `{"ticker":"NVDA","status":"OK","results":[{"t":1756735140000,"c":5},{"t":1756735200000,"c":6}]}`)
	}))
	defer ts.Close()
	// the sample says AAPL: an empty answer about another ticker is still another ticker
	now := time.Date(2025, 9, 1, 14, 0, 30, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{})
	empty := time.UnixMilli(1757073600000).UTC()
	if _, err := src.Bars(context.Background(), "NVDA", empty, empty.Add(time.Hour)); !errors.Is(err, sources.ErrBadResponse) {
		t.Errorf("empty answer about AAPL: %v, want bad response", err)
	}
	if bars, err := src.Bars(context.Background(), "AAPL", empty, empty.Add(time.Hour)); err != nil || bars == nil || len(bars) != 0 {
		t.Errorf("empty window: %v %v", bars, err)
	}
	bars, err := src.Bars(context.Background(), "NVDA", now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil || len(bars) != 1 || bars[0].Close != 500000000 {
		t.Errorf("bars %v %v, want only the closed 13:59 minute", bars, err)
	}
}

func TestBarsHTTPFailures(t *testing.T) {
	now := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	adaptertest.Failures{Source: "mv", Key: fakeKey, Bars: func(t *testing.T, base string) error {
		_, err := newSource(t, base, now, sources.Settings{Name: "mv", Retries: -1}).Bars(context.Background(), "NVDA", now.Add(-time.Hour), now)
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "429 Retry-After", Status: 429, Header: http.Header{"Retry-After": {"13"}}, Body: `{"status":"ERROR","request_id":"x","error":"You've exceeded the maximum requests per minute"}`, Kind: sources.ErrRateLimited, RetryAfter: 13 * time.Second},
		{Name: "401", Status: 401, Body: `{"status":"ERROR","request_id":"x","error":"Unknown API Key"}`, Kind: sources.ErrUnauthorized},
		{Name: "403 not authorized", Status: 403, Body: `{"status":"NOT_AUTHORIZED","message":"You are not entitled to this data."}`, Kind: sources.ErrUnauthorized},
		{Name: "400", Status: 400, Body: `{"status":"ERROR","error":"Could not parse"}`, Kind: sources.ErrBadResponse},
		{Name: "502", Status: 502, Body: `bad gateway`, Kind: sources.ErrUnavailable},
		{Name: "200 not authorized", Status: 200, Body: `{"status":"NOT_AUTHORIZED","message":"You are not entitled to this data."}`, Kind: sources.ErrUnauthorized},
	}}.Run(t)
}

func TestKeyNeverInErrors(t *testing.T) {
	now := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	bars := func(t *testing.T, base string) error {
		_, err := newSource(t, base, now, sources.Settings{Retries: -1}).Bars(context.Background(), "NVDA", now.Add(-time.Hour), now)
		return err
	}
	adaptertest.KeyNeverLeaks(t, adaptertest.Leak{
		Secrets: []string{fakeKey},
		Answers: adaptertest.Echo(func(_ int, r *http.Request) string {
			return fmt.Sprintf(`{"status":"ERROR","error":"bad request %s"}`, r.URL.String())
		}, 200, 400, 401, 403, 404, 429, 500),
		Bars: bars,
	})
	// a next_url that already carries the key, echoed in a failure of the next page
	var n atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			fmt.Fprintf(w, `{"ticker":"NVDA","status":"OK","results":[],"next_url":"http://%s/p2?cursor=c&apiKey=%s"}`, r.Host, fakeKey)
			return
		}
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"status":"ERROR","error":"no such page %s"}`, r.URL.String())
	}))
	defer ts.Close()
	err := bars(t, ts.URL)
	if err == nil {
		t.Fatal("no error from the second page")
	}
	adaptertest.NoSecret(t, err.Error(), fakeKey)
}

func TestFactoryAndCoverage(t *testing.T) {
	f, ok := sources.Lookup(Type)
	if !ok || !f.NeedsKey || f.NeedsSecret || f.DefaultRate != DefaultRate || f.Options["delay"] == "" {
		t.Fatalf("registration: %+v %v", f, ok)
	}
	if _, err := f.New(sources.Settings{}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Errorf("no key: %v", err)
	}
	cov := func(delay time.Duration) sources.Coverage {
		return sources.Coverage{Sessions: []market.Session{market.Pre, market.Regular, market.Post}, MaxWindow: 30 * 24 * time.Hour,
			Adjustment: sources.Raw, Delay: delay, Rate: sources.Rate{N: 5, Per: time.Minute}, Page: 50000}
	}
	adaptertest.Coverages(t, Type, sources.Settings{Key: "k"}, []adaptertest.OptionCase{
		{Options: nil, Want: cov(24 * time.Hour)},
		{Options: map[string]string{"delay": "15m"}, Want: cov(15 * time.Minute)},
		{Options: map[string]string{"delay": "0s"}, Want: cov(0)},
		{Options: map[string]string{"delay": "soon"}, Bad: "delay"},
		{Options: map[string]string{"adjusted": "true"}, Bad: "adjusted"},
	})
	adaptertest.RateReachesCoverage(t, Type, sources.Settings{Key: "k", Rate: sources.Rate{N: 100, Per: time.Minute}})
}

// TestLive asks the real Massive. It runs only with PRICERIG_LIVE=1 and MASSIVE_API_KEY set.
func TestLive(t *testing.T) {
	key := adaptertest.Live(t, "Massive", "MASSIVE_API_KEY")[0]
	src, err := factory.New(sources.Settings{Key: key}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2024, 6, 10, 13, 30, 0, 0, time.UTC)
	adaptertest.AskLive(t, src, "NVDA", from, from.Add(30*time.Minute), false)
}

// Massive writes large volumes in exponent form on some plans; the shared volume parser reads
// them (the old own parser went through the price grammar, whose maximum they exceed).
func TestParseExponentVolume(t *testing.T) {
	bars, _, err := parse([]byte(`{"ticker":"NVDA","status":"OK","results":[{"t":1756733400000,"c":2.5,"v":1.12117471e+09}]}`), "NVDA")
	if err != nil || len(bars) != 1 || bars[0].Volume != 1121174710 {
		t.Fatalf("bars %+v, error %v; want volume 1121174710", bars, err)
	}
}

// TestResultErrorsNameTheStart pins the words of a bad close's and a bad volume's error, which
// the shared sources.ParseBar now builds: the result's start, then the field; and the status and
// words read by sources.Stream.Members still decide an error body's kind.
func TestResultErrorsNameTheStart(t *testing.T) {
	const body = `{"ticker":"NVDA","results":[{"t":1727703000000,%s}],"status":"OK"}`
	for fields, want := range map[string]string{
		`"c":"n/a","v":1`: "result at 2024-09-30T13:30:00Z: close: ",
		`"c":1,"v":"x"`:   `result at 2024-09-30T13:30:00Z: volume "\"x\"" is not a number`,
	} {
		_, _, err := parse([]byte(fmt.Sprintf(body, fields)), "NVDA")
		if !errors.Is(err, sources.ErrBadResponse) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", fields, err, want)
		}
	}
	_, _, err := parse([]byte(`{"status":"ERROR","error":"You've exceeded the maximum requests per minute"}`), "NVDA")
	if !errors.Is(err, sources.ErrRateLimited) {
		t.Errorf("rate-limit body: %v", err)
	}
}
