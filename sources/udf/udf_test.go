package udf

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
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

var utc = adaptertest.UTC

func TestParseRecorded(t *testing.T) {
	tests := []struct {
		file     string
		want     []sources.Bar
		wantKind error
		wantMsg  string
	}{
		{file: "pyth-benchmarks-tv-history-ok.json", want: []sources.Bar{
			{Start: utc("2023-05-15T05:06:00Z"), Close: 2729635698548},
			{Start: utc("2023-05-15T05:07:00Z"), Close: 2729400000000},
		}},
		{file: "pyth-benchmarks-tv-history-empty.json", want: []sources.Bar{}},
		{file: "pyth-benchmarks-tv-history-error.json", wantKind: sources.ErrBadResponse, wantMsg: "An error occured."},
		{file: "no-data-next-time.handmade.json", want: []sources.Bar{}},
		{file: "strings-and-nulls.handmade.json", want: []sources.Bar{
			{Start: utc("2023-05-15T05:06:00Z"), Close: 2729635698548, Volume: 15},
			{Start: utc("2023-05-15T05:08:00Z"), Close: 2729400000000, Volume: 3},
		}},
		{file: "truncated.handmade.json", wantKind: sources.ErrBadResponse},
		{file: "millis.handmade.json", wantKind: sources.ErrBadResponse, wantMsg: "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := Parse(adaptertest.ReadFile(t, tt.file))
			adaptertest.CheckParsed(t, got, err, tt.want, tt.wantKind, tt.wantMsg)
		})
	}
}

func TestParseMalformed(t *testing.T) {
	one := []sources.Bar{{Start: utc("2023-05-15T05:06:00Z"), Close: numeric.MustPrice("27296.35698548")}}
	tests := []struct {
		name, body string
		want       []sources.Bar
		wantKind   error
		wantMsg    string
	}{
		{"empty body", ``, nil, sources.ErrBadResponse, "not a UDF"},
		{"null", `null`, nil, sources.ErrBadResponse, "not a UDF"},
		{"array", `[]`, nil, sources.ErrBadResponse, "not a UDF"},
		{"string", `"ok"`, nil, sources.ErrBadResponse, "not a UDF"},
		{"html", `<html>Bad gateway</html>`, nil, sources.ErrBadResponse, "not a UDF"},
		{"no s", `{"t":[],"c":[]}`, nil, sources.ErrBadResponse, "no s field"},
		{"unknown s", `{"s":"partial"}`, nil, sources.ErrBadResponse, "partial"},
		{"s not a string", `{"s":1}`, nil, sources.ErrBadResponse, "not a UDF"},
		{"length mismatch", `{"s":"ok","t":[1684127160],"c":[]}`, nil, sources.ErrBadResponse, "differ in length"},
		{"volume length mismatch", `{"s":"ok","t":[1684127160],"c":[1],"v":[1,2]}`, nil, sources.ErrBadResponse, "volumes"},
		{"null time", `{"s":"ok","t":[null],"c":[1]}`, nil, sources.ErrBadResponse, "t[0]"},
		{"fractional time", `{"s":"ok","t":[1684127160.5],"c":[1]}`, nil, sources.ErrBadResponse, "t[0]"},
		{"negative time", `{"s":"ok","t":[-60],"c":[1]}`, nil, sources.ErrBadResponse, "t[0]"},
		{"null close skipped", `{"s":"ok","t":[1684127160],"c":[null]}`, []sources.Bar{}, nil, ""},
		{"numbers as strings", `{"s":"ok","t":["1684127160"],"c":["27296.35698548"]}`, one, nil, ""},
		{"exponent close", `{"s":"ok","t":[1684127160],"c":[2.729635698548e4]}`, one, nil, ""},
		{"bool close", `{"s":"ok","t":[1684127160],"c":[true]}`, nil, sources.ErrBadResponse, "bar 0: close"},
		{"negative close", `{"s":"ok","t":[1684127160],"c":[-1.5]}`, nil, sources.ErrBadResponse, "bar 0: close"},
		{"zero close", `{"s":"ok","t":[1684127160],"c":[0]}`, nil, sources.ErrBadResponse, "bar 0: close"},
		{"huge close", `{"s":"ok","t":[1684127160],"c":[1e400]}`, nil, sources.ErrBadResponse, "bar 0: close"},
		{"NaN close", `{"s":"ok","t":[1684127160],"c":["NaN"]}`, nil, sources.ErrBadResponse, "bar 0: close"},
		{"bad volume", `{"s":"ok","t":[1684127160],"c":[1],"v":["lots"]}`, nil, sources.ErrBadResponse, "bar 0: volume"},
		{"no_data with nextTime", `{"s":"no_data","nextTime":1684040760}`, []sources.Bar{}, nil, ""},
		{"ok with nothing", `{"s":"ok"}`, []sources.Bar{}, nil, ""},
		{"error rate limit", `{"s":"error","errmsg":"Too many requests, slow down"}`, nil, sources.ErrRateLimited, "Too many"},
		{"error entitlement", `{"s":"error","errmsg":"Not entitled: feed 1314"}`, nil, sources.ErrUnauthorized, "1314"},
		{"error unknown symbol", `{"s":"error","errmsg":"unknown symbol Equity.US.NVDX/USD"}`, nil, sources.ErrUnknownSymbol, "NVDX"},
		{"error without message", `{"s":"error"}`, nil, sources.ErrBadResponse, "without errmsg"},
		{"finnhub access in 200", `{"error":"You don't have access to this resource."}`, nil, sources.ErrUnauthorized, "access"},
		{"finnhub invalid key", `{"error":"Invalid API key."}`, nil, sources.ErrUnauthorized, "Invalid API key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.body))
			adaptertest.CheckParsed(t, got, err, tt.want, tt.wantKind, tt.wantMsg)
		})
	}
}

