package finnhub

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/udf"
)

const testKey = "finnhubKey0q7c"

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

type request struct{ path, rawQuery, token string }

func serve(t *testing.T, status int, header http.Header, body []byte) (*httptest.Server, *[]request) {
	t.Helper()
	var got []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, request{r.URL.Path, r.URL.RawQuery, r.Header.Get("X-Finnhub-Token")})
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
	src, err := New(sources.Settings{Name: "finnhub", Type: "finnhub", BaseURL: base, Key: testKey, Retries: -1,
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
			srv, got := serve(t, tt.status, nil, readFile(t, tt.file))
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
			if len(*got) != 1 || (*got)[0] != want {
				t.Fatalf("requests = %+v, want [%+v]", *got, want)
			}
		})
	}
}

func TestWindowsOfThirtyDays(t *testing.T) {
	srv, got := serve(t, 200, nil, []byte(`{"s":"no_data"}`))
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
	if len(*got) != 2 || (*got)[0].rawQuery != want[0] || (*got)[1].rawQuery != want[1] {
		t.Fatalf("requests = %+v, want queries %v", *got, want)
	}
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		header     http.Header
		wantKind   error
		retry      time.Duration
	}{
		{"truncated", `{"c":[217.68],"s":"ok","t":[15693`, 200, nil, sources.ErrBadResponse, 0},
		{"no s", `{"c":[],"t":[]}`, 200, nil, sources.ErrBadResponse, 0},
		{"null times", `{"c":[1],"s":"ok","t":[null]}`, 200, nil, sources.ErrBadResponse, 0},
		{"length mismatch", `{"c":[1,2],"s":"ok","t":[1569331800]}`, 200, nil, sources.ErrBadResponse, 0},
		{"429 Retry-After", `{"error":"API limit reached."}`, 429, http.Header{"Retry-After": {"12"}}, sources.ErrRateLimited, 12 * time.Second},
		{"502", `<html>bad gateway</html>`, 502, nil, sources.ErrUnavailable, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, tt.status, tt.header, []byte(tt.body))
			_, err := newSource(t, srv.URL).Bars(context.Background(), "NVDA", utc("2026-01-02T14:30:00Z"), utc("2026-01-02T15:30:00Z"))
			var e *sources.Error
			if !errors.As(err, &e) || !errors.Is(err, tt.wantKind) || e.RetryAfter != tt.retry || e.Source != "finnhub" {
				t.Fatalf("err = %#v, want %v", err, tt.wantKind)
			}
		})
	}
	// numbers as strings and null closes are read like the rest of UDF
	srv, _ := serve(t, 200, nil, []byte(`{"c":["101.5",null],"s":"ok","t":["1767364200",1767364260],"v":["10",null]}`))
	bars, err := newSource(t, srv.URL).Bars(context.Background(), "NVDA", utc("2026-01-02T14:30:00Z"), utc("2026-01-02T15:30:00Z"))
	if err != nil || len(bars) != 1 || bars[0] != (sources.Bar{Start: utc("2026-01-02T14:30:00Z"), Close: 10150000000, Volume: 10}) {
		t.Fatalf("bars %v err %v", bars, err)
	}
}

func TestKeyNeverInErrorsOrURLs(t *testing.T) {
	srv, got := serve(t, 401, nil, []byte(`{"error":"Invalid API key `+testKey+`"}`))
	_, err := newSource(t, srv.URL).Bars(context.Background(), "NVDA", utc("2026-01-02T14:30:00Z"), utc("2026-01-02T15:30:00Z"))
	if !errors.Is(err, sources.ErrUnauthorized) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains((*got)[0].rawQuery, testKey) || strings.Contains((*got)[0].rawQuery, "token") {
		t.Fatalf("key in query %q: it belongs in X-Finnhub-Token", (*got)[0].rawQuery)
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	_, err = newSource(t, dead.URL).Bars(context.Background(), "NVDA", utc("2026-01-02T14:30:00Z"), utc("2026-01-02T15:30:00Z"))
	if !errors.Is(err, sources.ErrUnavailable) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
}

func TestNewAndCoverage(t *testing.T) {
	if _, err := New(sources.Settings{Name: "finnhub"}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Fatalf("no key: %v", err)
	}
	if _, err := New(sources.Settings{Name: "finnhub", Key: "k", Options: map[string]string{"resolution": "5"}}, sources.Deps{}); err == nil || !strings.Contains(err.Error(), "resolution") {
		t.Fatalf("unknown option: %v", err)
	}
	src, err := New(sources.Settings{Name: "finnhub", Key: "k"}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	cov := src.Coverage()
	if !slices.Equal(cov.Sessions, []market.Session{market.Regular}) || cov.Lookback != 0 || cov.MaxWindow != 30*24*time.Hour ||
		cov.Adjustment != sources.Raw || cov.Rate != (sources.Rate{N: 60, Per: time.Minute}) {
		t.Fatalf("coverage = %+v", cov)
	}
	if f, ok := sources.Lookup("finnhub"); !ok || !f.NeedsKey || f.DefaultRate != DefaultRate {
		t.Fatalf("factory = %+v", f)
	}
}

// FuzzBody: Finnhub bodies go through the UDF parser; whatever parses has positive prices and
// whole-second UTC starts, and whatever fails says why with a kind.
func FuzzBody(f *testing.F) {
	for _, name := range []string{"stock-candle-ok.handmade.json", "finnhub-stock-candle-no-data.json", "finnhub-error-403-no-access.json",
		"error-401-invalid-key.handmade.json", "error-429-limit.handmade.json"} {
		f.Add(readFile(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		bars, err := udf.Parse(body)
		if err != nil {
			var e *sources.Error
			if !errors.As(err, &e) || e.Kind == nil {
				t.Fatalf("error without a kind: %v", err)
			}
			return
		}
		for _, b := range bars {
			if b.Close <= 0 || b.Start.Location() != time.UTC || b.Start.Nanosecond() != 0 {
				t.Fatalf("bad bar %+v", b)
			}
		}
	})
}

// TestLive asks Finnhub for a recent week of SPY when PRICERIG_LIVE=1 and FINNHUB_API_KEY are
// set. Free keys have no candle access; that is reported, not failed.
func TestLive(t *testing.T) {
	key := os.Getenv("FINNHUB_API_KEY")
	if os.Getenv("PRICERIG_LIVE") != "1" || key == "" {
		t.Skip("set PRICERIG_LIVE=1 and FINNHUB_API_KEY to ask the live API")
	}
	src, err := New(sources.Settings{Name: "finnhub", Type: "finnhub", Key: key}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	to := time.Now().UTC().Truncate(time.Minute)
	from := to.Add(-7 * 24 * time.Hour)
	bars, err := src.Bars(context.Background(), "SPY", from, to)
	if errors.Is(err, sources.ErrUnauthorized) {
		t.Skipf("plan has no candles: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) == 0 {
		t.Fatal("no SPY bars in a week")
	}
	for i, b := range bars {
		if b.Start.Before(from) || !b.Start.Before(to) || b.Close <= 0 || (i > 0 && !bars[i-1].Start.Before(b.Start)) {
			t.Fatalf("bar %d = %+v", i, b)
		}
	}
}
