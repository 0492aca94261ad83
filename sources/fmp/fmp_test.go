package fmp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

const testKey = "fmpKEY8812ab"

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		body     []byte
		symbol   string
		want     []sources.Bar
		wantKind error
		wantMsg  string
	}{
		// 15:59 EST on 2025-02-04 (UTC-5) is 20:59Z
		{"recorded docs body", readFile(t, "fmp-historical-chart-1min-docs.json"), "AAPL",
			[]sources.Bar{{Start: utc("2025-02-04T20:59:00Z"), Close: 23279000000, Volume: 720121}}, nil, ""},
		// 09:30 EDT on 2024-07-01 (UTC-4) is 13:30Z; body order (newest first) is kept by Parse
		{"newest first in summer", readFile(t, "newest-first-summer.handmade.json"), "NVDA", []sources.Bar{
			{Start: utc("2024-07-01T13:32:00Z"), Close: 12330000000, Volume: 5100},
			{Start: utc("2024-07-01T13:31:00Z"), Close: 12305000000, Volume: 4200},
			{Start: utc("2024-07-01T13:30:00Z"), Close: 12297000000, Volume: 9800},
		}, nil, ""},
		{"empty", []byte(`[]`), "NVDA", []sources.Bar{}, nil, ""},
		{"restricted plain text", readFile(t, "fmp-error-402-restricted.txt"), "NVDA", nil, sources.ErrUnauthorized, "Restricted Endpoint"},
		{"invalid key", readFile(t, "error-invalid-key.handmade.json"), "NVDA", nil, sources.ErrUnauthorized, "Invalid API KEY"},
		{"limit reach", readFile(t, "error-limit-reach.handmade.json"), "NVDA", nil, sources.ErrRateLimited, "Limit Reach"},
		{"premium symbol", []byte(`{"Error Message":"Premium Query Parameter: 'Special Endpoint : This value set for 'symbol' is not available under your current subscription"}`), "NVDA", nil, sources.ErrUnauthorized, "Premium"},
		{"wrong symbol", readFile(t, "wrong-symbol.handmade.json"), "NVDA", nil, sources.ErrBadResponse, `"TSLA"`},
		{"same symbol other case", []byte(`[{"symbol":"nvda","date":"2025-02-04 15:59:00","close":"118.65"}]`), "NVDA",
			[]sources.Bar{{Start: utc("2025-02-04T20:59:00Z"), Close: 11865000000}}, nil, ""},
		{"truncated", []byte(`[{"date": "2025-02-04 15:59:00", "close": 232.`), "NVDA", nil, sources.ErrBadResponse, "not an FMP"},
		{"null", []byte(`null`), "NVDA", nil, sources.ErrBadResponse, "not an array"},
		{"no date", []byte(`[{"close":1}]`), "NVDA", nil, sources.ErrBadResponse, "no date"},
		{"utc date", []byte(`[{"date":"2025-02-04T20:59:00Z","close":1}]`), "NVDA", nil, sources.ErrBadResponse, "New York"},
		{"no close", []byte(`[{"date":"2025-02-04 15:59:00"}]`), "NVDA", nil, sources.ErrBadResponse, "no close"},
		{"null close", []byte(`[{"date":"2025-02-04 15:59:00","close":null}]`), "NVDA", []sources.Bar{}, nil, ""},
		{"object close", []byte(`[{"date":"2025-02-04 15:59:00","close":{}}]`), "NVDA", nil, sources.ErrBadResponse, "close"},
		{"bad volume", []byte(`[{"date":"2025-02-04 15:59:00","close":1,"volume":"many"}]`), "NVDA", nil, sources.ErrBadResponse, "volume"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.body, tt.symbol)
			if tt.wantKind != nil {
				var e *sources.Error
				if !errors.As(err, &e) || !errors.Is(err, tt.wantKind) || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("err = %v, want %v saying %q", err, tt.wantKind, tt.wantMsg)
				}
				return
			}
			if err != nil || got == nil || !slices.Equal(got, tt.want) {
				t.Fatalf("bars = %v err %v\nwant %v", got, err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"fmp-historical-chart-1min-docs.json", "newest-first-summer.handmade.json", "fmp-error-402-restricted.txt",
		"error-invalid-key.handmade.json", "error-limit-reach.handmade.json", "wrong-symbol.handmade.json"} {
		f.Add(readFile(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		bars, err := Parse(body, "AAPL")
		if err != nil {
			var e *sources.Error
			if !errors.As(err, &e) || e.Kind == nil {
				t.Fatalf("error without a kind: %v", err)
			}
			return
		}
		for _, b := range bars {
			if b.Close <= 0 || b.Volume < 0 || b.Start.Location() != time.UTC {
				t.Fatalf("bad bar %+v", b)
			}
		}
	})
}

type request struct {
	path string
	q    url.Values
}

func serve(t *testing.T, status int, header http.Header, body []byte) (*httptest.Server, *[]request) {
	t.Helper()
	var got []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, request{r.URL.Path, r.URL.Query()})
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func newSource(t *testing.T, base string) sources.Source {
	t.Helper()
	src, err := New(sources.Settings{Name: "fmp", Type: "fmp", BaseURL: base, Key: testKey, Retries: -1,
		Rate: sources.Rate{N: 1000, Per: time.Second}}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestBarsSortsNewestFirstAndAsksExactly(t *testing.T) {
	srv, got := serve(t, 200, nil, readFile(t, "newest-first-summer.handmade.json"))
	bars, err := newSource(t, srv.URL).Bars(context.Background(), "NVDA", utc("2024-07-01T13:31:00Z"), utc("2024-07-01T20:00:00Z"))
	want := []sources.Bar{
		{Start: utc("2024-07-01T13:31:00Z"), Close: 12305000000, Volume: 4200},
		{Start: utc("2024-07-01T13:32:00Z"), Close: 12330000000, Volume: 5100},
	}
	if err != nil || !slices.Equal(bars, want) {
		t.Fatalf("bars = %v err %v, want %v", bars, err, want)
	}
	wantQ := url.Values{"symbol": {"NVDA"}, "from": {"2024-07-01"}, "to": {"2024-07-01"}, "nonadjusted": {"true"}, "apikey": {testKey}}
	if len(*got) != 1 || (*got)[0].path != chartPath || (*got)[0].q.Encode() != wantQ.Encode() {
		t.Fatalf("requests = %+v", *got)
	}
}

func TestBarsSplitsIntoSevenDates(t *testing.T) {
	srv, got := serve(t, 200, nil, []byte(`[]`))
	bars, err := newSource(t, srv.URL).Bars(context.Background(), "NVDA", utc("2024-07-01T13:30:00Z"), utc("2024-07-16T20:00:00Z"))
	if err != nil || bars == nil || len(bars) != 0 {
		t.Fatalf("bars %v err %v", bars, err)
	}
	var have [][2]string
	for _, r := range *got {
		have = append(have, [2]string{r.q.Get("from"), r.q.Get("to")})
	}
	want := [][2]string{{"2024-07-01", "2024-07-07"}, {"2024-07-08", "2024-07-14"}, {"2024-07-15", "2024-07-16"}}
	if !slices.Equal(have, want) {
		t.Fatalf("dates = %v, want %v", have, want)
	}
}

func TestHTTPFailures(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		header   http.Header
		body     []byte
		wantKind error
		wantMsg  string
		retry    time.Duration
	}{
		{"402 restricted", 402, nil, readFile(t, "fmp-error-402-restricted.txt"), sources.ErrUnauthorized, "Restricted Endpoint: This endpoint is not available under your current subscription", 0},
		{"401 invalid key", 401, nil, readFile(t, "error-invalid-key.handmade.json"), sources.ErrUnauthorized, "Invalid API KEY", 0},
		{"429 limit", 429, http.Header{"Retry-After": {"45"}}, readFile(t, "error-limit-reach.handmade.json"), sources.ErrRateLimited, "", 45 * time.Second},
		{"200 limit", 200, nil, readFile(t, "error-limit-reach.handmade.json"), sources.ErrRateLimited, "Limit Reach", 0},
		{"200 wrong symbol", 200, nil, readFile(t, "wrong-symbol.handmade.json"), sources.ErrBadResponse, "TSLA", 0},
		{"500", 500, nil, []byte(`Internal Server Error`), sources.ErrUnavailable, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, tt.status, tt.header, tt.body)
			_, err := newSource(t, srv.URL).Bars(context.Background(), "NVDA", utc("2025-02-04T14:30:00Z"), utc("2025-02-04T21:00:00Z"))
			var e *sources.Error
			if !errors.As(err, &e) || !errors.Is(err, tt.wantKind) || e.RetryAfter != tt.retry || e.Source != "fmp" || !strings.Contains(e.Msg, tt.wantMsg) {
				t.Fatalf("err = %#v, want %v saying %q", err, tt.wantKind, tt.wantMsg)
			}
		})
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	// FMP's key rides in apikey=: every error that could carry the URL or an echo must hide it
	srv, _ := serve(t, 401, nil, []byte(`{"Error Message":"Invalid API KEY `+testKey+` for /stable/historical-chart/1min?apikey=`+testKey+`"}`))
	_, err := newSource(t, srv.URL).Bars(context.Background(), "NVDA", utc("2025-02-04T14:30:00Z"), utc("2025-02-04T21:00:00Z"))
	if !errors.Is(err, sources.ErrUnauthorized) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	_, err = newSource(t, dead.URL).Bars(context.Background(), "NVDA", utc("2025-02-04T14:30:00Z"), utc("2025-02-04T21:00:00Z"))
	if !errors.Is(err, sources.ErrUnavailable) || strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "apikey=REDACTED") {
		t.Fatalf("err = %v (want the URL with apikey=REDACTED)", err)
	}
}