// FuzzParse checks that any body either fails with a *sources.Error or gives bars that survive a
// round trip: written back as UDF and parsed again, they are the same bars.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"pyth-benchmarks-tv-history-ok.json", "pyth-benchmarks-tv-history-empty.json",
		"pyth-benchmarks-tv-history-error.json", "no-data-next-time.handmade.json", "strings-and-nulls.handmade.json",
		"truncated.handmade.json", "millis.handmade.json"} {
		f.Add(adaptertest.ReadFile(f, name))
	}
	f.Add([]byte(`{"error":"Invalid API key."}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		bars, err := Parse(body)
		if !adaptertest.Fuzzed(t, bars, err, false) {
			return
		}
		again, err := Parse(udfBody(bars))
		if err != nil {
			t.Fatalf("round trip failed: %v", err)
		}
		if !slices.Equal(bars, again) {
			t.Fatalf("round trip changed the bars: %v → %v", bars, again)
		}
	})
}

// udfBody writes bars the way a UDF endpoint would, prices as exact decimals.
func udfBody(bars []sources.Bar) []byte {
	var ts, cs, vs []string
	for _, b := range bars {
		ts = append(ts, strconv.FormatInt(b.Start.Unix(), 10))
		cs = append(cs, b.Close.String())
		vs = append(vs, strconv.FormatInt(b.Volume, 10))
	}
	return fmt.Appendf(nil, `{"s":"ok","t":[%s],"c":[%s],"v":[%s]}`, strings.Join(ts, ","), strings.Join(cs, ","), strings.Join(vs, ","))
}

// tape is a fake UDF endpoint: one bar per minute in the asked (inclusive) range, its close
// derived from the minute, so a test can tell which minutes came back.
type tape struct {
	mu      sync.Mutex
	queries []map[string]string
	headers []http.Header
	paths   []string
	extra   func(from, to int64) []int64 // minutes to add beyond the asked range
}

func closeAt(sec int64) numeric.Scaled { return 100*numeric.One + numeric.Scaled(sec/60%1000) }

func (tp *tape) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := map[string]string{}
	for k, v := range r.URL.Query() {
		q[k] = strings.Join(v, ",")
	}
	tp.mu.Lock()
	tp.queries = append(tp.queries, q)
	tp.headers = append(tp.headers, r.Header.Clone())
	tp.paths = append(tp.paths, r.URL.Path)
	tp.mu.Unlock()
	from, _ := strconv.ParseInt(q["from"], 10, 64)
	to, _ := strconv.ParseInt(q["to"], 10, 64)
	var bars []sources.Bar
	first := (from + 59) / 60 * 60
	for s := first; s <= to; s += 60 {
		bars = append(bars, sources.Bar{Start: time.Unix(s, 0).UTC(), Close: closeAt(s), Volume: s % 7})
	}
	if tp.extra != nil {
		for _, s := range tp.extra(from, to) {
			bars = append(bars, sources.Bar{Start: time.Unix(s, 0).UTC(), Close: closeAt(s), Volume: s % 7})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(udfBody(bars))
}

func newSource(t *testing.T, base string, opts map[string]string, key string) sources.Source {
	t.Helper()
	src, err := factory.New(sources.Settings{Name: "u", Type: "udf", BaseURL: base, Key: key, Retries: -1, Options: opts},
		sources.Deps{Now: func() time.Time { return utc("2026-11-27T16:00:00Z") }})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestBarsSplitsWindowsWithExactQueries(t *testing.T) {
	tp := &tape{}
	srv := httptest.NewServer(tp)
	defer srv.Close()
	src := newSource(t, srv.URL, map[string]string{"max_window": "1h", "history_path": "/udf/history", "symbol_param": "ticker", "resolution": "1m"}, "")
	from, to := utc("2026-11-25T14:00:00Z"), utc("2026-11-25T16:30:00Z")
	bars, err := src.Bars(context.Background(), "NVDA", from, to)
	if err != nil {
		t.Fatal(err)
	}
	wantQueries := []map[string]string{
		{"ticker": "NVDA", "resolution": "1m", "from": unix("2026-11-25T14:00:00Z", 0), "to": unix("2026-11-25T15:00:00Z", -1)},
		{"ticker": "NVDA", "resolution": "1m", "from": unix("2026-11-25T15:00:00Z", 0), "to": unix("2026-11-25T16:00:00Z", -1)},
		{"ticker": "NVDA", "resolution": "1m", "from": unix("2026-11-25T16:00:00Z", 0), "to": unix("2026-11-25T16:30:00Z", -1)},
	}
	if fmt.Sprint(tp.queries) != fmt.Sprint(wantQueries) {
		t.Fatalf("queries =\n%v\nwant\n%v", tp.queries, wantQueries)
	}
	for _, p := range tp.paths {
		if p != "/udf/history" {
			t.Fatalf("path %q, want /udf/history", p)
		}
	}
	if tp.headers[0].Get("Authorization") != "" {
		t.Fatalf("keyless source sent Authorization %q", tp.headers[0].Get("Authorization"))
	}
	if len(bars) != 150 {
		t.Fatalf("got %d bars, want 150 (one per minute of 2.5 h)", len(bars))
	}
	for i, b := range bars {
		want := from.Add(time.Duration(i) * time.Minute)
		if !b.Start.Equal(want) || b.Close != closeAt(want.Unix()) || b.Volume != want.Unix()%7 {
			t.Fatalf("bar %d = %+v, want start %v close %v", i, b, want, closeAt(want.Unix()))
		}
	}
}

func unix(s string, delta int64) string { return strconv.FormatInt(utc(s).Unix()+delta, 10) }

func TestBarsSubSecondBounds(t *testing.T) {
	tp := &tape{}
	srv := httptest.NewServer(tp)
	defer srv.Close()
	src := newSource(t, srv.URL, nil, "")
	from := utc("2026-11-25T14:00:00Z").Add(500 * time.Millisecond)
	to := utc("2026-11-25T14:03:00Z").Add(500 * time.Millisecond)
	bars, err := src.Bars(context.Background(), "NVDA", from, to)
	if err != nil {
		t.Fatal(err)
	}
	// [14:00:00.5, 14:03:00.5) holds the bars starting 14:01, 14:02 and 14:03
	if q := tp.queries[0]; q["from"] != unix("2026-11-25T14:00:01Z", 0) || q["to"] != unix("2026-11-25T14:03:00Z", 0) {
		t.Fatalf("query %v", q)
	}
	if len(bars) != 3 || !bars[0].Start.Equal(utc("2026-11-25T14:01:00Z")) || !bars[2].Start.Equal(utc("2026-11-25T14:03:00Z")) {
		t.Fatalf("bars = %v", bars)
	}
}

func TestBarsFiltersSortsAndDedupes(t *testing.T) {
	base := utc("2026-11-25T14:00:00Z").Unix()
	tp := &tape{extra: func(from, to int64) []int64 {
		// a sloppy provider: a bar before the window, one after, and a repeat, out of order
		return []int64{base + 600, base - 60, base + 60, base + 120}
	}}
	srv := httptest.NewServer(tp)
	defer srv.Close()
	src := newSource(t, srv.URL, nil, "")
	bars, err := src.Bars(context.Background(), "NVDA", time.Unix(base, 0), time.Unix(base+120, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []sources.Bar{
		{Start: time.Unix(base, 0).UTC(), Close: closeAt(base), Volume: base % 7},
		{Start: time.Unix(base+60, 0).UTC(), Close: closeAt(base + 60), Volume: (base + 60) % 7},
	}
	if !slices.Equal(bars, want) {
		t.Fatalf("bars = %v, want %v", bars, want)
	}
}

func TestBarsEmptyAndInvertedWindows(t *testing.T) {
	tp := &tape{}
	srv := httptest.NewServer(tp)
	defer srv.Close()
	src := newSource(t, srv.URL, map[string]string{"lookback": "30d"}, "")
	at := utc("2026-11-25T14:00:00Z")
	bars, err := src.Bars(context.Background(), "NVDA", at, at)
	if err != nil || bars == nil || len(bars) != 0 {
		t.Fatalf("empty window: bars %v err %v, want empty slice", bars, err)
	}
	if _, err := src.Bars(context.Background(), "NVDA", at, at.Add(-time.Minute)); !errors.Is(err, sources.ErrUnsupportedWindow) {
		t.Fatalf("inverted window: err %v", err)
	}
	if _, err := src.Bars(context.Background(), " ", at, at.Add(time.Minute)); !errors.Is(err, sources.ErrUnknownSymbol) {
		t.Fatalf("empty symbol: err %v", err)
	}
	old := utc("2026-10-01T14:00:00Z") // the fake now is 2026-11-27, 57 days later
	if _, err := src.Bars(context.Background(), "NVDA", old, old.Add(time.Hour)); !errors.Is(err, sources.ErrUnsupportedWindow) {
		t.Fatalf("beyond lookback: err %v", err)
	}
	if len(tp.queries) != 0 {
		t.Fatalf("%d requests sent for windows that need none", len(tp.queries))
	}
	// a 200 with s:"ok" and empty arrays over a real window is an empty slice too
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(adaptertest.ReadFile(t, "pyth-benchmarks-tv-history-empty.json"))
	}))
	defer empty.Close()
	bars, err = newSource(t, empty.URL, nil, "").Bars(context.Background(), "NVDA", at, at.Add(time.Hour))
	if err != nil || bars == nil || len(bars) != 0 {
		t.Fatalf("no trades: bars %v err %v, want empty slice", bars, err)
	}
}

func TestBarsMisalignedTimesAreBadResponses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"s":"ok","t":[%d],"c":[1]}`, utc("2026-11-25T14:00:30Z").Unix())
	}))
	defer srv.Close()
	at := utc("2026-11-25T14:00:00Z")
	_, err := newSource(t, srv.URL, nil, "").Bars(context.Background(), "NVDA", at, at.Add(time.Hour))
	if !errors.Is(err, sources.ErrBadResponse) || !strings.Contains(err.Error(), "whole minute") {
		t.Fatalf("err = %v", err)
	}
}

