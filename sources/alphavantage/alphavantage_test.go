package alphavantage

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

const fakeKey = "AVfake0KEY9LEAKME"

func newSource(t testing.TB, base string, now time.Time, s sources.Settings, logger *slog.Logger) *Source {
	t.Helper()
	s.BaseURL = base
	if s.Key == "" {
		s.Key = fakeKey
	}
	src, err := factory.New(s, sources.Deps{Now: func() time.Time { return now }, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	av := src.(*Source)
	av.Client().Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return av
}

func sorted(b []sources.Bar) []sources.Bar {
	sort.Slice(b, func(i, j int) bool { return b[i].Start.Before(b[j].Start) })
	return b
}

func TestParseMSFT2017(t *testing.T) {
	// 100 consecutive minutes, 13:17–14:56 EST (UTC−5) on 2017-12-18; closes and volumes in time order
	want := []struct {
		close  numeric.Scaled
		volume int64
	}{
		{8680000000, 31172}, {8682500000, 17045}, {8681500000, 10418}, {8681000000, 47049}, {8684000000, 15748},
		{8682000000, 12521}, {8680000000, 51776}, {8681500000, 28164}, {8682000000, 34892}, {8685000000, 15703},
		{8685000000, 16420}, {8685000000, 15601}, {8687000000, 22407}, {8685500000, 13419}, {8686500000, 31446},
		{8685500000, 15743}, {8686500000, 7797}, {8684000000, 14919}, {8681500000, 26777}, {8683500000, 37595},
		{8682000000, 22014}, {8681500000, 32427}, {8681000000, 15688}, {8678000000, 40516}, {8674500000, 32862},
		{8676000000, 29465}, {8677500000, 27863}, {8676350000, 23181}, {8674440000, 34219}, {8674500000, 10429},
		{8673990000, 28102}, {8676500000, 30973}, {8673000000, 31835}, {8671000000, 30717}, {8670500000, 30702},
		{8670400000, 18660}, {8670000000, 51894}, {8672000000, 17963}, {8669010000, 24852}, {8671500000, 9981},
		{8670000000, 25868}, {8671000000, 39065}, {8668100000, 17935}, {8669000000, 11138}, {8668500000, 25148},
		{8669000000, 21805}, {8668000000, 22099}, {8664000000, 38827}, {8664500000, 41276}, {8666000000, 20101},
		{8666000000, 19062}, {8665500000, 31405}, {8664000000, 24348}, {8663000000, 23357}, {8662000000, 41132},
		{8662100000, 10754}, {8666500000, 28825}, {8664000000, 13146}, {8662500000, 25673}, {8662000000, 13980},
		{8664000000, 30134}, {8662500000, 32280}, {8664500000, 20805}, {8665500000, 11423}, {8662290000, 16100},
		{8660000000, 40992}, {8656000000, 63759}, {8654000000, 24014}, {8661000000, 22145}, {8658500000, 40130},
		{8655500000, 44280}, {8654500000, 14820}, {8656000000, 29226}, {8656000000, 32426}, {8654000000, 22179},
		{8655000000, 17290}, {8657000000, 24647}, {8658000000, 19389}, {8656620000, 104511}, {8654500000, 16580},
		{8653000000, 31036}, {8652500000, 3537}, {8658500000, 48640}, {8657000000, 22129}, {8656500000, 30282},
		{8654500000, 6200}, {8650000000, 69231}, {8650000000, 24869}, {8651000000, 23785}, {8650150000, 10180},
		{8650500000, 14491}, {8650550000, 9765}, {8650500000, 17719}, {8652500000, 29096}, {8650500000, 13552},
		{8649900000, 59822}, {8647000000, 13249}, {8649310000, 24345}, {8650000000, 12682}, {8650000000, 10494},
	}
	for _, tc := range []struct {
		end   bool
		first time.Time
	}{
		{false, time.Date(2017, 12, 18, 18, 17, 0, 0, time.UTC)}, // "13:17:00" is the bar 13:17–13:18 EST
		{true, time.Date(2017, 12, 18, 18, 16, 0, 0, time.UTC)},  // "13:17:00" is the bar 13:16–13:17 EST
	} {
		bars, warning, err := parse(adaptertest.ReadFile(t, "alphavantage-intraday-1min-msft-2017.json"), "MSFT", tc.end)
		if err != nil || warning != "" {
			t.Fatalf("end=%v: %v %q", tc.end, err, warning)
		}
		bars = sorted(bars)
		if len(bars) != len(want) {
			t.Fatalf("end=%v: %d bars, want %d", tc.end, len(bars), len(want))
		}
		for i, w := range want {
			start := tc.first.Add(time.Duration(i) * time.Minute)
			if b := bars[i]; !b.Start.Equal(start) || b.Start.Location() != time.UTC || b.Close != w.close || b.Volume != w.volume {
				t.Errorf("end=%v bar %d = %s %d %d, want %s %d %d", tc.end, i, b.Start.Format(time.RFC3339), b.Close, b.Volume, start.Format(time.RFC3339), w.close, w.volume)
			}
		}
	}
}

// csvAsJSON turns the recorded extended-history CSV (time,open,high,low,close,volume) into the
// JSON shape parse reads, so the label evidence in it can be read by the adapter itself.
func csvAsJSON(t *testing.T, symbol string) []byte {
	rows, err := csv.NewReader(bytes.NewReader(adaptertest.ReadFile(t, "alphavantage-intraday-extended-1min-head.csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]map[string]string{}
	for _, r := range rows[1:] {
		series[r[0]] = map[string]string{"1. open": r[1], "2. high": r[2], "3. low": r[3], "4. close": r[4], "5. volume": r[5]}
	}
	b, _ := json.Marshal(map[string]any{"Meta Data": map[string]string{"2. Symbol": symbol, "4. Interval": "1min", "6. Time Zone": "US/Eastern"}, "Time Series (1min)": series})
	return b
}

// TestLabelEvidence reads the recorded 2020 CSV: its newest key is 20:00:00, which only an
// END-labelled series can have (extended hours end at 20:00). Read with label: end it is the
// 19:59 bar and no warning; read with the default start label the adapter warns.
func TestLabelEvidence(t *testing.T) {
	body := csvAsJSON(t, "X")
	bars, warning, err := parse(body, "X", true)
	if err != nil || warning != "" {
		t.Fatalf("end: %v %q", err, warning)
	}
	bars = sorted(bars)
	last := bars[len(bars)-1]
	if want := time.Date(2020, 12, 19, 0, 59, 0, 0, time.UTC); !last.Start.Equal(want) || last.Close != 21875000000 || last.Volume != 1102 {
		t.Errorf("last bar %+v, want 19:59 EST (%s) at 218.75", last, want)
	}
	if len(bars) != 25 {
		t.Errorf("%d bars, want 25", len(bars))
	}
	if _, warning, _ := parse(body, "X", false); !strings.Contains(warning, "END-labelled") {
		t.Errorf("start reading of an end-labelled body: warning %q", warning)
	}
	startLabelled := []byte(`{"Meta Data":{"2. Symbol":"X"},"Time Series (1min)":{"2024-10-30 04:00:00":{"4. close":"1.5"}}}`)
	if _, warning, _ := parse(startLabelled, "X", true); !strings.Contains(warning, "START-labelled") {
		t.Errorf("end reading of a 04:00 key: warning %q", warning)
	}
}

func TestParseMalformed(t *testing.T) {
	sample := string(adaptertest.ReadFile(t, "alphavantage-intraday-1min-msft-2017.json"))
	series := func(sym, entries string) string {
		return `{"Meta Data":{"2. Symbol":"` + sym + `","4. Interval":"1min","6. Time Zone":"US/Eastern"},"Time Series (1min)":{` + entries + `}}`
	}
	cases := []struct {
		name   string
		body   string
		kind   error
		closes []numeric.Scaled
	}{
		{"truncated", sample[:len(sample)/2], sources.ErrBadResponse, nil},
		{"empty", "", sources.ErrBadResponse, nil},
		{"csv instead of json", string(adaptertest.ReadFile(t, "alphavantage-intraday-extended-1min-head.csv")), sources.ErrBadResponse, nil},
		{"daily limit", `{"Information":"Thank you for using Alpha Vantage! Our standard API rate limit is 25 requests per day. Please subscribe to any of the premium plans at https://www.alphavantage.co/premium/ to instantly remove all daily rate limits."}`, sources.ErrRateLimited, nil},
		{"old note", `{"Note":"Thank you for using Alpha Vantage! Our standard API call frequency is 5 calls per minute and 500 calls per day."}`, sources.ErrRateLimited, nil},
		{"premium endpoint", `{"Information":"Thank you for using Alpha Vantage! This is a premium endpoint. You may subscribe to any of the premium plans at https://www.alphavantage.co/premium/ to instantly unlock all premium endpoints"}`, sources.ErrUnauthorized, nil},
		{"invalid call", `{"Error Message":"Invalid API call. Please retry or visit the documentation (https://www.alphavantage.co/documentation/) for TIME_SERIES_INTRADAY."}`, sources.ErrUnknownSymbol, nil},
		{"bad key", `{"Error Message":"the parameter apikey is invalid or missing. Please claim your free API key on (https://www.alphavantage.co/support/#api-key)."}`, sources.ErrUnauthorized, nil},
		{"other error", `{"Error Message":"This API function (X) does not exist."}`, sources.ErrBadResponse, nil},
		{"no series key", `{"Meta Data":{"2. Symbol":"NVDA"}}`, sources.ErrBadResponse, nil},
		{"nothing at all", `{}`, sources.ErrBadResponse, nil},
		{"no meta", `{"Time Series (1min)":{"2026-09-01 09:30:00":{"4. close":"1"}}}`, sources.ErrBadResponse, nil},
		{"wrong symbol", series("TSLA", `"2026-09-01 09:30:00":{"4. close":"1.5"}`), sources.ErrBadResponse, nil},
		{"symbol case differs", series("nvda", `"2026-09-01 09:30:00":{"4. close":"1.5"}`), nil, []numeric.Scaled{150000000}},
		{"5min series", `{"Meta Data":{"2. Symbol":"NVDA","4. Interval":"5min"},"Time Series (1min)":{}}`, sources.ErrBadResponse, nil},
		{"unknown zone", `{"Meta Data":{"2. Symbol":"NVDA","6. Time Zone":"US/Nowhere"},"Time Series (1min)":{}}`, sources.ErrBadResponse, nil},
		{"empty series", series("NVDA", ``), nil, []numeric.Scaled{}},
		{"null series", `{"Meta Data":{"2. Symbol":"NVDA"},"Time Series (1min)":null}`, sources.ErrBadResponse, nil},
		{"null close skipped", series("NVDA", `"2026-09-01 09:30:00":{"4. close":null},"2026-09-01 09:31:00":{"4. close":"2.5","5. volume":"3"}`), nil, []numeric.Scaled{250000000}},
		{"numbers as numbers", series("NVDA", `"2026-09-01 09:30:00":{"4. close":2.5,"5. volume":3}`), nil, []numeric.Scaled{250000000}},
		{"key with seconds", series("NVDA", `"2026-09-01 09:30:30":{"4. close":"2.5"}`), sources.ErrBadResponse, nil},
		{"key not a time", series("NVDA", `"yesterday":{"4. close":"2.5"}`), sources.ErrBadResponse, nil},
		{"entry not an object", series("NVDA", `"2026-09-01 09:30:00":"2.5"`), sources.ErrBadResponse, nil},
		{"close a word", series("NVDA", `"2026-09-01 09:30:00":{"4. close":"n/a"}`), sources.ErrBadResponse, nil},
		{"negative close", series("NVDA", `"2026-09-01 09:30:00":{"4. close":"-2.5"}`), sources.ErrBadResponse, nil},
		{"volume a word", series("NVDA", `"2026-09-01 09:30:00":{"4. close":"2.5","5. volume":"many"}`), sources.ErrBadResponse, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bars, _, err := parse([]byte(tc.body), "NVDA", false)
			adaptertest.CheckCloses(t, sorted(bars), err, tc.kind, tc.closes)
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(adaptertest.ReadFile(f, "alphavantage-intraday-1min-msft-2017.json"), "MSFT", false)
	f.Add([]byte(`{"Information":"rate limit"}`), "NVDA", true)
	f.Add([]byte(`{"Meta Data":{"2. Symbol":"NVDA"},"Time Series (1min)":{"2026-03-08 02:30:00":{"4. close":"1"}}}`), "NVDA", true)
	f.Fuzz(func(t *testing.T, b []byte, symbol string, end bool) {
		bars, _, err := parse(b, symbol, end)
		adaptertest.Fuzzed(t, bars, err, true)
	})
}

func tapeClose(m time.Time) string { return fmt.Sprintf("%d.%04d", 200+m.Day(), m.Unix()/60%10000) }

// intradayServer serves a made-up month: the first five regular-session minutes of every trading
// day and the last post-session minute, keyed by start (or by end when endLabel) in New York time.
type intradayServer struct {
	endLabel bool
	mu       sync.Mutex
	queries  []url.Values
}

func tapeMinutes(month time.Time) []time.Time {
	var out []time.Time
	for d := month; d.Before(month.AddDate(0, 1, 0)); d = d.AddDate(0, 0, 1) {
		day := market.Day(d.Year(), d.Month(), d.Day())
		if !day.Trading {
			continue
		}
		for i := range 5 {
			out = append(out, day.Open.Add(time.Duration(i)*time.Minute))
		}
		out = append(out, day.PostEnd.Add(-time.Minute))
	}
	return out
}

func (s *intradayServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.queries = append(s.queries, q)
	s.mu.Unlock()
	if q.Get("apikey") != fakeKey {
		fmt.Fprint(w, `{"Error Message":"the parameter apikey is invalid or missing."}`)
		return
	}
	month, err := time.ParseInLocation("2006-01", q.Get("month"), market.NewYork)
	if err != nil {
		fmt.Fprint(w, `{"Error Message":"Invalid API call."}`)
		return
	}
	var entries []string
	for _, m := range tapeMinutes(month) {
		label := m
		if s.endLabel {
			label = m.Add(time.Minute)
		}
		entries = append(entries, fmt.Sprintf(`%q:{"1. open":"1.0000","2. high":"2.0000","3. low":"0.5000","4. close":%q,"5. volume":"%d"}`,
			label.In(market.NewYork).Format(keyLayout), tapeClose(m), m.Minute()+1))
	}
	fmt.Fprintf(w, `{"Meta Data":{"1. Information":"Intraday (1min) open, high, low, close prices and volume","2. Symbol":%q,"4. Interval":"1min","6. Time Zone":"US/Eastern"},"Time Series (1min)":{%s}}`,
		q.Get("symbol"), strings.Join(entries, ",\n"))
}

func TestBarsSplitsByNewYorkMonth(t *testing.T) {
	for _, endLabel := range []bool{false, true} {
		t.Run(fmt.Sprintf("end=%v", endLabel), func(t *testing.T) {
			srv := &intradayServer{endLabel: endLabel}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			now := time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC)
			opts := map[string]string{}
			if endLabel {
				opts["label"] = "end"
			}
			src := newSource(t, ts.URL, now, sources.Settings{Options: opts}, nil)
			// 2026-07-01 02:00 UTC is still June 30 in New York; the window ends in the future
			from := time.Date(2026, 7, 1, 2, 0, 0, 0, time.UTC)
			to := time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC)
			bars, err := src.Bars(context.Background(), "NVDA", from, to)
			if err != nil {
				t.Fatal(err)
			}
			var want []time.Time
			for _, m := range []string{"2026-06", "2026-07", "2026-08", "2026-09"} {
				month, _ := time.ParseInLocation("2006-01", m, market.NewYork)
				for _, b := range tapeMinutes(month) {
					if !b.Before(from) && b.Before(now) {
						want = append(want, b)
					}
				}
			}
			if len(bars) != len(want) {
				t.Fatalf("%d bars, want %d", len(bars), len(want))
			}
			for i, m := range want {
				if !bars[i].Start.Equal(m) || bars[i].Close != numeric.MustPrice(tapeClose(m)) {
					t.Fatalf("bar %d = %+v, want %s at %s", i, bars[i], tapeClose(m), m)
				}
			}
			// one request a month, none for October and November, which have not begun
			months := []string{"2026-06", "2026-07", "2026-08", "2026-09"}
			if len(srv.queries) != len(months) {
				t.Fatalf("%d requests, want %d", len(srv.queries), len(months))
			}
			for i, m := range months {
				w := url.Values{"function": {"TIME_SERIES_INTRADAY"}, "symbol": {"NVDA"}, "interval": {"1min"}, "month": {m},
					"outputsize": {"full"}, "extended_hours": {"true"}, "adjusted": {"false"}, "datatype": {"json"}, "apikey": {fakeKey}}
				if srv.queries[i].Encode() != w.Encode() {
					t.Errorf("request %d:\n got %s\nwant %s", i, srv.queries[i].Encode(), w.Encode())
				}
			}
		})
	}
}

func TestBarsWarnsOnContradictingLabels(t *testing.T) {
	ts := httptest.NewServer(&intradayServer{endLabel: true}) // serves a 20:00:00 key every day
	defer ts.Close()
	var logs bytes.Buffer
	now := time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC)
	src := newSource(t, ts.URL, now, sources.Settings{}, slog.New(slog.NewTextHandler(&logs, nil)))
	if _, err := src.Bars(context.Background(), "NVDA", now.Add(-72*time.Hour), now); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "END-labelled") || strings.Contains(logs.String(), fakeKey) {
		t.Errorf("log %q: want the label warning and no key", logs.String())
	}
}

func TestBarsBefore2000(t *testing.T) {
	srv := &intradayServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	src := newSource(t, ts.URL, time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC), sources.Settings{}, nil)
	from := time.Date(1999, 12, 20, 15, 0, 0, 0, time.UTC)
	if _, err := src.Bars(context.Background(), "NVDA", from, from.Add(24*time.Hour)); !errors.Is(err, sources.ErrUnsupportedWindow) {
		t.Errorf("1999: %v, want unsupported window", err)
	}
	if len(srv.queries) != 0 {
		t.Errorf("%d requests for 1999", len(srv.queries))
	}
}

func TestBarsHTTPFailures(t *testing.T) {
	now := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	adaptertest.Failures{Source: "av", Key: fakeKey, Bars: func(t *testing.T, base string) error {
		_, err := newSource(t, base, now, sources.Settings{Name: "av", Retries: -1}, nil).Bars(context.Background(), "NVDA", now.Add(-time.Hour), now)
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "429 with Retry-After", Status: 429, Header: http.Header{"Retry-After": {"44"}}, Body: `{"Information":"Thank you for using Alpha Vantage! Our standard API rate limit is 25 requests per day."}`, Kind: sources.ErrRateLimited, RetryAfter: 44 * time.Second},
		{Name: "200 daily limit", Status: 200, Body: `{"Information":"Thank you for using Alpha Vantage! Our standard API rate limit is 25 requests per day."}`, Kind: sources.ErrRateLimited},
		{Name: "200 invalid call", Status: 200, Body: `{"Error Message":"Invalid API call. Please retry or visit the documentation."}`, Kind: sources.ErrUnknownSymbol},
		{Name: "401", Status: 401, Body: `Unauthorized`, Kind: sources.ErrUnauthorized},
		{Name: "403", Status: 403, Body: `{"Error Message":"forbidden"}`, Kind: sources.ErrUnauthorized},
		{Name: "502", Status: 502, Body: `bad gateway`, Kind: sources.ErrUnavailable},
	}}.Run(t)
}

func TestKeyNeverInErrors(t *testing.T) {
	now := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	adaptertest.KeyNeverLeaks(t, adaptertest.Leak{
		Secrets: []string{fakeKey},
		Answers: adaptertest.Echo(func(_ int, r *http.Request) string {
			return fmt.Sprintf(`{"Error Message":"Invalid API call for %s"}`, r.URL.String())
		}, 200, 400, 401, 403, 404, 429, 500),
		Bars: func(t *testing.T, base string) error {
			_, err := newSource(t, base, now, sources.Settings{Retries: -1}, nil).Bars(context.Background(), "NVDA", now.Add(-time.Hour), now)
			return err
		},
	})
}

func TestFactoryAndCoverage(t *testing.T) {
	f, ok := sources.Lookup(Type)
	if !ok || !f.NeedsKey || f.DefaultRate != DefaultRate || f.Options["label"] == "" || f.Options["delay"] == "" {
		t.Fatalf("registration: %+v %v", f, ok)
	}
	if _, err := f.New(sources.Settings{}, sources.Deps{}); !errors.Is(err, sources.ErrNoKey) {
		t.Errorf("no key: %v", err)
	}
	cov := func(delay time.Duration) sources.Coverage {
		return sources.Coverage{Sessions: []market.Session{market.Pre, market.Regular, market.Post}, MaxWindow: 31 * 24 * time.Hour,
			Adjustment: sources.Raw, Delay: delay, Rate: sources.Rate{N: 5, Per: time.Minute}, Since: First.UTC(), Cut: sources.CutMonth}
	}
	cases := []adaptertest.OptionCase{
		{Options: nil, Want: cov(24 * time.Hour)},
		{Options: map[string]string{"label": "start"}, Want: cov(24 * time.Hour)},
		{Options: map[string]string{"label": "END", "delay": "15m"}, Want: cov(15 * time.Minute)},
		{Options: map[string]string{"label": "middle"}, Bad: "label"},
		{Options: map[string]string{"delay": "a day"}, Bad: "delay"},
		{Options: map[string]string{"adjusted": "true"}, Bad: "adjusted"},
	}
	endLabel := []bool{false, false, true}
	for i, src := range adaptertest.Coverages(t, Type, sources.Settings{Key: "k"}, cases) {
		if src != nil && src.(*Source).endLabel != endLabel[i] {
			t.Errorf("%v: end label %v, want %v", cases[i].Options, src.(*Source).endLabel, endLabel[i])
		}
	}
	adaptertest.RateReachesCoverage(t, Type, sources.Settings{Key: "k", Rate: sources.Rate{N: 25, Per: 24 * time.Hour}})
}

// TestLive asks the real Alpha Vantage for one month (one of the free plan's 25 daily requests).
// It runs only with PRICERIG_LIVE=1 and ALPHAVANTAGE_API_KEY set, and logs whether the keys of a
// regular day look start- or end-labelled.
func TestLive(t *testing.T) {
	key := adaptertest.Live(t, "Alpha Vantage", "ALPHAVANTAGE_API_KEY")[0]
	var logs bytes.Buffer
	src, err := factory.New(sources.Settings{Key: key}, sources.Deps{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2024, 6, 10, 8, 0, 0, 0, time.UTC)
	bars := adaptertest.AskLive(t, src, "NVDA", from, from.Add(16*time.Hour), false)
	t.Logf("first %s, last %s; label warnings: %q", bars[0].Start, bars[len(bars)-1].Start, logs.String())
}

// The body's evidence decides the labels: the recorded END-labelled day reads the same whatever
// the option says, and a body that holds both a 04:00:00 and a 20:00:00 key is refused.
func TestLabelEvidencePerBody(t *testing.T) {
	body := csvAsJSON(t, "X")
	asEnd, _, err := parse(body, "X", true)
	if err != nil {
		t.Fatal(err)
	}
	asStart, warning, err := parse(body, "X", false)
	if err != nil || warning == "" {
		t.Fatalf("%v %q", err, warning)
	}
	a, b := sorted(asEnd), sorted(asStart)
	if len(a) != len(b) || a[0] != b[0] || a[len(a)-1] != b[len(b)-1] {
		t.Errorf("read by the option start: %v…, by end: %v…", b[0], a[0])
	}
	both := []byte(`{"Meta Data":{"2. Symbol":"X"},"Time Series (1min)":{"2024-10-30 04:00:00":{"4. close":"1.5"},"2024-10-30 20:00:00":{"4. close":"1.6"}}}`)
	if _, _, err := parse(both, "X", false); !errors.Is(err, sources.ErrBadResponse) {
		t.Errorf("both keys: %v, want a bad response", err)
	}
}

// TestBarErrorsNameTheKey pins the words of a bad close's and a bad volume's error, which the
// shared sources.ParseBar now builds: the bar's key, then the field.
func TestBarErrorsNameTheKey(t *testing.T) {
	const body = `{"Meta Data":{"2. Symbol":"X"},"Time Series (1min)":{"2024-10-30 10:00:00":{%s}}}`
	for fields, want := range map[string]string{
		`"4. close":"n/a","5. volume":"1"`: "bar 2024-10-30 10:00:00: close: ",
		`"4. close":"1","5. volume":"x"`:   `bar 2024-10-30 10:00:00: volume "\"x\"" is not a number`,
	} {
		_, _, err := parse([]byte(fmt.Sprintf(body, fields)), "X", false)
		if !errors.Is(err, sources.ErrBadResponse) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", fields, err, want)
		}
	}
}
