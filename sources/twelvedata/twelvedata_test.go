package twelvedata

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

const fakeKey = "tw3lve-FAKE-key-0c4f-LEAK"

func newSource(t testing.TB, base string, now time.Time, s sources.Settings) *Source {
	t.Helper()
	s.BaseURL = base
	if s.Key == "" {
		s.Key = fakeKey
	}
	src, err := factory.New(s, sources.Deps{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	td := src.(*Source)
	td.Client().Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return td
}

func TestParseRecordedBodies(t *testing.T) {
	// The AAPL sample was asked without timezone=: its datetimes are New York wall clock
	// (meta.exchange_timezone), newest first. 11:09 EDT is 15:09 UTC.
	bars, n, err := parse(adaptertest.ReadFile(t, "twelvedata-time-series-1min-aapl.json"), "AAPL", nil)
	if err != nil || n != 30 {
		t.Fatalf("%v, %d values", err, n)
	}
	want := []struct {
		start  string
		close  numeric.Scaled
		volume int64
	}{
		{"2023-08-24T15:09:00Z", 17800121000, 293189},
		{"2023-08-24T15:08:00Z", 17788000000, 143249},
		{"2023-08-24T15:07:00Z", 17774500000, 57897},
		{"2023-08-24T15:06:00Z", 17774001000, 119186},
		{"2023-08-24T15:05:00Z", 17788000000, 143464},
		{"2023-08-24T15:04:00Z", 17794000000, 95722},
		{"2023-08-24T15:03:00Z", 17778000000, 65281},
		{"2023-08-24T15:02:00Z", 17785899000, 62373},
		{"2023-08-24T15:01:00Z", 17780499000, 127906},
		{"2023-08-24T15:00:00Z", 17775999000, 170797},
		{"2023-08-24T14:59:00Z", 17789000000, 104104},
		{"2023-08-24T14:58:00Z", 17811501000, 97989},
		{"2023-08-24T14:57:00Z", 17825900000, 130845},
		{"2023-08-24T14:56:00Z", 17827499000, 75952},
		{"2023-08-24T14:55:00Z", 17826500000, 60764},
		{"2023-08-24T14:54:00Z", 17820770000, 105089},
		{"2023-08-24T14:53:00Z", 17828000000, 127884},
		{"2023-08-24T14:52:00Z", 17810001000, 105334},
		{"2023-08-24T14:51:00Z", 17811760000, 143380},
		{"2023-08-24T14:50:00Z", 17803999000, 103858},
		{"2023-08-24T14:49:00Z", 17786000000, 141962},
		{"2023-08-24T14:48:00Z", 17794501000, 97955},
		{"2023-08-24T14:47:00Z", 17792010000, 120554},
		{"2023-08-24T14:46:00Z", 17781500000, 101057},
		{"2023-08-24T14:45:00Z", 17775000000, 130006},
		{"2023-08-24T14:44:00Z", 17778889000, 208785},
		{"2023-08-24T14:43:00Z", 17771001000, 184111},
		{"2023-08-24T14:42:00Z", 17785001000, 293147},
		{"2023-08-24T14:41:00Z", 17807001000, 104754},
		{"2023-08-24T14:40:00Z", 17807001000, 175143},
	}
	if len(bars) != len(want) {
		t.Fatalf("%d bars, want %d", len(bars), len(want))
	}
	for i, w := range want {
		start, _ := time.Parse(time.RFC3339, w.start)
		if !bars[i].Start.Equal(start) || bars[i].Start.Location() != time.UTC || bars[i].Close != w.close || bars[i].Volume != w.volume {
			t.Errorf("bar %d = %s %d %d, want %s %d %d", i, bars[i].Start.Format(time.RFC3339), bars[i].Close, bars[i].Volume, w.start, w.close, w.volume)
		}
	}
	// Read as if asked with timezone=UTC, the same text is four hours earlier.
	utc, _, err := parse(adaptertest.ReadFile(t, "twelvedata-time-series-1min-aapl.json"), "AAPL", time.UTC)
	if err != nil || !utc[0].Start.Equal(time.Date(2023, 8, 24, 11, 9, 0, 0, time.UTC)) {
		t.Errorf("UTC reading: %v %v", utc[0], err)
	}
	bars, n, err = parse(adaptertest.ReadFile(t, "twelvedata-error-no-data.json"), "AAPL", time.UTC)
	if err != nil || bars == nil || len(bars) != 0 || n != 0 {
		t.Errorf("no-data body: %v %v, want an empty window", bars, err)
	}
}

func TestParseMalformed(t *testing.T) {
	sample := string(adaptertest.ReadFile(t, "twelvedata-time-series-1min-aapl.json"))
	series := func(sym, values string) string {
		return `{"meta":{"symbol":"` + sym + `","interval":"1min","exchange_timezone":"America/New_York"},"values":` + values + `,"status":"ok"}`
	}
	cases := []struct {
		name   string
		body   string
		kind   error
		closes []numeric.Scaled
	}{
		{"truncated", sample[:len(sample)/2], sources.ErrBadResponse, nil},
		{"empty", "", sources.ErrBadResponse, nil},
		{"not json", "Bad Gateway", sources.ErrBadResponse, nil},
		{"no data is an empty window", `{"code":400,"message":"No data is available on the specified dates. Try setting different start/end dates.","status":"error"}`, nil, []numeric.Scaled{}},
		{"401 in a 200", `{"code":401,"message":"apikey parameter is incorrect or not specified.","status":"error"}`, sources.ErrUnauthorized, nil},
		{"403 in a 200", `{"code":403,"message":"This symbol is available starting with Grow plan.","status":"error"}`, sources.ErrUnauthorized, nil},
		{"429 in a 200", `{"code":429,"message":"You have run out of API credits for the current minute. 9 API credits were used, with the current limit being 8.","status":"error"}`, sources.ErrRateLimited, nil},
		{"500 in a 200", `{"code":500,"message":"We are having an internal error.","status":"error"}`, sources.ErrUnavailable, nil},
		{"symbol invalid", `{"code":400,"message":"**symbol** parameter is missing or invalid.","status":"error"}`, sources.ErrUnknownSymbol, nil},
		{"symbol not found", `{"code":404,"message":"**symbol** not found: NVDAX.","status":"error"}`, sources.ErrUnknownSymbol, nil},
		{"other 400", `{"code":400,"message":"**outputsize** parameter must be between 1 and 5000","status":"error"}`, sources.ErrBadResponse, nil},
		{"unknown status", `{"status":"maybe"}`, sources.ErrBadResponse, nil},
		{"no meta", `{"values":[],"status":"ok"}`, sources.ErrBadResponse, nil},
		{"wrong symbol", series("TSLA", `[{"datetime":"2026-09-01 13:30:00","close":"1.5","volume":"1"}]`), sources.ErrBadResponse, nil},
		{"empty values", series("NVDA", `[]`), nil, []numeric.Scaled{}},
		{"null close skipped", series("NVDA", `[{"datetime":"2026-09-01 13:30:00","close":null},{"datetime":"2026-09-01 13:31:00","close":"2.5","volume":"1"}]`), nil, []numeric.Scaled{250000000}},
		{"numbers as numbers", series("NVDA", `[{"datetime":"2026-09-01 13:30:00","close":2.5,"volume":7}]`), nil, []numeric.Scaled{250000000}},
		{"bad datetime", series("NVDA", `[{"datetime":"2026-09-01T13:30:00Z","close":"2.5"}]`), sources.ErrBadResponse, nil},
		{"datetime off the minute", series("NVDA", `[{"datetime":"2026-09-01 13:30:30","close":"2.5"}]`), sources.ErrBadResponse, nil},
		{"close a word", series("NVDA", `[{"datetime":"2026-09-01 13:30:00","close":"n/a"}]`), sources.ErrBadResponse, nil},
		{"negative close", series("NVDA", `[{"datetime":"2026-09-01 13:30:00","close":"-1"}]`), sources.ErrBadResponse, nil},
		{"volume a word", series("NVDA", `[{"datetime":"2026-09-01 13:30:00","close":"1","volume":"x"}]`), sources.ErrBadResponse, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bars, _, err := parse([]byte(tc.body), "NVDA", time.UTC)
			adaptertest.CheckCloses(t, bars, err, tc.kind, tc.closes)
		})
	}
	// a zone that does not exist
	bad := strings.Replace(sample, "America/New_York", "Mars/Olympus", 1)
	if _, _, err := parse([]byte(bad), "AAPL", nil); !errors.Is(err, sources.ErrBadResponse) {
		t.Errorf("unknown exchange zone: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(adaptertest.ReadFile(f, "twelvedata-time-series-1min-aapl.json"), "AAPL", false)
	f.Add(adaptertest.ReadFile(f, "twelvedata-error-no-data.json"), "AAPL", true)
	f.Fuzz(func(t *testing.T, b []byte, symbol string, utc bool) {
		var loc *time.Location
		if utc {
			loc = time.UTC
		}
		bars, _, err := parse(b, symbol, loc)
		adaptertest.Fuzzed(t, bars, err, true)
	})
}

func tapeClose(m time.Time) string { return fmt.Sprintf("%d.%05d", 400+m.Hour(), m.Unix()/60%100000) }

// seriesServer serves time_series over a made-up tape of one bar per regular-session minute, in
// the zone asked for, both dates inclusive, the latest pageSize bars of a window as Twelve Data
// does, and a no-data error for a window without bars.
type seriesServer struct {
	mu      sync.Mutex
	queries []url.Values
}

func (s *seriesServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.queries = append(s.queries, q)
	s.mu.Unlock()
	if q.Get("apikey") != fakeKey {
		fmt.Fprint(w, `{"code":401,"message":"apikey parameter is incorrect or not specified.","status":"error"}`)
		return
	}
	loc := market.NewYork
	if q.Get("timezone") == "UTC" {
		loc = time.UTC
	}
	start, _ := time.ParseInLocation(dateLayout, q.Get("start_date"), loc)
	end, _ := time.ParseInLocation(dateLayout, q.Get("end_date"), loc)
	var vals []string
	for m := start.Truncate(time.Minute); !m.After(end); m = m.Add(time.Minute) {
		if m.Before(start) || !market.InSessions(m, []market.Session{market.Regular}) {
			continue
		}
		vals = append(vals, fmt.Sprintf(`{"datetime":%q,"open":"1","high":"2","low":"0.5","close":%q,"volume":"%d"}`,
			m.In(loc).Format(dateLayout), tapeClose(m.UTC()), m.Minute()+1))
	}
	if len(vals) == 0 {
		fmt.Fprint(w, `{"code":400,"message":"No data is available on the specified dates. Try setting different start/end dates.","status":"error"}`)
		return
	}
	if size, _ := strconv.Atoi(q.Get("outputsize")); len(vals) > size {
		vals = vals[len(vals)-size:]
	}
	fmt.Fprintf(w, `{"meta":{"symbol":%q,"interval":"1min","currency":"USD","exchange_timezone":"America/New_York","exchange":"NASDAQ"},"values":[%s],"status":"ok"}`,
		q.Get("symbol"), strings.Join(vals, ","))
}

func regularMinutes(from, to time.Time) []time.Time {
	var out []time.Time
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		if market.InSessions(m, []market.Session{market.Regular}) {
			out = append(out, m)
		}
	}
	return out
}

func TestBarsWindowsAndQuery(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts map[string]string
		loc  *time.Location
	}{
		{"utc", nil, time.UTC},
		{"exchange", map[string]string{"timezone": "exchange"}, market.NewYork},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &seriesServer{}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			now := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
			src := newSource(t, ts.URL, now, sources.Settings{Options: tc.opts})
			from := time.Date(2026, 9, 1, 14, 0, 0, 0, time.UTC)
			to := from.Add(10 * 24 * time.Hour)
			bars, err := src.Bars(context.Background(), "NVDA", from, to)
			if err != nil {
				t.Fatal(err)
			}
			mins := regularMinutes(from, to)
			if len(bars) != len(mins) {
				t.Fatalf("%d bars, want %d", len(bars), len(mins))
			}
			for i, m := range mins {
				if !bars[i].Start.Equal(m) || bars[i].Close != numeric.MustPrice(tapeClose(m)) {
					t.Fatalf("bar %d = %+v, want %s at %s", i, bars[i], tapeClose(m), m)
				}
			}
			week := from.Add(7 * 24 * time.Hour)
			wants := []url.Values{
				{"symbol": {"NVDA"}, "interval": {"1min"}, "start_date": {from.In(tc.loc).Format(dateLayout)}, "end_date": {week.Add(-time.Second).In(tc.loc).Format(dateLayout)},
					"order": {"asc"}, "adjust": {"none"}, "outputsize": {"5000"}, "apikey": {fakeKey}},
				{"symbol": {"NVDA"}, "interval": {"1min"}, "start_date": {week.In(tc.loc).Format(dateLayout)}, "end_date": {to.Add(-time.Second).In(tc.loc).Format(dateLayout)},
					"order": {"asc"}, "adjust": {"none"}, "outputsize": {"5000"}, "apikey": {fakeKey}},
			}
			if len(srv.queries) != len(wants) {
				t.Fatalf("%d requests, want %d", len(srv.queries), len(wants))
			}
			for i, w := range wants {
				if tc.loc == time.UTC {
					w.Set("timezone", "UTC")
				}
				if srv.queries[i].Encode() != w.Encode() {
					t.Errorf("request %d:\n got %s\nwant %s", i, srv.queries[i].Encode(), w.Encode())
				}
			}
		})
	}
}