func TestBarsHTTPFailures(t *testing.T) {
	adaptertest.Failures{Source: "u", StatusInError: true, Bars: func(t *testing.T, base string) error {
		at := utc("2026-11-25T14:00:00Z")
		_, err := newSource(t, base, nil, "").Bars(context.Background(), "NVDA", at, at.Add(time.Hour))
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "429 with Retry-After", Status: 429, Header: http.Header{"Retry-After": {"7"}}, Body: `{"s":"error","errmsg":"rate limited"}`, Kind: sources.ErrRateLimited, RetryAfter: 7 * time.Second},
		{Name: "401", Status: 401, Body: `{"detail":"missing bearer token"}`, Kind: sources.ErrUnauthorized, MsgPart: "missing bearer token"},
		{Name: "403 not entitled", Status: 403, Body: `Not entitled: feed 1314`, Kind: sources.ErrUnauthorized, MsgPart: "1314"},
		{Name: "404 path", Status: 404, Body: `{"detail":"Not Found"}`, Kind: sources.ErrBadResponse, MsgPart: "Not Found"},
		{Name: "422 validation", Status: 422, Body: `{"detail":[{"loc":["query","from"],"msg":"field required"}]}`, Kind: sources.ErrBadResponse},
		{Name: "500", Status: 500, Body: `oops`, Kind: sources.ErrUnavailable},
		{Name: "200 error body", Status: 200, Body: `{"s":"error","errmsg":"An error occured."}`, Kind: sources.ErrBadResponse, MsgPart: "An error occured."},
		{Name: "200 truncated", Status: 200, Body: `{"s":"ok","t":[1`, Kind: sources.ErrBadResponse},
	}}.Run(t)
}

