package alpaca

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

const (
	fakeKey    = "PKFAKE7Q3ZK2LEAKME"
	fakeSecret = "sEcReT/fake+Zz9LeakMe"
)

func newSource(t testing.TB, base string, now time.Time, s sources.Settings) *Source {
	t.Helper()
	s.BaseURL = base
	if s.Key == "" {
		s.Key, s.Secret = fakeKey, fakeSecret
	}
	src, err := factory.New(s, sources.Deps{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	a := src.(*Source)
	a.Client().Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return a
}

type wantBar struct {
	start  string
	close  numeric.Scaled
	volume int64
}

func checkBars(t *testing.T, got []sources.Bar, want []wantBar) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d bars %v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		start, _ := time.Parse(time.RFC3339, w.start)
		if !got[i].Start.Equal(start) || got[i].Start.Location() != time.UTC || got[i].Close != w.close || got[i].Volume != w.volume {
			t.Errorf("bar %d = %s %d %d, want %s %d %d", i, got[i].Start.Format(time.RFC3339), got[i].Close, got[i].Volume, w.start, w.close, w.volume)
		}
	}
}

func TestParseRecordedBodies(t *testing.T) {
	// The SDK's AMZN fixture: 15-minute bars, but the wire format is the one 1Min uses.
	bars, next, err := parse(adaptertest.ReadFile(t, "alpaca-bars-15min-amzn-sip.json"), "AMZN")
	if err != nil || next != "" {
		t.Fatalf("AMZN: %v, next %q", err, next)
	}
	checkBars(t, bars, []wantBar{
		{"2021-10-15T16:00:00Z", 337972000000, 211689},
		{"2021-10-15T16:15:00Z", 337782000000, 115850},
		{"2021-10-15T16:30:00Z", 338000000000, 58531},
		{"2021-10-15T16:45:00Z", 338676150000, 83180},
		{"2021-10-15T17:00:00Z", 338287000000, 134339},
	})
	bars, next, err = parse(adaptertest.ReadFile(t, "alpaca-bars-1day-ge-adjustment.json"), "GE")
	if err != nil || next != "R0V8RHwxNzEyMTE2ODAwMDAwMDAwMDAw" {
		t.Fatalf("GE: %v, next %q", err, next)
	}
	checkBars(t, bars, []wantBar{{"2024-04-01T04:00:00Z", 13829000000, 5905509}, {"2024-04-02T04:00:00Z", 13494000000, 20490401}})
	// the latest-bar endpoint's shape (one object, not a list) is not a bars page
	if _, _, err := parse(adaptertest.ReadFile(t, "alpaca-bars-latest-spy.json"), "SPY"); !errors.Is(err, sources.ErrBadResponse) {
		t.Errorf("latest-bar shape: %v, want bad response", err)
	}
	// and the multi-symbol reader takes the same AMZN page
	m, _, err := parseMulti(adaptertest.ReadFile(t, "alpaca-bars-15min-amzn-sip.json"), []string{"AMZN", "NVDA"})
	if err != nil || len(m["AMZN"]) != 5 || len(m["NVDA"]) != 0 {
		t.Errorf("multi: %v %v", m, err)
	}
}

