package tiingo

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

const testKey = "tiingoTok3n55"

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

// the recorded GOOGL body of 2018-01-02, 30-minute bars, as bar starts and scaled closes
var googl = []sources.Bar{
	{Start: utc("2018-01-02T14:30:00Z"), Close: 106191000000},
	{Start: utc("2018-01-02T15:00:00Z"), Close: 106694500000},
	{Start: utc("2018-01-02T15:30:00Z"), Close: 107026000000},
	{Start: utc("2018-01-02T16:00:00Z"), Close: 107326000000},
	{Start: utc("2018-01-02T16:30:00Z"), Close: 107390500000},
	{Start: utc("2018-01-02T17:00:00Z"), Close: 107308000000},
	{Start: utc("2018-01-02T17:30:00Z"), Close: 107233500000},
	{Start: utc("2018-01-02T18:00:00Z"), Close: 107386000000},
	{Start: utc("2018-01-02T18:30:00Z"), Close: 107297000000},
	{Start: utc("2018-01-02T19:00:00Z"), Close: 107270500000},
	{Start: utc("2018-01-02T19:30:00Z"), Close: 107407000000},
	{Start: utc("2018-01-02T20:00:00Z"), Close: 107383000000},
	{Start: utc("2018-01-02T20:30:00Z"), Close: 107331500000},
}

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		body     []byte
		want     []sources.Bar
		wantKind error
		wantMsg  string
	}{
		{"recorded GOOGL", readFile(t, "tiingo-iex-prices-30min-googl.json"), googl, nil, ""},
		{"strings and nulls", readFile(t, "strings-and-nulls.handmade.json"), []sources.Bar{
			{Start: utc("2024-06-07T13:30:00Z"), Close: 119925000000, Volume: 1200},
			{Start: utc("2024-06-07T13:32:00Z"), Close: 120100500000},
		}, nil, ""},
		{"empty", []byte(`[]`), []sources.Bar{}, nil, ""},
		{"empty with spaces", []byte(" [ ]\n"), []sources.Bar{}, nil, ""},
		{"truncated", readFile(t, "truncated.handmade.json"), nil, sources.ErrBadResponse, "not a Tiingo"},
		{"unknown ticker", readFile(t, "error-404-ticker.handmade.json"), nil, sources.ErrUnknownSymbol, "XYZQ"},
		{"bad token", readFile(t, "error-401-token.handmade.json"), nil, sources.ErrUnauthorized, "Invalid token."},
		{"permission", []byte(`{"detail":"You do not have permission to access the News API"}`), nil, sources.ErrUnauthorized, "permission"},
		{"rate", []byte(`{"detail":"Error: You have run over your hourly request allocation. Please upgrade at https://api.tiingo.com/pricing"}`), nil, sources.ErrRateLimited, "allocation"},
		{"object without detail", []byte(`{"foo":1}`), nil, sources.ErrBadResponse, "object instead"},
		{"null", []byte(`null`), nil, sources.ErrBadResponse, "not an array"},
		{"string", []byte(`"[]"`), nil, sources.ErrBadResponse, "not a Tiingo"},
		{"no date", []byte(`[{"close":1}]`), nil, sources.ErrBadResponse, "no date"},
		{"null date", []byte(`[{"date":null,"close":1}]`), nil, sources.ErrBadResponse, "no date"},
		{"bad date", []byte(`[{"date":"2018-01-02 14:30","close":1}]`), nil, sources.ErrBadResponse, "not an ISO time"},
		{"no close", []byte(`[{"date":"2018-01-02T14:30:00.000Z"}]`), nil, sources.ErrBadResponse, "no close"},
		{"bad close", []byte(`[{"date":"2018-01-02T14:30:00.000Z","close":"n/a"}]`), nil, sources.ErrBadResponse, "close"},
		{"negative volume", []byte(`[{"date":"2018-01-02T14:30:00.000Z","close":1,"volume":-5}]`), nil, sources.ErrBadResponse, "negative"},
		{"offset date", []byte(`[{"date":"2018-01-02T09:30:00-05:00","close":1.5}]`), []sources.Bar{{Start: utc("2018-01-02T14:30:00Z"), Close: 150000000}}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.body)
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
	for _, name := range []string{"tiingo-iex-prices-30min-googl.json", "strings-and-nulls.handmade.json", "truncated.handmade.json",
		"error-404-ticker.handmade.json", "error-401-token.handmade.json"} {
		f.Add(readFile(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		bars, err := Parse(body)
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
	auth string
}

func serve(t *testing.T, status int, header http.Header, body []byte) (*httptest.Server, *[]request) {
	t.Helper()
	var got []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, request{r.URL.EscapedPath(), r.URL.Query(), r.Header.Get("Authorization")})
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
	src, err := New(sources.Settings{Name: "tiingo", Type: "tiingo", BaseURL: base, Key: testKey, Retries: -1,
		Rate: sources.Rate{N: 1000, Per: time.Second}}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestBarsRecordedWithExactQuery(t *testing.T) {
	srv, got := serve(t, 200, nil, readFile(t, "tiingo-iex-prices-30min-googl.json"))
	// 15:00Z–20:00Z keeps the bars starting 15:00 … 19:30
	bars, err := newSource(t, srv.URL).Bars(context.Background(), "GOOGL", utc("2018-01-02T15:00:00Z"), utc("2018-01-02T20:00:00Z"))
	if err != nil || !slices.Equal(bars, googl[1:11]) {
		t.Fatalf("bars = %v err %v", bars, err)
	}
	want := url.Values{
		"startDate": {"2018-01-02"}, "endDate": {"2018-01-02"}, "resampleFreq": {"1min"}, "afterHours": {"true"},
		"forceFill": {"false"}, "columns": {"open,high,low,close,volume"}, "format": {"json"},
	}
	if len(*got) != 1 || (*got)[0].path != "/iex/GOOGL/prices" || (*got)[0].q.Encode() != want.Encode() || (*got)[0].auth != "Token "+testKey {
		t.Fatalf("requests = %+v", *got)
	}
}

func TestDateRequests(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
		want     [][2]string // startDate, endDate per request
	}{
		// 04:00–20:00 ET: one date however the provider reads it
		{"one ET day", "2024-06-07T08:00:00Z", "2024-06-08T00:00:00Z", [][2]string{{"2024-06-07", "2024-06-07"}}},
		// 19:00–21:00 ET on the 7th runs past UTC midnight: both readings of the dates are covered
		{"late evening", "2024-06-07T23:00:00Z", "2024-06-08T01:00:00Z", [][2]string{{"2024-06-07", "2024-06-08"}}},
		// ten days: seven dates, then the rest
		{"ten days", "2024-06-03T13:30:00Z", "2024-06-13T13:30:00Z", [][2]string{{"2024-06-03", "2024-06-09"}, {"2024-06-10", "2024-06-13"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, got := serve(t, 200, nil, []byte(`[]`))
			bars, err := newSource(t, srv.URL).Bars(context.Background(), "SPY", utc(tt.from), utc(tt.to))
			if err != nil || bars == nil || len(bars) != 0 {
				t.Fatalf("bars %v err %v", bars, err)
			}
			var have [][2]string
			for _, r := range *got {
				have = append(have, [2]string{r.q.Get("startDate"), r.q.Get("endDate")})
			}
			if !slices.Equal(have, tt.want) {
				t.Fatalf("dates = %v, want %v", have, tt.want)
			}
		})
	}
}

func TestHTTPFailures(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		header   http.Header
		body     []byte
		wantKind error
		retry    time.Duration
	}{
		{"404 unknown ticker", 404, nil, readFile(t, "error-404-ticker.handmade.json"), sources.ErrUnknownSymbol, 0},
		{"401 bad token", 401, nil, readFile(t, "error-401-token.handmade.json"), sources.ErrUnauthorized, 0},
		{"403", 403, nil, []byte(`{"detail":"You do not have permission"}`), sources.ErrUnauthorized, 0},
		{"429 Retry-After", 429, http.Header{"Retry-After": {"30"}}, []byte(`{"detail":"too many"}`), sources.ErrRateLimited, 30 * time.Second},
		{"200 detail", 200, nil, []byte(`{"detail":"Error: You have run over your hourly request allocation."}`), sources.ErrRateLimited, 0},
		{"200 truncated", 200, nil, readFile(t, "truncated.handmade.json"), sources.ErrBadResponse, 0},
		{"200 misaligned", 200, nil, []byte(`[{"date":"2024-06-07T13:30:15.000Z","close":1}]`), sources.ErrBadResponse, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, tt.status, tt.header, tt.body)
			_, err := newSource(t, srv.URL).Bars(context.Background(), "XYZQ", utc("2024-06-07T13:30:00Z"), utc("2024-06-07T20:00:00Z"))
			var e *sources.Error
			if !errors.As(err, &e) || !errors.Is(err, tt.wantKind) || e.RetryAfter != tt.retry || e.Source != "tiingo" {
				t.Fatalf("err = %#v, want %v", err, tt.wantKind)
			}
		})
	}
}

func TestKeyNeverInErrorsOrURLs(t *testing.T) {
	srv, got := serve(t, 401, nil, []byte(`{"detail":"Invalid token `+testKey+`."}`))
	_, err := newSource(t, srv.URL).Bars(context.Background(), "SPY", utc("2024-06-07T13:30:00Z"), utc("2024-06-07T20:00:00Z"))
	if !errors.Is(err, sources.ErrUnauthorized) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
	if q := (*got)[0].q; q.Has("token") || strings.Contains(q.Encode(), testKey) {
		t.Fatalf("key in query %v", q)
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	_, err = newSource(t, dead.URL).Bars(context.Background(), "SPY", utc("2024-06-07T13:30:00Z"), utc("2024-06-07T20:00:00Z"))
	if !errors.Is(err, sources.ErrUnavailable) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
}

func TestNewAndCoverage(t *testing.T) {
	if _, err := New(sources.Settings{Name: "tiingo"}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Fatalf("no key: %v", err)
	}
	if _, err := New(sources.Settings{Name: "tiingo", Key: "k", Options: map[string]string{"afterHours": "false"}}, sources.Deps{}); err == nil || !strings.Contains(err.Error(), "afterHours") {
		t.Fatalf("unknown option: %v", err)
	}
	src, err := New(sources.Settings{Name: "tiingo", Key: "k"}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	cov := src.Coverage()
	if !slices.Equal(cov.Sessions, []market.Session{market.Pre, market.Regular, market.Post}) || cov.Lookback != 0 ||
		cov.MaxWindow != 7*24*time.Hour || cov.Adjustment != sources.Raw || cov.Rate != (sources.Rate{N: 50, Per: time.Hour}) {
		t.Fatalf("coverage = %+v", cov)
	}
	if f, ok := sources.Lookup("tiingo"); !ok || !f.NeedsKey || f.DefaultRate != DefaultRate {
		t.Fatalf("factory = %+v", f)
	}
}

// TestLive asks Tiingo for the last few days of SPY when PRICERIG_LIVE=1 and TIINGO_API_KEY are
// set.
func TestLive(t *testing.T) {
	key := os.Getenv("TIINGO_API_KEY")
	if os.Getenv("PRICERIG_LIVE") != "1" || key == "" {
		t.Skip("set PRICERIG_LIVE=1 and TIINGO_API_KEY to ask the live API")
	}
	src, err := New(sources.Settings{Name: "tiingo", Type: "tiingo", Key: key}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	to := time.Now().UTC().Truncate(time.Minute)
	from := to.Add(-5 * 24 * time.Hour)
	bars, err := src.Bars(context.Background(), "SPY", from, to)
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
