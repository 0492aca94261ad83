package pyth

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

const testKey = "pyth-Pro-Key-9xZ"

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

type request struct {
	path, rawQuery, auth string
}

// serve answers every request with one status and body and records what was asked.
func serve(t *testing.T, status int, header http.Header, body []byte) (*httptest.Server, *[]request) {
	t.Helper()
	var got []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, request{r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization")})
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func newSource(t *testing.T, base string, opts map[string]string) sources.Source {
	t.Helper()
	src, err := New(sources.Settings{Name: "pyth", Type: "pyth", BaseURL: base, Key: testKey, Retries: -1,
		Rate: sources.Rate{N: 1000, Per: time.Second}, Options: opts}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestRecordedBodies(t *testing.T) {
	tests := []struct {
		file     string
		want     []sources.Bar
		wantKind error
	}{
		{"pyth-benchmarks-tv-history-ok.json", []sources.Bar{
			{Start: utc("2023-05-15T05:06:00Z"), Close: 2729635698548},
			{Start: utc("2023-05-15T05:07:00Z"), Close: 2729400000000},
		}, nil},
		{"pyth-benchmarks-tv-history-empty.json", []sources.Bar{}, nil},
		{"pyth-benchmarks-tv-history-error.json", nil, sources.ErrBadResponse},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			srv, got := serve(t, 200, nil, readFile(t, tt.file))
			bars, err := newSource(t, srv.URL, nil).Bars(context.Background(), "Crypto.ETH/USD", utc("2023-05-15T05:06:00Z"), utc("2023-05-15T05:08:00Z"))
			if tt.wantKind != nil {
				if !errors.Is(err, tt.wantKind) || !strings.Contains(err.Error(), "An error occured.") {
					t.Fatalf("err = %v, want %v with the provider's words", err, tt.wantKind)
				}
			} else if err != nil || bars == nil || !slices.Equal(bars, tt.want) {
				t.Fatalf("bars = %v, err %v; want %v", bars, err, tt.want)
			}
			want := request{DefaultHistoryPath, "from=1684127160&resolution=1&symbol=Crypto.ETH%2FUSD&to=1684127279", "Bearer " + testKey}
			if len(*got) != 1 || (*got)[0] != want {
				t.Fatalf("requests = %+v, want [%+v]", *got, want)
			}
		})
	}
}

func TestWindowsOfSevenDays(t *testing.T) {
	srv, got := serve(t, 200, nil, []byte(`{"s":"no_data","nextTime":1684040760}`))
	src := newSource(t, srv.URL, map[string]string{"history_path": "/v1/real_time/history"})
	from := utc("2026-11-01T00:00:00Z")
	bars, err := src.Bars(context.Background(), "Equity.US.NVDA/USD", from, from.Add(10*24*time.Hour))
	if err != nil || bars == nil || len(bars) != 0 {
		t.Fatalf("bars %v err %v, want an empty slice", bars, err)
	}
	mid := from.Add(7 * 24 * time.Hour)
	want := []string{
		"from=" + itoa(from.Unix()) + "&resolution=1&symbol=Equity.US.NVDA%2FUSD&to=" + itoa(mid.Unix()-1),
		"from=" + itoa(mid.Unix()) + "&resolution=1&symbol=Equity.US.NVDA%2FUSD&to=" + itoa(from.Add(10*24*time.Hour).Unix()-1),
	}
	if len(*got) != 2 {
		t.Fatalf("requests = %+v", *got)
	}
	for i, r := range *got {
		if r.path != "/v1/real_time/history" || r.rawQuery != want[i] {
			t.Fatalf("request %d = %+v, want query %s", i, r, want[i])
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestFailures(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		header   http.Header
		body     string
		wantKind error
		retry    time.Duration
	}{
		{"429 Retry-After", 429, http.Header{"Retry-After": {"60"}}, ``, sources.ErrRateLimited, 60 * time.Second},
		{"401 no key", 401, nil, `{"error":"missing or invalid API key"}`, sources.ErrUnauthorized, 0},
		{"403 not entitled", 403, nil, `Not entitled: feed 1314`, sources.ErrUnauthorized, 0},
		{"404 retired shim", 404, nil, `{"detail":"Not Found"}`, sources.ErrBadResponse, 0},
		{"200 s error", 200, nil, `{"s":"error","errmsg":"Symbol not found: Equity.US.NVDX/USD"}`, sources.ErrUnknownSymbol, 0},
		{"200 truncated", 200, nil, `{"s":"ok","t":[1684127160],"c":[27296.3`, sources.ErrBadResponse, 0},
		{"200 null", 200, nil, `null`, sources.ErrBadResponse, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, tt.status, tt.header, []byte(tt.body))
			_, err := newSource(t, srv.URL, nil).Bars(context.Background(), "Equity.US.NVDA/USD", utc("2026-11-25T14:00:00Z"), utc("2026-11-25T15:00:00Z"))
			var e *sources.Error
			if !errors.As(err, &e) || !errors.Is(err, tt.wantKind) || e.Source != "pyth" || e.RetryAfter != tt.retry {
				t.Fatalf("err = %#v, want kind %v retry %v", err, tt.wantKind, tt.retry)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Fatalf("key in error %q", err)
			}
		})
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	srv, got := serve(t, 401, nil, []byte(`{"error":"API key `+testKey+` is expired"}`))
	_, err := newSource(t, srv.URL, nil).Bars(context.Background(), "Equity.US.NVDA/USD", utc("2026-11-25T14:00:00Z"), utc("2026-11-25T15:00:00Z"))
	if !errors.Is(err, sources.ErrUnauthorized) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains((*got)[0].rawQuery, testKey) {
		t.Fatalf("key in query %q", (*got)[0].rawQuery)
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	_, err = newSource(t, dead.URL, nil).Bars(context.Background(), "Equity.US.NVDA/USD", utc("2026-11-25T14:00:00Z"), utc("2026-11-25T15:00:00Z"))
	if !errors.Is(err, sources.ErrUnavailable) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
}

func TestNewAndCoverage(t *testing.T) {
	if _, err := New(sources.Settings{Name: "pyth", Type: "pyth"}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Fatalf("no key: err %v", err)
	}
	for wantKey, opts := range map[string]map[string]string{
		"history_path": {"history_path": "v1/history"},
		"channel":      {"channel": "real_time"},
	} {
		if _, err := New(sources.Settings{Name: "pyth", Key: "k", Options: opts}, sources.Deps{}); err == nil || !strings.Contains(err.Error(), wantKey) {
			t.Fatalf("%v: err %v, want one naming %s", opts, err, wantKey)
		}
	}
	src, err := New(sources.Settings{Name: "pyth", Key: "k"}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	cov := src.Coverage()
	if !slices.Equal(cov.Sessions, []market.Session{market.Overnight, market.Pre, market.Regular, market.Post}) ||
		cov.Lookback != 0 || cov.MaxWindow != 7*24*time.Hour || cov.Adjustment != sources.Raw || cov.Rate != DefaultRate {
		t.Fatalf("coverage = %+v", cov)
	}
	src, _ = New(sources.Settings{Name: "pyth", Key: "k", Rate: sources.Rate{N: 5, Per: time.Second}}, sources.Deps{})
	if src.Coverage().Rate != (sources.Rate{N: 5, Per: time.Second}) {
		t.Fatalf("rate from settings ignored: %+v", src.Coverage())
	}
	if f, ok := sources.Lookup("pyth"); !ok || !f.NeedsKey || f.DefaultRate != DefaultRate {
		t.Fatalf("pyth factory = %+v", f)
	}
}

// FuzzBody feeds bodies through the UDF parser pyth shares and the tidying Bars does, checking
// that what survives is well-formed.
func FuzzBody(f *testing.F) {
	for _, name := range []string{"pyth-benchmarks-tv-history-ok.json", "pyth-benchmarks-tv-history-empty.json", "pyth-benchmarks-tv-history-error.json"} {
		f.Add(readFile(f, name))
	}
	from, to := utc("2023-05-15T05:00:00Z"), utc("2023-05-15T06:00:00Z")
	f.Fuzz(func(t *testing.T, body []byte) {
		bars, err := udf.Parse(body)
		if err != nil {
			return
		}
		if sources.CheckAligned(bars) != nil {
			return
		}
		out := sources.Tidy(bars, from, to)
		for i, b := range out {
			if b.Start.Before(from) || !b.Start.Before(to) || b.Close <= 0 || (i > 0 && !out[i-1].Start.Before(b.Start)) {
				t.Fatalf("bad bars %v", out)
			}
		}
	})
}

// TestLive asks the real Pyth Pro History API for the last week of SPY when PRICERIG_LIVE=1 and
// PYTH_API_KEY are set. A trial key not entitled to the feed is reported, not failed.
func TestLive(t *testing.T) {
	key := os.Getenv("PYTH_API_KEY")
	if os.Getenv("PRICERIG_LIVE") != "1" || key == "" {
		t.Skip("set PRICERIG_LIVE=1 and PYTH_API_KEY to ask the live API")
	}
	src, err := New(sources.Settings{Name: "pyth", Type: "pyth", Key: key}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	to := time.Now().UTC().Truncate(time.Minute)
	from := to.Add(-7 * 24 * time.Hour)
	bars, err := src.Bars(context.Background(), "Equity.US.SPY/USD", from, to)
	if errors.Is(err, sources.ErrUnauthorized) {
		t.Skipf("key not entitled: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) == 0 {
		t.Fatal("no SPY bars in a week")
	}
	for i, b := range bars {
		if b.Start.Before(from) || !b.Start.Before(to) || b.Close <= 0 || (i > 0 && !bars[i-1].Start.Before(b.Start)) {
			t.Fatalf("bar %d = %+v out of order or window", i, b)
		}
	}
	t.Logf("%d bars, last %v at %s", len(bars), bars[len(bars)-1].Close, bars[len(bars)-1].Start)
}
