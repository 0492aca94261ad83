package feeds

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// recordedSpec has two sources of the real yahoo type; the tests point both at a server that
// answers with a recorded Yahoo body, so the reconciler runs on the provider's real bytes through
// the real adapter.
const recordedSpec = `version: 1
reconcile: {min_sources: 2, sessions: [pre, regular, post]}
sources:
  yahoo1: {type: yahoo, base_url: https://query1.finance.yahoo.com}
  yahoo2: {type: yahoo, base_url: https://query2.finance.yahoo.com}
feeds:
  AMZN: {yahoo1: AMZN, yahoo2: AMZN}
  AAPL: {yahoo1: AAPL, yahoo2: AAPL}
`

func recorded(t *testing.T, file string, status int, now time.Time) *Reconciler {
	t.Helper()
	body, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(ts.Close)
	spec, err := Load([]byte(recordedSpec), LoadOptions{Getenv: func(string) string { return "" }, BaseURLs: map[string]string{"yahoo": ts.URL}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range spec.Sources {
		spec.Sources[i].Retries = -1                                      // no retries: a recorded error is final
		spec.Sources[i].Rate = sources.Rate{N: 1 << 30, Per: time.Second} // no pacing between the two requests
	}
	clock := &fakeClock{now: now}
	r, err := New(spec, Deps{Deps: sources.Deps{Now: clock.Now}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRecordedYahooBody(t *testing.T) {
	// AMZN on 2023-05-02: 1-minute closes printed as widened float32s (103.66000366210938).
	now := mustTime("2023-05-03T12:00:00Z")
	tests := []struct {
		minute, want, bar string
		status            Status
	}{
		{"2023-05-02T19:59:00Z", "103.66", "2023-05-02T19:59:00Z", StatusOK}, // the last regular minute
		{"2023-05-02T19:45:00Z", "", "2023-05-02T19:45:00Z", StatusOK},       // mid-window
		// post: the body's 16:00 bar is Yahoo's synthetic volume-0 echo of the close, which the
		// adapter drops, so the carry is the 15:59 bar
		{"2023-05-02T20:10:00Z", "103.66", "2023-05-02T19:59:00Z", StatusCarried},
	}
	for _, tc := range tests {
		t.Run(tc.minute, func(t *testing.T) {
			r := recorded(t, "yahoo-chart-1m-amzn-range30m.json", 200, now)
			res, err := r.Price(context.Background(), "AMZN", mustTime(tc.minute), WaitAll())
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range res.Quotes {
				if q.Status != tc.status || !q.BarTime.Equal(mustTime(tc.bar)) {
					t.Errorf("%s: %s at %s, want %s at %s", q.Source, q.Status, q.BarTime, tc.status, tc.bar)
				}
				// a canonical float32 has at most 4 decimals here: no float64 noise got through
				if s := q.Price.String(); len(s[strings.Index(s, ".")+1:]) > 4 {
					t.Errorf("%s: %s is a widened float, not the provider's price", q.Source, s)
				}
			}
			if tc.want != "" && res.Price != numeric.MustPrice(tc.want) {
				t.Errorf("answer %s, want %s", res.Price, tc.want)
			}
		})
	}
}

func TestRecordedYahooEmptyWeekend(t *testing.T) {
	// Yahoo's answer for a window with no trades: HTTP 200, no timestamp key. That is no data,
	// not a broken source.
	r := recorded(t, "yahoo-chart-1m-weekend-empty.body.json", 200, mustTime("2025-02-03T12:00:00Z"))
	res, err := r.Price(context.Background(), "AAPL", mustTime("2025-02-01T15:30:00Z"), WaitAll())
	if !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("err %v", err)
	}
	for _, q := range res.Quotes {
		if q.Status != StatusNoData {
			t.Errorf("%s: %s (%s), want no_data", q.Source, q.Status, q.Err)
		}
	}
}

func TestRecordedYahooNotFound(t *testing.T) {
	r := recorded(t, "yahoo-chart-error-404-not-found.json", 404, mustTime("2023-05-03T12:00:00Z"))
	res, err := r.Price(context.Background(), "AMZN", mustTime("2023-05-02T19:59:00Z"), WaitAll())
	if !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("err %v", err)
	}
	for _, q := range res.Quotes {
		if q.Status != StatusError || !strings.Contains(q.Err, "symbol may be delisted") {
			t.Errorf("%s: %s %q", q.Source, q.Status, q.Err)
		}
	}
}
