package jsonsrc

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

// Specs that describe real providers' bodies, as a user would in sources.yaml.
var (
	polygonSpec    = Spec{BarsPath: "results", TimePath: "t", TimeFormat: "unixms", PricePath: "c", VolumePath: "v", SymbolPath: "ticker", ErrorPath: "error"}
	twelveDataSpec = Spec{BarsPath: "values", TimePath: "datetime", TimeFormat: "et", PricePath: "close", VolumePath: "volume", SymbolPath: "meta.symbol", ErrorPath: "message"}
	alpacaSpec     = Spec{BarsPath: "bars.AMZN", TimePath: "t", TimeFormat: "rfc3339", PricePath: "c", VolumePath: "v", ErrorPath: "message"}
	tiingoSpec     = Spec{TimePath: "date", TimeFormat: "rfc3339", PricePath: "close", ErrorPath: "detail"}
	fmpSpec        = Spec{TimePath: "date", TimeFormat: "et", PricePath: "close", VolumePath: "volume", ErrorPath: "Error Message"}
)

func TestParseRecorded(t *testing.T) {
	optional := polygonSpec
	optional.BarsOptional = true
	tests := []struct {
		name, file, symbol string
		spec               Spec
		count              int
		first, last        sources.Bar
		wantKind           error
		wantMsg            string
	}{
		{"polygon aggs", "polygon-aggs-range-example.json", "AAPL", polygonSpec, 2,
			sources.Bar{Start: utc("2020-01-02T05:00:00Z"), Close: 7508750000, Volume: 135647456},
			sources.Bar{Start: utc("2020-01-03T05:00:00Z"), Close: 7435750000, Volume: 146535512}, nil, ""},
		{"polygon empty, results optional", "polygon-aggs-empty.json", "AAPL", optional, 0, sources.Bar{}, sources.Bar{}, nil, ""},
		{"polygon empty, results required", "polygon-aggs-empty.json", "AAPL", polygonSpec, 0, sources.Bar{}, sources.Bar{}, sources.ErrBadResponse, `no bars at bars_path "results"`},
		{"polygon other symbol", "polygon-aggs-range-example.json", "MSFT", polygonSpec, 0, sources.Bar{}, sources.Bar{}, sources.ErrBadResponse, `"AAPL", not "MSFT"`},
		// Twelve Data: New York wall clock, newest first, prices as strings; 11:09 EDT is 15:09Z
		{"twelvedata", "twelvedata-time-series-1min-aapl.json", "AAPL", twelveDataSpec, 30,
			sources.Bar{Start: utc("2023-08-24T15:09:00Z"), Close: 17800121000, Volume: 293189},
			sources.Bar{Start: utc("2023-08-24T14:40:00Z"), Close: 17807001000, Volume: 175143}, nil, ""},
		{"twelvedata error", "twelvedata-error-no-data.json", "AAPL", twelveDataSpec, 0, sources.Bar{}, sources.Bar{}, sources.ErrBadResponse, "No data is available"},
		{"alpaca bars", "alpaca-bars-15min-amzn-sip.json", "AMZN", alpacaSpec, 5,
			sources.Bar{Start: utc("2021-10-15T16:00:00Z"), Close: 337972000000, Volume: 211689},
			sources.Bar{Start: utc("2021-10-15T17:00:00Z"), Close: 338287000000, Volume: 134339}, nil, ""},
		{"tiingo root array", "tiingo-iex-prices-30min-googl.json", "GOOGL", tiingoSpec, 13,
			sources.Bar{Start: utc("2018-01-02T14:30:00Z"), Close: 106191000000},
			sources.Bar{Start: utc("2018-01-02T20:30:00Z"), Close: 107331500000}, nil, ""},
		{"fmp wall clock", "fmp-historical-chart-1min-docs.json", "AAPL", fmpSpec, 1,
			sources.Bar{Start: utc("2025-02-04T20:59:00Z"), Close: 23279000000, Volume: 720121},
			sources.Bar{Start: utc("2025-02-04T20:59:00Z"), Close: 23279000000, Volume: 720121}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bars, err := Parse(adaptertest.ReadFile(t, tt.file), tt.spec, tt.symbol)
			if tt.wantKind != nil {
				var e *sources.Error
				if !errors.As(err, &e) || !errors.Is(err, tt.wantKind) || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("err = %v, want %v saying %q", err, tt.wantKind, tt.wantMsg)
				}
				return
			}
			if err != nil || bars == nil || len(bars) != tt.count {
				t.Fatalf("got %d bars (%v), err %v; want %d", len(bars), bars, err, tt.count)
			}
			if tt.count > 0 && (bars[0] != tt.first || bars[len(bars)-1] != tt.last) {
				t.Fatalf("first %+v last %+v, want %+v and %+v", bars[0], bars[len(bars)-1], tt.first, tt.last)
			}
		})
	}
}