func TestBarsPagesBackwardWhenAPageIsFull(t *testing.T) {
	srv := &seriesServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	now := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{})
	src.pageSize = 150
	from := time.Date(2026, 9, 1, 13, 30, 0, 0, time.UTC) // 09:30 EDT
	to := from.Add(390 * time.Minute)
	bars, err := src.Bars(context.Background(), "NVDA", from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) != 390 || !bars[0].Start.Equal(from) || !bars[389].Start.Equal(to.Add(-time.Minute)) {
		t.Fatalf("%d bars from %v", len(bars), bars[0].Start)
	}
	// 390 bars in pages of the latest 150: ends at 19:59:59, then before 17:30, then before 15:00
	ends := []string{"2026-09-01 19:59:59", "2026-09-01 17:29:59", "2026-09-01 14:59:59"}
	if len(srv.queries) != len(ends) {
		t.Fatalf("%d requests, want %d", len(srv.queries), len(ends))
	}
	for i, e := range ends {
		if got := srv.queries[i].Get("end_date"); got != e || srv.queries[i].Get("start_date") != "2026-09-01 13:30:00" {
			t.Errorf("request %d: %s … %s, want … %s", i, srv.queries[i].Get("start_date"), got, e)
		}
	}
}

func TestBarsEmptyWindowAndInProgress(t *testing.T) {
	ts := httptest.NewServer(&seriesServer{})
	defer ts.Close()
	now := time.Date(2026, 9, 1, 14, 0, 30, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{})
	sat := time.Date(2026, 9, 5, 13, 30, 0, 0, time.UTC)
	if bars, err := src.Bars(context.Background(), "NVDA", sat, sat.Add(6*time.Hour)); err != nil || bars == nil || len(bars) != 0 {
		t.Errorf("Saturday: %v %v, want an empty window", bars, err)
	}
	bars, err := src.Bars(context.Background(), "NVDA", now.Truncate(time.Minute).Add(-10*time.Minute), now.Add(time.Hour))
	if err != nil || len(bars) != 10 || !bars[9].Start.Equal(time.Date(2026, 9, 1, 13, 59, 0, 0, time.UTC)) {
		t.Errorf("bars %v %v, want 13:50–13:59", bars, err)
	}
}

