package tiingo

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

const testKey = "tiingoTok3n55"

var utc = adaptertest.UTC

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
		{"recorded GOOGL", adaptertest.ReadFile(t, "tiingo-iex-prices-30min-googl.json"), googl, nil, ""},
		{"strings and nulls", adaptertest.ReadFile(t, "strings-and-nulls.handmade.json"), []sources.Bar{
			{Start: utc("2024-06-07T13:30:00Z"), Close: 119925000000, Volume: 1200},
			{Start: utc("2024-06-07T13:32:00Z"), Close: 120100500000},
		}, nil, ""},
		{"empty", []byte(`[]`), []sources.Bar{}, nil, ""},
		{"empty with spaces", []byte(" [ ]\n"), []sources.Bar{}, nil, ""},
		{"truncated", adaptertest.ReadFile(t, "truncated.handmade.json"), nil, sources.ErrBadResponse, "not a Tiingo"},
		{"unknown ticker", adaptertest.ReadFile(t, "error-404-ticker.handmade.json"), nil, sources.ErrUnknownSymbol, "XYZQ"},
		{"bad token", adaptertest.ReadFile(t, "error-401-token.handmade.json"), nil, sources.ErrUnauthorized, "Invalid token."},
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
			got, err := parse(tt.body)
			adaptertest.CheckParsed(t, got, err, tt.want, tt.wantKind, tt.wantMsg)
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"tiingo-iex-prices-30min-googl.json", "strings-and-nulls.handmade.json", "truncated.handmade.json",
		"error-404-ticker.handmade.json", "error-401-token.handmade.json"} {
		f.Add(adaptertest.ReadFile(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		bars, err := parse(body)
		adaptertest.Fuzzed(t, bars, err, false)
	})
}

type request struct {
	path string
	q    url.Values
	auth string
}

// requests are what a server was asked, with the Authorization header.
func requests(srv *adaptertest.Server) []request {
	var out []request
	for _, r := range srv.Requests() {
		out = append(out, request{r.URL.EscapedPath(), r.URL.Query(), r.Header.Get("Authorization")})
	}
	return out
}

func newSource(t *testing.T, base string) sources.Source {
	t.Helper()
	src, err := factory.New(sources.Settings{Name: "tiingo", Type: "tiingo", BaseURL: base, Key: testKey, Retries: -1,
		Rate: sources.Rate{N: 1000, Per: time.Second}}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestBarsRecordedWithExactQuery(t *testing.T) {
	srv := adaptertest.Serve(t, 200, nil, adaptertest.ReadFile(t, "tiingo-iex-prices-30min-googl.json"))
	// 15:00Z–20:00Z keeps the bars starting 15:00 … 19:30
	bars, err := newSource(t, srv.URL).Bars(context.Background(), "GOOGL", utc("2018-01-02T15:00:00Z"), utc("2018-01-02T20:00:00Z"))
	if err != nil || !slices.Equal(bars, googl[1:11]) {
		t.Fatalf("bars = %v err %v", bars, err)
	}
	want := url.Values{
		"startDate": {"2018-01-02"}, "endDate": {"2018-01-02"}, "resampleFreq": {"1min"}, "afterHours": {"true"},
		"forceFill": {"false"}, "columns": {"open,high,low,close,volume"}, "format": {"json"},
	}
	if got := requests(srv); len(got) != 1 || got[0].path != "/iex/GOOGL/prices" || got[0].q.Encode() != want.Encode() || got[0].auth != "Token "+testKey {
		t.Fatalf("requests = %+v", got)
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
			srv := adaptertest.Serve(t, 200, nil, []byte(`[]`))
			bars, err := newSource(t, srv.URL).Bars(context.Background(), "SPY", utc(tt.from), utc(tt.to))
			if err != nil || bars == nil || len(bars) != 0 {
				t.Fatalf("bars %v err %v", bars, err)
			}
			var have [][2]string
			for _, r := range requests(srv) {
				have = append(have, [2]string{r.q.Get("startDate"), r.q.Get("endDate")})
			}
			if !slices.Equal(have, tt.want) {
				t.Fatalf("dates = %v, want %v", have, tt.want)
			}
		})
	}
}