func TestBarsRetryHonoursRetryAfter(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(429)
			return
		}
		fmt.Fprintf(w, `{"s":"ok","t":[%d],"c":["101.25"]}`, utc("2026-11-25T14:00:00Z").Unix())
	}))
	defer srv.Close()
	var slept []time.Duration
	b := sources.NewBase(sources.Settings{Name: "u", BaseURL: srv.URL, Retries: 1}, sources.Deps{}, sources.ClientOptions{}, sources.Coverage{})
	src := NewSource(b, Config{HistoryPath: "/history", SymbolParam: "symbol", Resolution: "1"})
	src.Client().Sleep = func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	at := utc("2026-11-25T14:00:00Z")
	bars, err := src.Bars(context.Background(), "NVDA", at, at.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) != 1 || bars[0].Close != numeric.MustPrice("101.25") {
		t.Fatalf("bars = %v", bars)
	}
	if calls != 2 || len(slept) != 1 || slept[0] < 3*time.Second {
		t.Fatalf("calls %d, slept %v: want one wait of at least the 3 s asked", calls, slept)
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	const key = "udf-Secret-Key-7Hq2"
	answer := func(status int, body string) adaptertest.Answer {
		return adaptertest.Answer{Status: status, Body: func(*http.Request) string { return body }}
	}
	at := utc("2026-11-25T14:00:00Z")
	adaptertest.KeyNeverLeaks(t, adaptertest.Leak{
		Secrets: []string{key},
		Answers: []adaptertest.Answer{
			answer(401, `{"detail":"bad key `+key+`"}`),
			answer(200, `{"s":"error","errmsg":"key `+key+` is not entitled"}`),
			answer(429, `slow down `+key),
			// a bar in the window (the decoder reads no other) whose close quotes the key
			answer(200, `{"s":"ok","t":[`+strconv.FormatInt(at.Unix(), 10)+`],"c":["`+key+`"]}`),
		},
		Header: "Authorization", HeaderValue: "Bearer " + key,
		Bars: func(t *testing.T, base string) error {
			_, err := newSource(t, base, nil, key).Bars(context.Background(), "NVDA", at, at.Add(time.Hour))
			return err
		},
	})
	// the key in a header of its own, no server at all: the transport error names the URL only
	src := newSource(t, adaptertest.Gone(t), map[string]string{"auth_header": "X-Api-Key", "auth_scheme": ""}, key)
	_, err := src.Bars(context.Background(), "NVDA", at, at.Add(time.Hour))
	if !errors.Is(err, sources.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	adaptertest.NoSecret(t, err.Error(), key)
}

func TestAuthHeaderOptions(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Write([]byte(`{"s":"no_data"}`))
	}))
	defer srv.Close()
	at := utc("2026-11-25T14:00:00Z")
	for _, tt := range []struct {
		opts         map[string]string
		header, want string
	}{
		{nil, "Authorization", "Bearer k1"},
		{map[string]string{"auth_scheme": "Token"}, "Authorization", "Token k1"},
		{map[string]string{"auth_header": "X-Api-Key"}, "X-Api-Key", "k1"},
		{map[string]string{"auth_header": "X-Api-Key", "auth_scheme": "Key"}, "X-Api-Key", "Key k1"},
	} {
		if _, err := newSource(t, srv.URL, tt.opts, "k1").Bars(context.Background(), "NVDA", at, at.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got.Get(tt.header) != tt.want {
			t.Fatalf("%v: %s = %q, want %q", tt.opts, tt.header, got.Get(tt.header), tt.want)
		}
	}
}