func TestBarsHTTPFailures(t *testing.T) {
	now := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	adaptertest.Failures{Source: "td", Key: fakeKey, Bars: func(t *testing.T, base string) error {
		_, err := newSource(t, base, now, sources.Settings{Name: "td", Retries: -1}).Bars(context.Background(), "NVDA", now.Add(-time.Hour), now)
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "429 with Retry-After", Status: 429, Header: http.Header{"Retry-After": {"33"}}, Body: `{"code":429,"message":"You have run out of API credits for the current minute.","status":"error"}`, Kind: sources.ErrRateLimited, RetryAfter: 33 * time.Second},
		{Name: "401", Status: 401, Body: `{"code":401,"message":"apikey parameter is incorrect","status":"error"}`, Kind: sources.ErrUnauthorized},
		{Name: "403 text", Status: 403, Body: `Forbidden`, Kind: sources.ErrUnauthorized},
		{Name: "404 symbol", Status: 404, Body: `{"code":404,"message":"**symbol** not found","status":"error"}`, Kind: sources.ErrUnknownSymbol},
		{Name: "503", Status: 503, Body: `down`, Kind: sources.ErrUnavailable},
		{Name: "200 rate limited", Status: 200, Body: `{"code":429,"message":"You have run out of API credits for the current minute.","status":"error"}`, Kind: sources.ErrRateLimited},
	}}.Run(t)
}