func TestParseMalformed(t *testing.T) {
	spec := Spec{BarsPath: "data", TimePath: "ts", TimeFormat: "unix", PricePath: "px", ErrorPath: "err", SymbolPath: "sym"}
	at := utc("2025-11-25T14:00:00Z") // 1764079200
	one := []sources.Bar{{Start: at, Close: numeric.MustPrice("101.5")}}
	tests := []struct {
		name, body string
		spec       *Spec
		want       []sources.Bar
		wantKind   error
		wantMsg    string
	}{
		{"truncated", `{"data":[{"ts":1764079200,"px":101.5}`, nil, nil, sources.ErrBadResponse, "not valid JSON"},
		{"empty body", ``, nil, nil, sources.ErrBadResponse, "not valid JSON"},
		{"html", `<html></html>`, nil, nil, sources.ErrBadResponse, "not valid JSON"},
		{"ok", `{"sym":"NVDA","data":[{"ts":1764079200,"px":101.5}]}`, nil, one, nil, ""},
		{"numbers as strings", `{"data":[{"ts":"1764079200","px":"101.50"}]}`, nil, one, nil, ""},
		{"null price skipped", `{"data":[{"ts":1764079200,"px":null}]}`, nil, []sources.Bar{}, nil, ""},
		{"null bars", `{"data":null}`, nil, []sources.Bar{}, nil, ""},
		{"empty bars", `{"data":[]}`, nil, []sources.Bar{}, nil, ""},
		{"missing bars", `{"other":[]}`, nil, nil, sources.ErrBadResponse, "no bars"},
		{"bars not array", `{"data":{"ts":1}}`, nil, nil, sources.ErrBadResponse, "not an array"},
		{"missing price", `{"data":[{"ts":1764079200}]}`, nil, nil, sources.ErrBadResponse, "no price"},
		{"missing time", `{"data":[{"px":1}]}`, nil, nil, sources.ErrBadResponse, "no time"},
		{"null time", `{"data":[{"ts":null,"px":1}]}`, nil, nil, sources.ErrBadResponse, "no time"},
		{"bool price", `{"data":[{"ts":1764079200,"px":true}]}`, nil, nil, sources.ErrBadResponse, "not a number"},
		{"word price", `{"data":[{"ts":1764079200,"px":"n/a"}]}`, nil, nil, sources.ErrBadResponse, "bar 0"},
		{"millis as seconds", `{"data":[{"ts":1764079200000,"px":1}]}`, nil, nil, sources.ErrBadResponse, "out of range"},
		{"second bar bad", `{"data":[{"ts":1764079200,"px":1},{"ts":1764079260,"px":-1}]}`, nil, nil, sources.ErrBadResponse, "bar 1"},
		{"error present", `{"err":"Invalid API key","data":[]}`, nil, nil, sources.ErrUnauthorized, "Invalid API key"},
		{"error rate", `{"err":{"code":429,"text":"too many requests"}}`, nil, nil, sources.ErrRateLimited, "too many"},
		{"error null is no error", `{"err":null,"data":[]}`, nil, []sources.Bar{}, nil, ""},
		{"error false is no error", `{"err":false,"data":[]}`, nil, []sources.Bar{}, nil, ""},
		{"wrong symbol", `{"sym":"TSLA","data":[]}`, nil, nil, sources.ErrBadResponse, `"TSLA", not "NVDA"`},
		{"label end", `{"data":[{"ts":1764079260,"px":101.5}]}`, &Spec{BarsPath: "data", TimePath: "ts", TimeFormat: "unix", PricePath: "px", LabelEnd: true}, one, nil, ""},
		{"unixms", `[{"t":1764079200000,"c":101.5}]`, &Spec{TimePath: "t", TimeFormat: "unixms", PricePath: "c"}, one, nil, ""},
		{"unixms string", `[{"t":"1764079200000","c":101.5}]`, &Spec{TimePath: "t", TimeFormat: "unixms", PricePath: "c"}, one, nil, ""},
		{"rfc3339 number", `[{"t":1764079200,"c":101.5}]`, &Spec{TimePath: "t", TimeFormat: "rfc3339", PricePath: "c"}, nil, sources.ErrBadResponse, "RFC 3339"},
		{"et", `[{"t":"2025-11-25 09:00:00","c":101.5}]`, &Spec{TimePath: "t", TimeFormat: "et", PricePath: "c"}, one, nil, ""},
		{"et bad", `[{"t":"25/11/2026 09:00","c":101.5}]`, &Spec{TimePath: "t", TimeFormat: "et", PricePath: "c"}, nil, sources.ErrBadResponse, "New York"},
		{"nested paths", `{"r":{"rows":[{"a":{"t":1764079200},"q":{"close":"101.5"}}]}}`, &Spec{BarsPath: "r.rows", TimePath: "a.t", TimeFormat: "unix", PricePath: "q.close"}, one, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := spec
			if tt.spec != nil {
				s = *tt.spec
			}
			got, err := Parse([]byte(tt.body), s, "NVDA")
			adaptertest.CheckParsed(t, got, err, tt.want, tt.wantKind, tt.wantMsg)
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"polygon-aggs-range-example.json", "polygon-aggs-empty.json", "twelvedata-time-series-1min-aapl.json",
		"twelvedata-error-no-data.json", "alpaca-bars-15min-amzn-sip.json"} {
		f.Add(adaptertest.ReadFile(f, name), 0)
	}
	f.Add(adaptertest.ReadFile(f, "tiingo-iex-prices-30min-googl.json"), 3)
	f.Add(adaptertest.ReadFile(f, "fmp-historical-chart-1min-docs.json"), 4)
	specs := []Spec{polygonSpec, twelveDataSpec, alpacaSpec, tiingoSpec, fmpSpec}
	f.Fuzz(func(t *testing.T, body []byte, which int) {
		spec := specs[(which%len(specs)+len(specs))%len(specs)]
		bars, err := Parse(body, spec, "AAPL")
		adaptertest.Fuzzed(t, bars, err, false)
	})
}

func TestExpand(t *testing.T) {
	vals := map[string]string{"symbol": "Equity.US.NVDA/USD", "from": "1", "to": "2", "key": "a&b=c d"}
	tests := []struct{ tmpl, want string }{
		{"/bars/{symbol}?from={from}&to={to}", "/bars/Equity.US.NVDA%2FUSD?from=1&to=2"},
		{"/bars?s={symbol}&k={key}", "/bars?s=Equity.US.NVDA%2FUSD&k=a%26b%3Dc+d"},
		{"/{key}/{symbol}", "/a&b=c%20d/Equity.US.NVDA%2FUSD"},
		{"/bars?s={symbol}&z={other}", "/bars?s=Equity.US.NVDA%2FUSD&z={other}"},
	}
	for _, tt := range tests {
		if got := Expand(tt.tmpl, vals); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.tmpl, got, tt.want)
		}
	}
}

