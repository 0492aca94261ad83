package fmp

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

const testKey = "fmpKEY8812ab"

var utc = adaptertest.UTC

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
		{"recorded docs body", adaptertest.ReadFile(t, "fmp-historical-chart-1min-docs.json"), "AAPL",
			[]sources.Bar{{Start: utc("2025-02-04T20:59:00Z"), Close: 23279000000, Volume: 720121}}, nil, ""},
		// 09:30 EDT on 2024-07-01 (UTC-4) is 13:30Z; body order (newest first) is kept by Parse
		{"newest first in summer", adaptertest.ReadFile(t, "newest-first-summer.handmade.json"), "NVDA", []sources.Bar{
			{Start: utc("2024-07-01T13:32:00Z"), Close: 12330000000, Volume: 5100},
			{Start: utc("2024-07-01T13:31:00Z"), Close: 12305000000, Volume: 4200},
			{Start: utc("2024-07-01T13:30:00Z"), Close: 12297000000, Volume: 9800},
		}, nil, ""},
		{"empty", []byte(`[]`), "NVDA", []sources.Bar{}, nil, ""},
		{"restricted plain text", adaptertest.ReadFile(t, "fmp-error-402-restricted.txt"), "NVDA", nil, sources.ErrUnauthorized, "Restricted Endpoint"},
		{"invalid key", adaptertest.ReadFile(t, "error-invalid-key.handmade.json"), "NVDA", nil, sources.ErrUnauthorized, "Invalid API KEY"},
		{"limit reach", adaptertest.ReadFile(t, "error-limit-reach.handmade.json"), "NVDA", nil, sources.ErrRateLimited, "Limit Reach"},
		{"premium symbol", []byte(`{"Error Message":"Premium Query Parameter: 'Special Endpoint : This value set for 'symbol' is not available under your current subscription"}`), "NVDA", nil, sources.ErrUnauthorized, "Premium"},
		{"wrong symbol", adaptertest.ReadFile(t, "wrong-symbol.handmade.json"), "NVDA", nil, sources.ErrBadResponse, `"TSLA"`},
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
			got, err := parse(tt.body, tt.symbol)
			adaptertest.CheckParsed(t, got, err, tt.want, tt.wantKind, tt.wantMsg)
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"fmp-historical-chart-1min-docs.json", "newest-first-summer.handmade.json", "fmp-error-402-restricted.txt",
		"error-invalid-key.handmade.json", "error-limit-reach.handmade.json", "wrong-symbol.handmade.json"} {
		f.Add(adaptertest.ReadFile(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		bars, err := parse(body, "AAPL")
		adaptertest.Fuzzed(t, bars, err, false)
	})
}

type request struct {
	path string
	q    url.Values
}

// requests are what a server was asked.
func requests(srv *adaptertest.Server) []request {
	var out []request
	for _, r := range srv.Requests() {
		out = append(out, request{r.URL.Path, r.URL.Query()})
	}
	return out
}

