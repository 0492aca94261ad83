package finnhub

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/udf"
)

const testKey = "finnhubKey0q7c"

var utc = adaptertest.UTC

type request struct{ path, rawQuery, token string }

// requests are what a server was asked, with the key header Finnhub reads.
func requests(srv *adaptertest.Server) []request {
	var out []request
	for _, r := range srv.Requests() {
		out = append(out, request{r.URL.Path, r.URL.RawQuery, r.Header.Get("X-Finnhub-Token")})
	}
	return out
}

func newSource(t *testing.T, base string) sources.Source {
	t.Helper()
	src, err := factory.New(sources.Settings{Name: "finnhub", Type: "finnhub", BaseURL: base, Key: testKey, Retries: -1,
		Rate: sources.Rate{N: 1000, Per: time.Second}}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestRecordedBodies(t *testing.T) {
	tests := []struct {
		file     string
		status   int
		want     []sources.Bar
		wantKind error
		wantMsg  string
	}{
		{"stock-candle-ok.handmade.json", 200, []sources.Bar{
			{Start: utc("2019-09-24T13:30:00Z"), Close: 21768000000, Volume: 33463},
			{Start: utc("2019-09-24T13:31:00Z"), Close: 22103000000, Volume: 24018},
			{Start: utc("2019-09-24T13:32:00Z"), Close: 21989000000, Volume: 20730},
		}, nil, ""},
		{"finnhub-stock-candle-no-data.json", 200, []sources.Bar{}, nil, ""},
		{"finnhub-error-403-no-access.json", 403, nil, sources.ErrUnauthorized, "You don't have access to this resource."},
		{"finnhub-error-403-no-access.json", 200, nil, sources.ErrUnauthorized, "You don't have access to this resource."},
		{"error-401-invalid-key.handmade.json", 401, nil, sources.ErrUnauthorized, "Invalid API key."},
		{"error-429-limit.handmade.json", 429, nil, sources.ErrRateLimited, "API limit reached"},
		{"error-429-limit.handmade.json", 200, nil, sources.ErrRateLimited, "API limit reached"},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+strconv.Itoa(tt.status), func(t *testing.T) {
			srv := adaptertest.Serve(t, tt.status, nil, adaptertest.ReadFile(t, tt.file))
			bars, err := newSource(t, srv.URL).Bars(context.Background(), "AAPL", utc("2019-09-24T13:30:00Z"), utc("2019-09-24T20:00:00Z"))
			if tt.wantKind != nil {
				var e *sources.Error
				if !errors.As(err, &e) || !errors.Is(err, tt.wantKind) || !strings.Contains(e.Msg, tt.wantMsg) || e.Status != tt.status {
					t.Fatalf("err = %#v, want %v saying %q", err, tt.wantKind, tt.wantMsg)
				}
			} else if err != nil || bars == nil || !slices.Equal(bars, tt.want) {
				t.Fatalf("bars = %v err %v, want %v", bars, err, tt.want)
			}
			want := request{candlePath, "from=1569331800&resolution=1&symbol=AAPL&to=" + strconv.FormatInt(utc("2019-09-24T20:00:00Z").Unix()-1, 10), testKey}
			if got := requests(srv); len(got) != 1 || got[0] != want {
				t.Fatalf("requests = %+v, want [%+v]", got, want)
			}
		})
	}
}

func TestWindowsOfThirtyDays(t *testing.T) {
	srv := adaptertest.Serve(t, 200, nil, []byte(`{"s":"no_data"}`))
	from := utc("2026-01-01T00:00:00Z")
	to := from.Add(45 * 24 * time.Hour)
	bars, err := newSource(t, srv.URL).Bars(context.Background(), "NVDA", from, to)
	if err != nil || bars == nil || len(bars) != 0 {
		t.Fatalf("bars %v err %v", bars, err)
	}
	mid := from.Add(30 * 24 * time.Hour)
	want := []string{
		"from=" + strconv.FormatInt(from.Unix(), 10) + "&resolution=1&symbol=NVDA&to=" + strconv.FormatInt(mid.Unix()-1, 10),
		"from=" + strconv.FormatInt(mid.Unix(), 10) + "&resolution=1&symbol=NVDA&to=" + strconv.FormatInt(to.Unix()-1, 10),
	}
	if got := requests(srv); len(got) != 2 || got[0].rawQuery != want[0] || got[1].rawQuery != want[1] {
		t.Fatalf("requests = %+v, want queries %v", got, want)
	}
}

func TestMalformed(t *testing.T) {
	bars := func(t *testing.T, base string) ([]sources.Bar, error) {
		return newSource(t, base).Bars(context.Background(), "NVDA", utc("2026-01-02T14:30:00Z"), utc("2026-01-02T15:30:00Z"))
	}
	adaptertest.Failures{Source: "finnhub", Key: testKey, Bars: func(t *testing.T, base string) error {
		_, err := bars(t, base)
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "truncated", Status: 200, Body: `{"c":[217.68],"s":"ok","t":[15693`, Kind: sources.ErrBadResponse},
		{Name: "no s", Status: 200, Body: `{"c":[],"t":[]}`, Kind: sources.ErrBadResponse},
		{Name: "null times", Status: 200, Body: `{"c":[1],"s":"ok","t":[null]}`, Kind: sources.ErrBadResponse},
		{Name: "length mismatch", Status: 200, Body: `{"c":[1,2],"s":"ok","t":[1569331800]}`, Kind: sources.ErrBadResponse},
		{Name: "429 Retry-After", Status: 429, Header: http.Header{"Retry-After": {"12"}}, Body: `{"error":"API limit reached."}`, Kind: sources.ErrRateLimited, RetryAfter: 12 * time.Second},
		{Name: "502", Status: 502, Body: `<html>bad gateway</html>`, Kind: sources.ErrUnavailable},
	}}.Run(t)
	// numbers as strings and null closes are read like the rest of UDF
	srv := adaptertest.Serve(t, 200, nil, []byte(`{"c":["101.5",null],"s":"ok","t":["1767364200",1767364260],"v":["10",null]}`))
	got, err := bars(t, srv.URL)
	if err != nil || len(got) != 1 || got[0] != (sources.Bar{Start: utc("2026-01-02T14:30:00Z"), Close: 10150000000, Volume: 10}) {
		t.Fatalf("bars %v err %v", got, err)
	}
}