func TestFormatBound(t *testing.T) {
	from := utc("2024-06-07T23:00:00Z").Add(250 * time.Millisecond) // 19:00 ET on the 7th
	to := utc("2024-06-08T01:00:00Z").Add(250 * time.Millisecond)
	tests := []struct {
		format     string
		wantFrom   string
		wantTo     string
		exclusive0 bool
	}{
		{"unix", strconv.FormatInt(from.Unix(), 10), strconv.FormatInt(to.Unix()+1, 10), false},
		{"unixms", "1717801200250", "1717808400250", false},
		{"rfc3339", "2024-06-07T23:00:00Z", "2024-06-08T01:00:00Z", false},
		{"date", "2024-06-07", "2024-06-08", false},
	}
	for _, tt := range tests {
		if got := FormatBound(from, to, tt.format, false); got != tt.wantFrom {
			t.Errorf("%s from = %q, want %q", tt.format, got, tt.wantFrom)
		}
		if got := FormatBound(from, to, tt.format, true); got != tt.wantTo {
			t.Errorf("%s to = %q, want %q", tt.format, got, tt.wantTo)
		}
	}
}

// provider is a fake JSON API with bars at {ms, price} in "rows", one per minute in [from, to).
type provider struct {
	mu    sync.Mutex
	paths []string
	query []string
}