func TestKeyNeverInErrors(t *testing.T) {
	now := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	adaptertest.KeyNeverLeaks(t, adaptertest.Leak{
		Secrets: []string{fakeKey},
		Answers: adaptertest.Echo(func(status int, r *http.Request) string {
			return fmt.Sprintf(`{"code":%d,"message":"you asked %s","status":"error"}`, status, r.URL.String())
		}, 200, 400, 401, 403, 404, 429, 500),
		Bars: func(t *testing.T, base string) error {
			_, err := newSource(t, base, now, sources.Settings{Retries: -1}).Bars(context.Background(), "NVDA", now.Add(-time.Hour), now)
			return err
		},
	})
}

func TestFactoryAndCoverage(t *testing.T) {
	f, ok := sources.Lookup(Type)
	if !ok || !f.NeedsKey || f.DefaultRate != DefaultRate || f.Options["timezone"] == "" || f.Options["prepost"] == "" {
		t.Fatalf("registration: %+v %v", f, ok)
	}
	if _, err := f.New(sources.Settings{}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Errorf("no key: %v", err)
	}
	cov := func(sessions ...market.Session) sources.Coverage {
		return sources.Coverage{Sessions: sessions, MaxWindow: 7 * 24 * time.Hour, Adjustment: sources.Raw, Rate: sources.Rate{N: 8, Per: time.Minute}, Page: 5000}
	}
	adaptertest.Coverages(t, Type, sources.Settings{Key: "k"}, []adaptertest.OptionCase{
		{Options: nil, Want: cov(market.Regular)},
		{Options: map[string]string{"timezone": "UTC"}, Want: cov(market.Regular)},
		{Options: map[string]string{"timezone": "exchange", "prepost": "true"}, Want: cov(market.Pre, market.Regular, market.Post)},
		{Options: map[string]string{"timezone": "Europe/Paris"}, Bad: "timezone"},
		{Options: map[string]string{"prepost": "sometimes"}, Bad: "prepost"},
		{Options: map[string]string{"adjust": "splits"}, Bad: "adjust"},
	})
	adaptertest.RateReachesCoverage(t, Type, sources.Settings{Key: "k", Rate: sources.Rate{N: 55, Per: time.Minute}})
}