func TestKeyNeverInErrorsOrURLs(t *testing.T) {
	adaptertest.KeyNeverLeaks(t, adaptertest.Leak{
		Secrets: []string{testKey},
		Answers: []adaptertest.Answer{{Status: 401, Kind: sources.ErrUnauthorized,
			Body: func(*http.Request) string { return `{"error":"Invalid API key ` + testKey + `"}` }}},
		Header: "X-Finnhub-Token", HeaderValue: testKey, NotInURL: []string{"token"}, // the key belongs in X-Finnhub-Token
		Bars: func(t *testing.T, base string) error {
			_, err := newSource(t, base).Bars(context.Background(), "NVDA", utc("2026-01-02T14:30:00Z"), utc("2026-01-02T15:30:00Z"))
			return err
		},
	})
}

func TestNewAndCoverage(t *testing.T) {
	if _, err := factory.New(sources.Settings{Name: "finnhub"}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Fatalf("no key: %v", err)
	}
	adaptertest.Coverages(t, "finnhub", sources.Settings{Name: "finnhub", Key: "k"}, []adaptertest.OptionCase{
		{Options: map[string]string{"resolution": "5"}, Bad: "resolution"},
		{Want: sources.Coverage{Sessions: []market.Session{market.Regular}, MaxWindow: 30 * 24 * time.Hour, Adjustment: sources.Raw,
			Rate: sources.Rate{N: 60, Per: time.Minute}}},
	})
	if f, ok := sources.Lookup("finnhub"); !ok || !f.NeedsKey || f.DefaultRate != DefaultRate {
		t.Fatalf("factory = %+v", f)
	}
}

// FuzzBody: Finnhub bodies go through the UDF parser; whatever parses has positive prices and
// whole-second UTC starts, and whatever fails says why with a kind.
func FuzzBody(f *testing.F) {
	for _, name := range []string{"stock-candle-ok.handmade.json", "finnhub-stock-candle-no-data.json", "finnhub-error-403-no-access.json",
		"error-401-invalid-key.handmade.json", "error-429-limit.handmade.json"} {
		f.Add(adaptertest.ReadFile(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		bars, err := udf.Parse(body)
		if !adaptertest.Fuzzed(t, bars, err, false) {
			return
		}
		for _, b := range bars {
			if b.Start.Nanosecond() != 0 {
				t.Fatalf("bar %+v not on a whole second", b)
			}
		}
	})
}

// TestLive asks Finnhub for a recent week of SPY when PRICERIG_LIVE=1 and FINNHUB_API_KEY are
// set. Free keys have no candle access; that is reported, not failed.
func TestLive(t *testing.T) {
	key := adaptertest.Live(t, "Finnhub", "FINNHUB_API_KEY")[0]
	src, err := factory.New(sources.Settings{Name: "finnhub", Type: "finnhub", Key: key}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	to := time.Now().UTC().Truncate(time.Minute)
	adaptertest.AskLive(t, src, "SPY", to.Add(-7*24*time.Hour), to, true)
}