func TestParseMalformed(t *testing.T) {
	sample := string(adaptertest.ReadFile(t, "alpaca-bars-15min-amzn-sip.json"))
	one := func(bars string) string { return `{"bars":` + bars + `,"symbol":"NVDA","next_page_token":null}` }
	cases := []struct {
		name   string
		body   string
		kind   error
		closes []numeric.Scaled
		next   string
	}{
		{"truncated", sample[:len(sample)-40], sources.ErrBadResponse, nil, ""},
		{"empty", "", sources.ErrBadResponse, nil, ""},
		{"not json", "<html>", sources.ErrBadResponse, nil, ""},
		{"error in a 200", `{"code":40010001,"message":"invalid timeframe"}`, sources.ErrBadResponse, nil, ""},
		{"outage in a 200", `{"code":50010000,"message":"internal server error occurred"}`, sources.ErrUnavailable, nil, ""},
		{"rate limit in a 200", `{"code":42910000,"message":"rate limit exceeded"}`, sources.ErrRateLimited, nil, ""},
		{"forbidden in a 200", `{"code":40310000,"message":"forbidden."}`, sources.ErrUnauthorized, nil, ""},
		{"wrong symbol echoed", `{"bars":[{"t":"2026-09-01T13:30:00Z","c":1.5,"v":1}],"symbol":"TSLA","next_page_token":null}`, sources.ErrBadResponse, nil, ""},
		{"another symbol's bars", `{"bars":{"TSLA":[{"t":"2026-09-01T13:30:00Z","c":1.5,"v":1}]},"next_page_token":null}`, sources.ErrBadResponse, nil, ""},
		{"empty window: null bars", one("null"), nil, []numeric.Scaled{}, ""},
		{"empty window: empty list", one("[]"), nil, []numeric.Scaled{}, ""},
		{"empty window: empty object", `{"bars":{},"next_page_token":null}`, nil, []numeric.Scaled{}, ""},
		{"null close skipped", one(`[{"t":"2026-09-01T13:30:00Z","c":null,"v":0},{"t":"2026-09-01T13:31:00Z","c":2.25,"v":3}]`), nil, []numeric.Scaled{225000000}, ""},
		{"numbers as strings", one(`[{"t":"2026-09-01T13:30:00Z","c":"2.25","v":"3"}]`), nil, []numeric.Scaled{225000000}, ""},
		{"null volume", one(`[{"t":"2026-09-01T13:30:00Z","c":2.25,"v":null}]`), nil, []numeric.Scaled{225000000}, ""},
		{"many decimals rounded at the 8th", one(`[{"t":"2026-09-01T13:30:00Z","c":2.123456785,"v":1}]`), nil, []numeric.Scaled{212345679}, ""},
		{"next page", `{"bars":[{"t":"2026-09-01T13:30:00Z","c":2.25,"v":3}],"symbol":"NVDA","next_page_token":"abc"}`, nil, []numeric.Scaled{225000000}, "abc"},
		{"bars a string", one(`"x"`), sources.ErrBadResponse, nil, ""},
		{"time not RFC3339", one(`[{"t":"2026-09-01 13:30:00","c":2.25}]`), sources.ErrBadResponse, nil, ""},
		{"time off the minute", one(`[{"t":"2026-09-01T13:30:05Z","c":2.25}]`), sources.ErrBadResponse, nil, ""},
		{"negative close", one(`[{"t":"2026-09-01T13:30:00Z","c":-2.25}]`), sources.ErrBadResponse, nil, ""},
		{"close a word", one(`[{"t":"2026-09-01T13:30:00Z","c":"abc"}]`), sources.ErrBadResponse, nil, ""},
		{"close an object", one(`[{"t":"2026-09-01T13:30:00Z","c":{}}]`), sources.ErrBadResponse, nil, ""},
		{"fractional volume read by the shared parser", one(`[{"t":"2026-09-01T13:30:00Z","c":1,"v":1.5}]`), nil, []numeric.Scaled{100000000}, ""},
		{"negative volume", one(`[{"t":"2026-09-01T13:30:00Z","c":1,"v":-1}]`), sources.ErrBadResponse, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bars, next, err := parse([]byte(tc.body), "NVDA")
			adaptertest.CheckCloses(t, bars, err, tc.kind, tc.closes)
			if tc.kind == nil && next != tc.next {
				t.Errorf("next %q, want %q", next, tc.next)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"alpaca-bars-15min-amzn-sip.json", "alpaca-bars-1day-ge-adjustment.json", "alpaca-bars-latest-spy.json", "alpaca-error-403-recent-sip.json"} {
		f.Add(adaptertest.ReadFile(f, name), "AMZN")
	}
	f.Fuzz(func(t *testing.T, b []byte, symbol string) {
		check := func(bars []sources.Bar) {
			for _, bar := range bars {
				if !bar.Start.Truncate(time.Minute).Equal(bar.Start) || bar.Close <= 0 || bar.Volume < 0 {
					t.Fatalf("bad bar %+v", bar)
				}
			}
		}
		if bars, _, err := parse(b, symbol); err == nil {
			check(bars)
		} else if !errors.Is(err, sources.ErrBadResponse) {
			t.Fatalf("unexpected error kind: %v", err)
		}
		if m, _, err := parseMulti(b, []string{symbol, "SPY"}); err == nil {
			for _, bars := range m {
				check(bars)
			}
		}
	})
}

// tapeClose is the made-up close of a symbol at a minute in the fake server.
func tapeClose(sym string, m time.Time) string {
	return fmt.Sprintf("%d.%04d", 100+len(sym)+m.Minute(), m.Unix()/60%10000)
}

// barsServer serves Alpaca's bars endpoints over a made-up tape of one bar a minute, paging
// after pageSize bars, and records every request.
type barsServer struct {
	t        *testing.T
	pageSize int
	mu       sync.Mutex
	reqs     []*http.Request
}

func (s *barsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
	if r.Header.Get("APCA-API-KEY-ID") != fakeKey || r.Header.Get("APCA-API-SECRET-KEY") != fakeSecret {
		w.WriteHeader(401)
		fmt.Fprint(w, `{"message":"forbidden."}`)
		return
	}
	q := r.URL.Query()
	start, err1 := time.Parse(time.RFC3339, q.Get("start"))
	end, err2 := time.Parse(time.RFC3339, q.Get("end"))
	if err1 != nil || err2 != nil {
		w.WriteHeader(422)
		fmt.Fprint(w, `{"message":"invalid start or end"}`)
		return
	}
	var syms []string
	if r.URL.Path == "/v2/stocks/bars" {
		syms = strings.Split(q.Get("symbols"), ",")
	} else {
		syms = []string{strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v2/stocks/"), "/bars")}
	}
	type item struct {
		sym string
		m   time.Time
	}
	var items []item // sorted by symbol, then time, as Alpaca pages them
	for _, sym := range syms {
		for m := start.Truncate(time.Minute); !m.After(end); m = m.Add(time.Minute) { // end inclusive
			if !m.Before(start) {
				items = append(items, item{sym, m})
			}
		}
	}
	from := 0
	if tok := q.Get("page_token"); tok != "" {
		from, _ = strconv.Atoi(strings.TrimPrefix(tok, "tok"))
	}
	to := min(from+s.pageSize, len(items))
	next := "null"
	if to < len(items) {
		next = fmt.Sprintf(`"tok%d"`, to)
	}
	bySym := map[string][]string{}
	for _, it := range items[from:to] {
		bySym[it.sym] = append(bySym[it.sym], fmt.Sprintf(`{"t":%q,"o":1,"h":2,"l":0.5,"c":%s,"v":%d,"n":1,"vw":1}`,
			it.m.Format(time.RFC3339), tapeClose(it.sym, it.m), it.m.Minute()+1))
	}
	if r.URL.Path == "/v2/stocks/bars" {
		var parts []string
		for _, sym := range syms {
			if b := bySym[sym]; len(b) > 0 {
				parts = append(parts, fmt.Sprintf("%q:[%s]", sym, strings.Join(b, ",")))
			}
		}
		fmt.Fprintf(w, `{"bars":{%s},"next_page_token":%s}`, strings.Join(parts, ","), next)
		return
	}
	fmt.Fprintf(w, `{"bars":[%s],"symbol":%q,"next_page_token":%s}`, strings.Join(bySym[syms[0]], ","), syms[0], next)
}

func (s *barsServer) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...)
}

func expectTape(t *testing.T, sym string, bars []sources.Bar, from, to time.Time) {
	t.Helper()
	n := int(to.Sub(from) / time.Minute)
	if len(bars) != n {
		t.Fatalf("%s: %d bars, want %d", sym, len(bars), n)
	}
	for i, b := range bars {
		m := from.Add(time.Duration(i) * time.Minute)
		if !b.Start.Equal(m) || b.Close != numeric.MustPrice(tapeClose(sym, m)) || b.Volume != int64(m.Minute()+1) {
			t.Fatalf("%s bar %d = %+v, want %s at %s", sym, i, b, tapeClose(sym, m), m)
		}
	}
}

func TestBarsWindowsAndPages(t *testing.T) {
	srv := &barsServer{t: t, pageSize: 4000}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	now := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{Options: map[string]string{"feed": "sip"}})
	from := time.Date(2026, 9, 1, 13, 30, 0, 0, time.UTC)
	to := from.Add(9 * 24 * time.Hour)
	bars, err := src.Bars(context.Background(), "NVDA", from, to)
	if err != nil {
		t.Fatal(err)
	}
	expectTape(t, "NVDA", bars, from, to)
	// window 1: 7 days = 10080 minutes → 3 pages of 4000; window 2: 2 days = 2880 → 1 page
	week := from.Add(7 * 24 * time.Hour)
	want := []struct{ start, end, token string }{
		{from.Format(time.RFC3339), week.Add(-time.Second).Format(time.RFC3339), ""},
		{from.Format(time.RFC3339), week.Add(-time.Second).Format(time.RFC3339), "tok4000"},
		{from.Format(time.RFC3339), week.Add(-time.Second).Format(time.RFC3339), "tok8000"},
		{week.Format(time.RFC3339), to.Add(-time.Second).Format(time.RFC3339), ""},
	}
	reqs := srv.requests()
	if len(reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	for i, r := range reqs {
		wq := url.Values{"timeframe": {"1Min"}, "start": {want[i].start}, "end": {want[i].end}, "limit": {"10000"},
			"adjustment": {"raw"}, "feed": {"sip"}, "sort": {"asc"}}
		if want[i].token != "" {
			wq.Set("page_token", want[i].token)
		}
		if r.URL.Path != "/v2/stocks/NVDA/bars" || r.URL.Query().Encode() != wq.Encode() {
			t.Errorf("request %d: %s?%s, want /v2/stocks/NVDA/bars?%s", i, r.URL.Path, r.URL.Query().Encode(), wq.Encode())
		}
	}
}

func TestBarsMulti(t *testing.T) {
	srv := &barsServer{t: t, pageSize: 500}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	now := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{})
	from := time.Date(2026, 9, 1, 13, 30, 0, 0, time.UTC)
	to := from.Add(390 * time.Minute)
	m, err := src.BarsMulti(context.Background(), []string{"NVDA", "TSLA", "SPY"}, from, to)
	if err != nil {
		t.Fatal(err)
	}
	for _, sym := range []string{"NVDA", "TSLA", "SPY"} {
		expectTape(t, sym, m[sym], from, to)
	}
	reqs := srv.requests()
	if len(reqs) != 3 { // 1170 bars in pages of 500
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if q := reqs[0].URL.Query(); reqs[0].URL.Path != "/v2/stocks/bars" || q.Get("symbols") != "NVDA,TSLA,SPY" || q.Get("feed") != "iex" || q.Has("page_token") {
		t.Errorf("first request %s", reqs[0].URL)
	}
	if reqs[2].URL.Query().Get("page_token") != "tok1000" {
		t.Errorf("third request %s", reqs[2].URL)
	}
}

func TestBarsEmptyAndInProgress(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("start") == "2026-09-05T13:30:00Z" { // a Saturday
			fmt.Fprint(w, `{"bars":null,"symbol":"NVDA","next_page_token":null}`)
			return
		}
		fmt.Fprint(w, `{"bars":[{"t":"2026-09-01T13:59:00Z","c":5,"v":1},{"t":"2026-09-01T14:00:00Z","c":6,"v":1}],"symbol":"NVDA","next_page_token":null}`)
	}))
	defer ts.Close()
	now := time.Date(2026, 9, 1, 14, 0, 40, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{})
	sat := time.Date(2026, 9, 5, 13, 30, 0, 0, time.UTC)
	if bars, err := src.Bars(context.Background(), "NVDA", sat, sat.Add(time.Hour)); err != nil || bars == nil || len(bars) != 0 {
		t.Errorf("weekend: %v %v, want empty and no error", bars, err)
	}
	bars, err := src.Bars(context.Background(), "NVDA", now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil || len(bars) != 1 || bars[0].Close != 500000000 {
		t.Errorf("bars %v %v, want only the closed 13:59 minute", bars, err)
	}
}

