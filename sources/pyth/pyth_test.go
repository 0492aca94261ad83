package pyth

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

const testKey = "pyth-Pro-Key-9xZ"

var utc = adaptertest.UTC

type request struct {
	path, rawQuery, auth string
}

// requests are what a server was asked, with the Authorization header.
func requests(srv *adaptertest.Server) []request {
	var out []request
	for _, r := range srv.Requests() {
		out = append(out, request{r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization")})
	}
	return out
}

func newSource(t *testing.T, base string, opts map[string]string) sources.Source {
	t.Helper()
	src, err := factory.New(sources.Settings{Name: "pyth", Type: "pyth", BaseURL: base, Key: testKey, Retries: -1,
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
			srv := adaptertest.Serve(t, 200, nil, adaptertest.ReadFile(t, tt.file))
			bars, err := newSource(t, srv.URL, nil).Bars(context.Background(), "Crypto.ETH/USD", utc("2023-05-15T05:06:00Z"), utc("2023-05-15T05:08:00Z"))
			if tt.wantKind != nil {
				if !errors.Is(err, tt.wantKind) || !strings.Contains(err.Error(), "An error occured.") {
					t.Fatalf("err = %v, want %v with the provider's words", err, tt.wantKind)
				}
			} else if err != nil || bars == nil || !slices.Equal(bars, tt.want) {
				t.Fatalf("bars = %v, err %v; want %v", bars, err, tt.want)
			}
			want := request{DefaultHistoryPath, "from=1684127160&resolution=1&symbol=Crypto.ETH%2FUSD&to=1684127279", "Bearer " + testKey}
			if got := requests(srv); len(got) != 1 || got[0] != want {
				t.Fatalf("requests = %+v, want [%+v]", got, want)
			}
		})
	}
}

func TestWindowsOfSevenDays(t *testing.T) {
	srv := adaptertest.Serve(t, 200, nil, []byte(`{"s":"no_data","nextTime":1684040760}`))
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
	got := requests(srv)
	if len(got) != 2 {
		t.Fatalf("requests = %+v", got)
	}
	for i, r := range got {
		if r.path != "/v1/real_time/history" || r.rawQuery != want[i] {
			t.Fatalf("request %d = %+v, want query %s", i, r, want[i])
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestFailures(t *testing.T) {
	adaptertest.Failures{Source: "pyth", Key: testKey, Bars: func(t *testing.T, base string) error {
		_, err := newSource(t, base, nil).Bars(context.Background(), "Equity.US.NVDA/USD", utc("2026-11-25T14:00:00Z"), utc("2026-11-25T15:00:00Z"))
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "429 Retry-After", Status: 429, Header: http.Header{"Retry-After": {"60"}}, Kind: sources.ErrRateLimited, RetryAfter: 60 * time.Second},
		{Name: "401 no key", Status: 401, Body: `{"error":"missing or invalid API key"}`, Kind: sources.ErrUnauthorized},
		{Name: "403 not entitled", Status: 403, Body: `Not entitled: feed 1314`, Kind: sources.ErrUnauthorized},
		{Name: "404 retired shim", Status: 404, Body: `{"detail":"Not Found"}`, Kind: sources.ErrBadResponse},
		{Name: "200 s error", Status: 200, Body: `{"s":"error","errmsg":"Symbol not found: Equity.US.NVDX/USD"}`, Kind: sources.ErrUnknownSymbol},
		{Name: "200 truncated", Status: 200, Body: `{"s":"ok","t":[1684127160],"c":[27296.3`, Kind: sources.ErrBadResponse},
		{Name: "200 null", Status: 200, Body: `null`, Kind: sources.ErrBadResponse},
	}}.Run(t)
}

func TestKeyNeverInErrors(t *testing.T) {
	adaptertest.KeyNeverLeaks(t, adaptertest.Leak{
		Secrets: []string{testKey},
		Answers: []adaptertest.Answer{{Status: 401, Kind: sources.ErrUnauthorized,
			Body: func(*http.Request) string { return `{"error":"API key ` + testKey + ` is expired"}` }}},
		Header: "Authorization", HeaderValue: "Bearer " + testKey,
		Bars: func(t *testing.T, base string) error {
			_, err := newSource(t, base, nil).Bars(context.Background(), "Equity.US.NVDA/USD", utc("2026-11-25T14:00:00Z"), utc("2026-11-25T15:00:00Z"))
			return err
		},
	})
}

func TestNewAndCoverage(t *testing.T) {
	if _, err := factory.New(sources.Settings{Name: "pyth", Type: "pyth"}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Fatalf("no key: err %v", err)
	}
	adaptertest.Coverages(t, "pyth", sources.Settings{Name: "pyth", Key: "k"}, []adaptertest.OptionCase{
		{Options: map[string]string{"history_path": "v1/history"}, Bad: "history_path"},
		{Options: map[string]string{"channel": "real_time"}, Bad: "channel"},
		{Want: sources.Coverage{Sessions: []market.Session{market.Overnight, market.Pre, market.Regular, market.Post}, MaxWindow: 7 * 24 * time.Hour,
			Adjustment: sources.Raw, Rate: DefaultRate}},
	})
	adaptertest.RateReachesCoverage(t, "pyth", sources.Settings{Name: "pyth", Key: "k", Rate: sources.Rate{N: 5, Per: time.Second}})
	if f, ok := sources.Lookup("pyth"); !ok || !f.NeedsKey || f.DefaultRate != DefaultRate {
		t.Fatalf("pyth factory = %+v", f)
	}
}

// FuzzBody feeds bodies through the UDF parser pyth shares and the tidying Bars does, checking
// that what survives is well-formed.
func FuzzBody(f *testing.F) {
	for _, name := range []string{"pyth-benchmarks-tv-history-ok.json", "pyth-benchmarks-tv-history-empty.json", "pyth-benchmarks-tv-history-error.json"} {
		f.Add(adaptertest.ReadFile(f, name))
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
	key := adaptertest.Live(t, "Pyth Pro", "PYTH_API_KEY")[0]
	src, err := factory.New(sources.Settings{Name: "pyth", Type: "pyth", Key: key}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	to := time.Now().UTC().Truncate(time.Minute)
	adaptertest.AskLive(t, src, "Equity.US.SPY/USD", to.Add(-7*24*time.Hour), to, true)
}