// TestLive asks the real Twelve Data. It runs only with PRICERIG_LIVE=1 and TWELVEDATA_API_KEY.
func TestLive(t *testing.T) {
	key := adaptertest.Live(t, "Twelve Data", "TWELVEDATA_API_KEY")[0]
	src, err := factory.New(sources.Settings{Key: key}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2024, 6, 10, 13, 30, 0, 0, time.UTC)
	adaptertest.AskLive(t, src, "NVDA", from, from.Add(30*time.Minute), false)
}

// TestBarErrorsNameTheValue pins the words of a bad close's and a bad volume's error, which the
// shared sources.ParseBar now builds: the value's datetime, then the field.
func TestBarErrorsNameTheValue(t *testing.T) {
	const value = `{"meta":{"symbol":"NVDA"},"status":"ok","values":[{"datetime":"2026-09-01 13:30:00",%s}]}`
	for fields, want := range map[string]string{
		`"close":"n/a","volume":"1"`: "value 2026-09-01 13:30:00: close: ",
		`"close":"1","volume":"x"`:   `value 2026-09-01 13:30:00: volume "\"x\"" is not a number`,
	} {
		_, _, err := parse([]byte(fmt.Sprintf(value, fields)), "NVDA", time.UTC)
		if !errors.Is(err, sources.ErrBadResponse) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", fields, err, want)
		}
	}
}