func newSource(t *testing.T, base string) sources.Source {
	t.Helper()
	src, err := factory.New(sources.Settings{Name: "fmp", Type: "fmp", BaseURL: base, Key: testKey, Retries: -1,
		Rate: sources.Rate{N: 1000, Per: time.Second}}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestBarsSortsNewestFirstAndAsksExactly(t *testing.T) {
	srv := adaptertest.Serve(t, 200, nil, adaptertest.ReadFile(t, "newest-first-summer.handmade.json"))
	bars, err := newSource(t, srv.URL).Bars(context.Background(), "NVDA", utc("2024-07-01T13:31:00Z"), utc("2024-07-01T20:00:00Z"))
	want := []sources.Bar{
		{Start: utc("2024-07-01T13:31:00Z"), Close: 12305000000, Volume: 4200},
		{Start: utc("2024-07-01T13:32:00Z"), Close: 12330000000, Volume: 5100},
	}
	if err != nil || !slices.Equal(bars, want) {
		t.Fatalf("bars = %v err %v, want %v", bars, err, want)
	}
	wantQ := url.Values{"symbol": {"NVDA"}, "from": {"2024-07-01"}, "to": {"2024-07-01"}, "nonadjusted": {"true"}, "apikey": {testKey}}
	if got := requests(srv); len(got) != 1 || got[0].path != chartPath || got[0].q.Encode() != wantQ.Encode() {
		t.Fatalf("requests = %+v", got)
	}
}

func TestBarsSplitsIntoSevenDates(t *testing.T) {
	srv := adaptertest.Serve(t, 200, nil, []byte(`[]`))
	bars, err := newSource(t, srv.URL).Bars(context.Background(), "NVDA", utc("2024-07-01T13:30:00Z"), utc("2024-07-16T20:00:00Z"))
	if err != nil || bars == nil || len(bars) != 0 {
		t.Fatalf("bars %v err %v", bars, err)
	}
	var have [][2]string
	for _, r := range requests(srv) {
		have = append(have, [2]string{r.q.Get("from"), r.q.Get("to")})
	}
	want := [][2]string{{"2024-07-01", "2024-07-07"}, {"2024-07-08", "2024-07-14"}, {"2024-07-15", "2024-07-16"}}
	if !slices.Equal(have, want) {
		t.Fatalf("dates = %v, want %v", have, want)
	}
}

func TestHTTPFailures(t *testing.T) {
	adaptertest.Failures{Source: "fmp", Key: testKey, Bars: func(t *testing.T, base string) error {
		_, err := newSource(t, base).Bars(context.Background(), "NVDA", utc("2025-02-04T14:30:00Z"), utc("2025-02-04T21:00:00Z"))
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "402 restricted", Status: 402, Body: string(adaptertest.ReadFile(t, "fmp-error-402-restricted.txt")), Kind: sources.ErrUnauthorized, MsgPart: "Restricted Endpoint: This endpoint is not available under your current subscription"},
		{Name: "401 invalid key", Status: 401, Body: string(adaptertest.ReadFile(t, "error-invalid-key.handmade.json")), Kind: sources.ErrUnauthorized, MsgPart: "Invalid API KEY"},
		{Name: "429 limit", Status: 429, Header: http.Header{"Retry-After": {"45"}}, Body: string(adaptertest.ReadFile(t, "error-limit-reach.handmade.json")), Kind: sources.ErrRateLimited, RetryAfter: 45 * time.Second},
		{Name: "200 limit", Status: 200, Body: string(adaptertest.ReadFile(t, "error-limit-reach.handmade.json")), Kind: sources.ErrRateLimited, MsgPart: "Limit Reach"},
		{Name: "200 wrong symbol", Status: 200, Body: string(adaptertest.ReadFile(t, "wrong-symbol.handmade.json")), Kind: sources.ErrBadResponse, MsgPart: "TSLA"},
		{Name: "500", Status: 500, Body: `Internal Server Error`, Kind: sources.ErrUnavailable},
	}}.Run(t)
}

func TestKeyNeverInErrors(t *testing.T) {
	// FMP's key rides in apikey=: every error that could carry the URL or an echo must hide it
	texts := adaptertest.KeyNeverLeaks(t, adaptertest.Leak{
		Secrets: []string{testKey},
		Answers: []adaptertest.Answer{{Status: 401, Kind: sources.ErrUnauthorized, Body: func(*http.Request) string {
			return `{"Error Message":"Invalid API KEY ` + testKey + ` for /stable/historical-chart/1min?apikey=` + testKey + `"}`
		}}},
		Bars: func(t *testing.T, base string) error {
			_, err := newSource(t, base).Bars(context.Background(), "NVDA", utc("2025-02-04T14:30:00Z"), utc("2025-02-04T21:00:00Z"))
			return err
		},
	})
	if gone := texts[1]; !strings.Contains(gone, "apikey=REDACTED") {
		t.Fatalf("err = %v (want the URL with apikey=REDACTED)", gone)
	}
}

func TestNewAndCoverage(t *testing.T) {
	if _, err := factory.New(sources.Settings{Name: "fmp"}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Fatalf("no key: %v", err)
	}
	adaptertest.Coverages(t, "fmp", sources.Settings{Name: "fmp", Key: "k"}, []adaptertest.OptionCase{
		{Options: map[string]string{"nonadjusted": "false"}, Bad: "nonadjusted"},
		{Want: sources.Coverage{Sessions: []market.Session{market.Regular}, MaxWindow: 7 * 24 * time.Hour, Adjustment: sources.Raw,
			Rate: sources.Rate{N: 250, Per: 24 * time.Hour}, Cut: sources.CutDates, Dates: 7}},
	})
	if f, ok := sources.Lookup("fmp"); !ok || !f.NeedsKey || f.DefaultRate != DefaultRate {
		t.Fatalf("factory = %+v", f)
	}
}

// TestLive asks FMP for a recent week of SPY when PRICERIG_LIVE=1 and FMP_API_KEY are set. Free
// plans get 402 Restricted Endpoint; that is reported, not failed.
func TestLive(t *testing.T) {
	key := adaptertest.Live(t, "FMP", "FMP_API_KEY")[0]
	src, err := factory.New(sources.Settings{Name: "fmp", Type: "fmp", Key: key}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	to := time.Now().UTC().Truncate(time.Minute)
	adaptertest.AskLive(t, src, "SPY", to.Add(-5*24*time.Hour), to, true)
}

// parse decodes a whole body, keeping every bar.
func parse(body []byte, symbol string) ([]sources.Bar, error) {
	return sources.DecodeBytes(body, func(s *sources.Stream) ([]sources.Bar, error) { return Decode(s, symbol, sources.AllTime) })
}