func TestHTTPFailures(t *testing.T) {
	adaptertest.Failures{Source: "tiingo", Key: testKey, Bars: func(t *testing.T, base string) error {
		_, err := newSource(t, base).Bars(context.Background(), "XYZQ", utc("2024-06-07T13:30:00Z"), utc("2024-06-07T20:00:00Z"))
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "404 unknown ticker", Status: 404, Body: string(adaptertest.ReadFile(t, "error-404-ticker.handmade.json")), Kind: sources.ErrUnknownSymbol},
		{Name: "401 bad token", Status: 401, Body: string(adaptertest.ReadFile(t, "error-401-token.handmade.json")), Kind: sources.ErrUnauthorized},
		{Name: "403", Status: 403, Body: `{"detail":"You do not have permission"}`, Kind: sources.ErrUnauthorized},
		{Name: "429 Retry-After", Status: 429, Header: http.Header{"Retry-After": {"30"}}, Body: `{"detail":"too many"}`, Kind: sources.ErrRateLimited, RetryAfter: 30 * time.Second},
		{Name: "200 detail", Status: 200, Body: `{"detail":"Error: You have run over your hourly request allocation."}`, Kind: sources.ErrRateLimited},
		{Name: "200 truncated", Status: 200, Body: string(adaptertest.ReadFile(t, "truncated.handmade.json")), Kind: sources.ErrBadResponse},
		{Name: "200 misaligned", Status: 200, Body: `[{"date":"2024-06-07T13:30:15.000Z","close":1}]`, Kind: sources.ErrBadResponse},
	}}.Run(t)
}

func TestKeyNeverInErrorsOrURLs(t *testing.T) {
	adaptertest.KeyNeverLeaks(t, adaptertest.Leak{
		Secrets: []string{testKey},
		Answers: []adaptertest.Answer{{Status: 401, Kind: sources.ErrUnauthorized,
			Body: func(*http.Request) string { return `{"detail":"Invalid token ` + testKey + `."}` }}},
		Header: "Authorization", HeaderValue: "Token " + testKey, NotInURL: []string{"token"},
		Bars: func(t *testing.T, base string) error {
			_, err := newSource(t, base).Bars(context.Background(), "SPY", utc("2024-06-07T13:30:00Z"), utc("2024-06-07T20:00:00Z"))
			return err
		},
	})
}

func TestNewAndCoverage(t *testing.T) {
	if _, err := factory.New(sources.Settings{Name: "tiingo"}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Fatalf("no key: %v", err)
	}
	adaptertest.Coverages(t, "tiingo", sources.Settings{Name: "tiingo", Key: "k"}, []adaptertest.OptionCase{
		{Options: map[string]string{"afterHours": "false"}, Bad: "afterHours"},
		{Want: sources.Coverage{Sessions: []market.Session{market.Pre, market.Regular, market.Post}, MaxWindow: 7 * 24 * time.Hour,
			Adjustment: sources.Raw, Rate: sources.Rate{N: 50, Per: time.Hour}, Cut: sources.CutDates, Dates: 7}},
	})
	if f, ok := sources.Lookup("tiingo"); !ok || !f.NeedsKey || f.DefaultRate != DefaultRate {
		t.Fatalf("factory = %+v", f)
	}
}

// TestLive asks Tiingo for the last few days of SPY when PRICERIG_LIVE=1 and TIINGO_API_KEY are
// set.
func TestLive(t *testing.T) {
	key := adaptertest.Live(t, "Tiingo", "TIINGO_API_KEY")[0]
	src, err := factory.New(sources.Settings{Name: "tiingo", Type: "tiingo", Key: key}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	to := time.Now().UTC().Truncate(time.Minute)
	adaptertest.AskLive(t, src, "SPY", to.Add(-5*24*time.Hour), to, false)
}

// parse decodes a whole body, keeping every bar.
func parse(body []byte) ([]sources.Bar, error) {
	return sources.DecodeBytes(body, func(s *sources.Stream) ([]sources.Bar, error) { return Decode(s, sources.AllTime) })
}