func (p *provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.paths = append(p.paths, r.URL.EscapedPath())
	p.query = append(p.query, r.URL.RawQuery)
	p.mu.Unlock()
	from, _ := strconv.ParseInt(r.URL.Query().Get("from"), 10, 64)
	to, _ := strconv.ParseInt(r.URL.Query().Get("to"), 10, 64)
	var rows []string
	for ms := from; ms < to; ms += 60_000 {
		rows = append(rows, fmt.Sprintf(`{"ms":%d,"price":"%d.25","vol":%d}`, ms, 100+ms/60_000%50, ms/60_000%9))
	}
	fmt.Fprintf(w, `{"symbol":%q,"rows":[%s]}`, strings.TrimPrefix(r.URL.EscapedPath(), "/v1/"), strings.Join(rows, ","))
}

func opts(extra map[string]string) map[string]string {
	o := map[string]string{
		"url":         "/v1/{symbol}?from={from}&to={to}&apikey={key}",
		"from_format": "unixms", "to_format": "unixms",
		"bars_path": "rows", "time_path": "ms", "time_format": "unixms", "price_path": "price", "volume_path": "vol",
		"max_window": "1h", "error_path": "error",
	}
	for k, v := range extra {
		o[k] = v
	}
	return o
}

func newSource(t *testing.T, base, key string, o map[string]string) sources.Source {
	t.Helper()
	src, err := factory.New(sources.Settings{Name: "j", Type: "json", BaseURL: base, Key: key, Retries: -1, Options: o},
		sources.Deps{Now: func() time.Time { return utc("2026-11-27T16:00:00Z") }})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestBarsWindowsAndExactRequests(t *testing.T) {
	p := &provider{}
	srv := httptest.NewServer(p)
	defer srv.Close()
	src := newSource(t, srv.URL, "k3y", opts(nil))
	from, to := utc("2026-11-25T14:00:00Z"), utc("2026-11-25T16:30:00Z")
	bars, err := src.Bars(context.Background(), "BRK B", from, to)
	if err != nil {
		t.Fatal(err)
	}
	ms := func(s string) string { return strconv.FormatInt(utc(s).UnixMilli(), 10) }
	wantQ := []string{
		"from=" + ms("2026-11-25T14:00:00Z") + "&to=" + ms("2026-11-25T15:00:00Z") + "&apikey=k3y",
		"from=" + ms("2026-11-25T15:00:00Z") + "&to=" + ms("2026-11-25T16:00:00Z") + "&apikey=k3y",
		"from=" + ms("2026-11-25T16:00:00Z") + "&to=" + ms("2026-11-25T16:30:00Z") + "&apikey=k3y",
	}
	if !slices.Equal(p.query, wantQ) {
		t.Fatalf("queries =\n%v\nwant\n%v", p.query, wantQ)
	}
	for _, path := range p.paths {
		if path != "/v1/BRK%20B" {
			t.Fatalf("path %q, want the symbol path-escaped", path)
		}
	}
	if len(bars) != 150 {
		t.Fatalf("%d bars, want 150", len(bars))
	}
	for i, b := range bars {
		at := from.Add(time.Duration(i) * time.Minute)
		m := at.UnixMilli() / 60_000
		want := sources.Bar{Start: at, Close: numeric.MustPrice(strconv.FormatInt(100+m%50, 10) + ".25"), Volume: m % 9}
		if b != want {
			t.Fatalf("bar %d = %+v, want %+v", i, b, want)
		}
	}
}

func TestBarsFailures(t *testing.T) {
	const key = "jsonKeyQ81x"
	adaptertest.Failures{Source: "j", Key: key, Bars: func(t *testing.T, base string) error {
		_, err := newSource(t, base, key, opts(map[string]string{"symbol_path": "symbol"})).
			Bars(context.Background(), "NVDA", utc("2026-11-25T14:00:00Z"), utc("2026-11-25T15:00:00Z"))
		return err
	}, Cases: []adaptertest.Failure{
		{Name: "429 Retry-After", Status: 429, Header: http.Header{"Retry-After": {"9"}}, Body: `{"error":"slow down"}`, Kind: sources.ErrRateLimited, RetryAfter: 9 * time.Second},
		{Name: "401 with error_path", Status: 401, Body: `{"error":"key ` + key + ` revoked","status":"x"}`, Kind: sources.ErrUnauthorized, MsgPart: "key REDACTED revoked"},
		{Name: "403", Status: 403, Body: `forbidden`, Kind: sources.ErrUnauthorized, MsgPart: "forbidden"},
		{Name: "200 error_path", Status: 200, Body: `{"error":"Unknown symbol XYZ"}`, Kind: sources.ErrUnknownSymbol, MsgPart: "XYZ"},
		{Name: "200 wrong symbol", Status: 200, Body: `{"symbol":"TSLA","rows":[]}`, Kind: sources.ErrBadResponse, MsgPart: "TSLA"},
		{Name: "200 truncated", Status: 200, Body: `{"rows":[{"ms":1`, Kind: sources.ErrBadResponse, MsgPart: "not valid JSON"},
		{Name: "200 echoing key", Status: 200, Body: `{"rows":[{"ms":1764079200000,"price":"` + key + `"}]}`, Kind: sources.ErrBadResponse, MsgPart: "REDACTED"},
		{Name: "200 misaligned", Status: 200, Body: `{"rows":[{"ms":1764079200001,"price":"1"}]}`, Kind: sources.ErrBadResponse, MsgPart: "whole minute"},
	}}.Run(t)
}

func TestBarsEmptyWindowAndLookback(t *testing.T) {
	p := &provider{}
	srv := httptest.NewServer(p)
	defer srv.Close()
	src := newSource(t, srv.URL, "k", opts(map[string]string{"lookback": "30d"}))
	at := utc("2026-11-25T14:00:00Z")
	bars, err := src.Bars(context.Background(), "NVDA", at, at)
	if err != nil || bars == nil || len(bars) != 0 {
		t.Fatalf("bars %v err %v", bars, err)
	}
	if _, err := src.Bars(context.Background(), "NVDA", utc("2026-09-01T14:00:00Z"), utc("2026-09-01T15:00:00Z")); !errors.Is(err, sources.ErrUnsupportedWindow) {
		t.Fatalf("beyond lookback: %v", err)
	}
	if len(p.query) != 0 {
		t.Fatalf("%d requests for windows that need none", len(p.query))
	}
}

func TestAuthHeaderWhenURLHasNoKey(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("X-Api-Key")
		w.Write([]byte(`{"rows":[]}`))
	}))
	defer srv.Close()
	o := opts(map[string]string{"url": "/v1/{symbol}?from={from}&to={to}", "auth_header": "X-Api-Key"})
	if _, err := newSource(t, srv.URL, "hdrkey", o).Bars(context.Background(), "NVDA", utc("2026-11-25T14:00:00Z"), utc("2026-11-25T15:00:00Z")); err != nil {
		t.Fatal(err)
	}
	if auth != "hdrkey" {
		t.Fatalf("X-Api-Key = %q", auth)
	}
}