func TestBarsHTTPFailures(t *testing.T) {
	now := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	adaptertest.Failures{Source: "alp", Key: fakeKey, Bars: func(t *testing.T, base string) error {
		_, err := newSource(t, base, now, sources.Settings{Name: "alp", Retries: -1}).Bars(context.Background(), "NVDA", now.Add(-time.Hour), now)
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "403 recent SIP", Status: 403, Body: string(adaptertest.ReadFile(t, "alpaca-error-403-recent-sip.json")), Kind: sources.ErrUnauthorized, Msg: "subscription does not permit querying recent SIP data"},
		{Name: "401", Status: 401, Body: `{"message":"forbidden."}`, Kind: sources.ErrUnauthorized, Msg: "forbidden."},
		{Name: "429 Retry-After", Status: 429, Header: http.Header{"Retry-After": {"21"}}, Body: `{"message":"too many requests."}`, Kind: sources.ErrRateLimited, RetryAfter: 21 * time.Second},
		{Name: "429 X-RateLimit-Reset", Status: 429, Header: http.Header{"X-RateLimit-Reset": {strconv.FormatInt(now.Unix()+9, 10)}}, Body: `{"message":"too many requests."}`, Kind: sources.ErrRateLimited, RetryAfter: 9 * time.Second},
		{Name: "422 invalid symbol", Status: 422, Body: `{"code":42210000,"message":"invalid symbol: NVDA!"}`, Kind: sources.ErrUnknownSymbol, Msg: "invalid symbol: NVDA!"},
		{Name: "400 other", Status: 400, Body: `{"code":40010001,"message":"invalid timeframe"}`, Kind: sources.ErrBadResponse, Msg: "invalid timeframe"},
		{Name: "500", Status: 500, Body: `internal`, Kind: sources.ErrUnavailable},
		{Name: "200 hidden error", Status: 200, Body: `{"message":"something broke"}`, Kind: sources.ErrBadResponse, Msg: "something broke"},
	}}.Run(t)
}