func TestNewOptions(t *testing.T) {
	bad := []struct {
		opts    map[string]string
		key     string
		base    string
		wantKey string
	}{
		{map[string]string{"histroy_path": "/h"}, "", "", "histroy_path"},
		{map[string]string{"sessions": "lunch"}, "", "", "sessions"},
		{map[string]string{"sessions": "regular,regular"}, "", "", "sessions"},
		{map[string]string{"sessions": " , "}, "", "", "sessions"},
		{map[string]string{"max_window": "a week"}, "", "", "max_window"},
		{map[string]string{"max_window": "30s"}, "", "", "max_window"},
		{map[string]string{"lookback": "-3d"}, "", "", "lookback"},
		{map[string]string{"adjustment": "splits+dividends"}, "", "", "adjustment"},
		{map[string]string{"auth_header": "X-Key"}, "", "", "auth_header"},
		{map[string]string{"auth_header": "X Key"}, "k", "", "auth_header"},
		{nil, "", "-", "base_url"},
		{nil, "", "ftp://example.com", "base_url"},
	}
	for _, tt := range bad {
		base := "http://127.0.0.1:1"
		if tt.base == "-" {
			base = ""
		} else if tt.base != "" {
			base = tt.base
		}
		_, err := factory.New(sources.Settings{Name: "u", Type: "udf", BaseURL: base, Key: tt.key, Options: tt.opts}, sources.Deps{})
		if err == nil || !strings.Contains(err.Error(), tt.wantKey) {
			t.Errorf("%v: err = %v, want one naming %s", tt.opts, err, tt.wantKey)
		}
	}
	src, err := factory.New(sources.Settings{Name: "u", Type: "udf", BaseURL: "http://127.0.0.1:1", Rate: sources.Rate{N: 3, Per: time.Minute},
		Options: map[string]string{"sessions": "post, pre,regular", "lookback": "29d", "max_window": "7d", "adjustment": "splits"}}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	cov := src.Coverage()
	if !slices.Equal(cov.Sessions, []market.Session{market.Post, market.Pre, market.Regular}) || cov.Lookback != 29*24*time.Hour ||
		cov.MaxWindow != 7*24*time.Hour || cov.Adjustment != sources.SplitAdjusted || cov.Rate != (sources.Rate{N: 3, Per: time.Minute}) {
		t.Fatalf("coverage = %+v", cov)
	}
	src, err = factory.New(sources.Settings{Name: "u", Type: "udf", BaseURL: "http://127.0.0.1:1"}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	cov = src.Coverage()
	if !slices.Equal(cov.Sessions, []market.Session{market.Regular}) || cov.Lookback != 0 || cov.MaxWindow != 24*time.Hour ||
		cov.Adjustment != sources.Raw || !cov.Rate.IsZero() {
		t.Fatalf("default coverage = %+v", cov)
	}
	if f, ok := sources.Lookup("udf"); !ok || f.NeedsKey || len(f.Options) != len(options) {
		t.Fatalf("udf factory = %+v, %v", f, ok)
	}
}

// unixBytes reads every text as UnixText does: the same seconds or the same error.
func TestUnixBytesMatchesUnixText(t *testing.T) {
	for _, in := range []string{"1700000040", `"1700000040"`, "0", "007", "", `""`, `"`, "-60", "+60", " 60", "1e9",
		"7258118400", "7258118401", "72581184000", "99999999999999999999", "60.0", "null", "0x10"} {
		want, wantErr := UnixText(in)
		got, err := unixBytes([]byte(in))
		if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("unixBytes(%q) = %d, %v; UnixText gives %d, %v", in, got, err, want, wantErr)
		}
	}
}