func TestNewOptions(t *testing.T) {
	bad := []struct {
		opts    map[string]string
		key     string
		wantKey string
	}{
		{map[string]string{"time_path": "t", "price_path": "c"}, "", "url"},
		{map[string]string{"url": "/x/{symbol}", "price_path": "c"}, "", "time_path"},
		{map[string]string{"url": "/x/{symbol}", "time_path": "t"}, "", "price_path"},
		{map[string]string{"url": "/x", "time_path": "t", "price_path": "c"}, "", "url"},
		{map[string]string{"url": "https://api.example.com/x/{symbol}", "time_path": "t", "price_path": "c"}, "", "url"},
		{map[string]string{"url": "/x/{symbol}?s={start}", "time_path": "t", "price_path": "c"}, "", "url"},
		{map[string]string{"url": "/x/{symbol}?k={key}", "time_path": "t", "price_path": "c"}, "", "url"},
		{map[string]string{"url": "/x/{symbol}?k={key}", "time_path": "t", "price_path": "c", "auth_header": "X-Key"}, "k", "auth_header"},
		{map[string]string{"url": "/x/{symbol}", "time_path": "t", "price_path": "c", "from_format": "iso"}, "", "from_format"},
		{map[string]string{"url": "/x/{symbol}", "time_path": "t", "price_path": "c", "to_format": "ms"}, "", "to_format"},
		{map[string]string{"url": "/x/{symbol}", "time_path": "t", "price_path": "c", "time_format": "excel"}, "", "time_format"},
		{map[string]string{"url": "/x/{symbol}", "time_path": "t", "price_path": "c", "label": "middle"}, "", "label"},
		{map[string]string{"url": "/x/{symbol}", "time_path": "t", "price_path": "c", "bars_optional": "yes"}, "", "bars_optional"},
		{map[string]string{"url": "/x/{symbol}", "time_path": "t", "price_path": "c", "sessions": "all"}, "", "sessions"},
		{map[string]string{"url": "/x/{symbol}", "time_path": "t", "price_path": "c", "max_window": "1w"}, "", "max_window"},
		{map[string]string{"url": "/x/{symbol}", "time_path": "t", "price_path": "c", "adjustment": "adjusted"}, "", "adjustment"},
		{map[string]string{"url": "/x/{symbol}", "time_path": "t", "price_path": "c", "price": "c"}, "", "price"},
	}
	for _, tt := range bad {
		_, err := factory.New(sources.Settings{Name: "j", Type: "json", BaseURL: "http://127.0.0.1:1", Key: tt.key, Options: tt.opts}, sources.Deps{})
		if err == nil || !strings.Contains(err.Error(), tt.wantKey) {
			t.Errorf("%v: err = %v, want one naming %s", tt.opts, err, tt.wantKey)
		}
	}
	src, err := factory.New(sources.Settings{Name: "j", Type: "json", BaseURL: "http://127.0.0.1:1", Rate: sources.Rate{N: 2, Per: time.Second},
		Options: map[string]string{"url": "/x/{symbol}", "time_path": "t", "price_path": "c", "sessions": "pre,regular,post",
			"lookback": "7d", "max_window": "6h", "adjustment": "splits"}}, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	cov := src.Coverage()
	if !slices.Equal(cov.Sessions, []market.Session{market.Pre, market.Regular, market.Post}) || cov.Lookback != 7*24*time.Hour ||
		cov.MaxWindow != 6*time.Hour || cov.Adjustment != sources.SplitAdjusted || cov.Rate != (sources.Rate{N: 2, Per: time.Second}) {
		t.Fatalf("coverage = %+v", cov)
	}
	if f, ok := sources.Lookup("json"); !ok || f.NeedsKey || !slices.Equal(f.Required, []string{"url", "time_path", "price_path"}) {
		t.Fatalf("factory = %+v", f)
	}
}