func TestNewAndCoverage(t *testing.T) {
	if _, err := New(sources.Settings{Name: "fmp"}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Fatalf("no key: %v", err)
	}
	if _, err := New(sources.Settings{Name: "fmp", Key: "k", Options: map[string]string{"nonadjusted": "false"}}, sources.Deps{}); err == nil || !strings.Contains(err.Error(), "nonadjusted") {
		t.Fatalf("unknown option: %v", err)
	}
	src, err := New(sources.Settings{Name: "fmp", Key: "k"}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	cov := src.Coverage()
	if !slices.Equal(cov.Sessions, []market.Session{market.Regular}) || cov.Lookback != 0 || cov.MaxWindow != 7*24*time.Hour ||
		cov.Adjustment != sources.Raw || cov.Rate != (sources.Rate{N: 250, Per: 24 * time.Hour}) {
		t.Fatalf("coverage = %+v", cov)
	}
	if f, ok := sources.Lookup("fmp"); !ok || !f.NeedsKey || f.DefaultRate != DefaultRate {
		t.Fatalf("factory = %+v", f)
	}
}

// TestLive asks FMP for a recent week of SPY when PRICERIG_LIVE=1 and FMP_API_KEY are set. Free
// plans get 402 Restricted Endpoint; that is reported, not failed.
func TestLive(t *testing.T) {
	key := os.Getenv("FMP_API_KEY")
	if os.Getenv("PRICERIG_LIVE") != "1" || key == "" {
		t.Skip("set PRICERIG_LIVE=1 and FMP_API_KEY to ask the live API")
	}
	src, err := New(sources.Settings{Name: "fmp", Type: "fmp", Key: key}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	to := time.Now().UTC().Truncate(time.Minute)
	from := to.Add(-5 * 24 * time.Hour)
	bars, err := src.Bars(context.Background(), "SPY", from, to)
	if errors.Is(err, sources.ErrUnauthorized) {
		t.Skipf("plan has no intraday: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) == 0 {
		t.Fatal("no SPY bars in five days")
	}
	for i, b := range bars {
		if b.Start.Before(from) || !b.Start.Before(to) || b.Close <= 0 || (i > 0 && !bars[i-1].Start.Before(b.Start)) {
			t.Fatalf("bar %d = %+v", i, b)
		}
	}
}