// TestKeysNeverInErrors makes every failure happen with a server that echoes the request,
// headers included, and searches each error for the key and the secret.
func TestKeysNeverInErrors(t *testing.T) {
	now := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	adaptertest.KeyNeverLeaks(t, adaptertest.Leak{
		Secrets: []string{fakeKey, fakeSecret},
		Answers: adaptertest.Echo(func(_ int, r *http.Request) string {
			return fmt.Sprintf(`{"message":"you sent %s %v"}`, r.URL, r.Header)
		}, 200, 400, 401, 403, 404, 422, 429, 500),
		Bars: func(t *testing.T, base string) error {
			_, err := newSource(t, base, now, sources.Settings{Retries: -1}).Bars(context.Background(), "NVDA", now.Add(-time.Hour), now)
			return err
		},
	})
	_, err := factory.New(sources.Settings{Key: fakeKey}, sources.Deps{})
	if !errors.Is(err, sources.ErrNoKey) {
		t.Fatalf("no secret: %v, want ErrNoKey", err)
	}
	adaptertest.NoSecret(t, err.Error(), fakeKey, fakeSecret)
}

func TestFactoryAndCoverage(t *testing.T) {
	f, ok := sources.Lookup(Type)
	if !ok || !f.NeedsKey || !f.NeedsSecret || f.DefaultRate != DefaultRate || f.Options["feed"] == "" {
		t.Fatalf("registration: %+v %v", f, ok)
	}
	cov := func(delay time.Duration, sessions ...market.Session) sources.Coverage {
		return sources.Coverage{Sessions: sessions, Delay: delay, MaxWindow: 7 * 24 * time.Hour, Adjustment: sources.Raw, Rate: sources.Rate{N: 200, Per: time.Minute}, Page: 10000}
	}
	ext := []market.Session{market.Pre, market.Regular, market.Post}
	adaptertest.Coverages(t, Type, sources.Settings{Name: "a", Key: "k", Secret: "s"}, []adaptertest.OptionCase{
		{Options: nil, Want: cov(0, ext...)},
		{Options: map[string]string{"feed": "iex"}, Want: cov(0, ext...)},
		{Options: map[string]string{"feed": "SIP"}, Want: cov(15*time.Minute, ext...)},
		{Options: map[string]string{"feed": "boats"}, Want: cov(0, market.Overnight)},
		{Options: map[string]string{"feed": "nasdaq"}, Bad: "feed"},
		{Options: map[string]string{"adjustment": "split"}, Bad: "adjustment"},
	})
	adaptertest.RateReachesCoverage(t, Type, sources.Settings{Key: "k", Secret: "s", Rate: sources.Rate{N: 1, Per: time.Second}})
}

// TestLive asks the real Alpaca. It runs only with PRICERIG_LIVE=1, ALPACA_API_KEY_ID and
// ALPACA_API_SECRET_KEY set.
func TestLive(t *testing.T) {
	keys := adaptertest.Live(t, "Alpaca", "ALPACA_API_KEY_ID", "ALPACA_API_SECRET_KEY")
	src, err := factory.New(sources.Settings{Key: keys[0], Secret: keys[1]}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2024, 6, 10, 13, 30, 0, 0, time.UTC) // NVDA's first day after its 10:1 split
	adaptertest.AskLive(t, src, "NVDA", from, from.Add(30*time.Minute), false)
}
