package sim

// Test-side readers of each emulated wire format: just enough to turn a body back into
// (minute, close) pairs, written independently of the emulations so the tests check the bytes,
// not the code that wrote them.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// tb is one bar as a test reads it back from a body.
type tb struct {
	start time.Time
	close numeric.Scaled
}

// fixture is a simulator on a loopback listener with a settable clock.
type fixture struct {
	t   *testing.T
	s   *Server
	ts  *httptest.Server
	now time.Time
}

func newFixture(t *testing.T, now time.Time, o Options) *fixture {
	t.Helper()
	f := &fixture{t: t, now: now}
	o.Now = func() time.Time { return f.now }
	f.s = New(o)
	f.ts = httptest.NewServer(f.s)
	t.Cleanup(func() { f.s.Close(); f.ts.Close() })
	return f
}

// reply is what a test call got back.
type got struct {
	status int
	header http.Header
	body   []byte
}

// get sends a GET to a provider path with its credentials (when auth) and headers.
func (f *fixture) get(provider, path string, q url.Values, auth bool, hdr map[string]string) got {
	f.t.Helper()
	q = cloneValues(q)
	req, err := http.NewRequest(http.MethodGet, "", nil)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) pricerig-test")
	if auth {
		switch provider {
		case "alpaca":
			req.Header.Set("APCA-API-KEY-ID", Key)
			req.Header.Set("APCA-API-SECRET-KEY", Secret)
		case "massive", "fmp", "alphavantage":
			q.Set(map[string]string{"massive": "apiKey", "fmp": "apikey", "alphavantage": "apikey"}[provider], Key)
		case "twelvedata":
			q.Set("apikey", Key)
		case "tiingo", "finnhub":
			q.Set("token", Key)
		case "pyth":
			req.Header.Set("Authorization", "Bearer "+Key)
		}
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	target := f.s.BaseURL(f.ts.URL, provider) + path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	return f.do(req, target)
}

func (f *fixture) do(req *http.Request, target string) got {
	f.t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		f.t.Fatal(err)
	}
	req.URL = u
	req.Host = u.Host
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		f.t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatalf("GET %s: reading body: %v", target, err)
	}
	return got{resp.StatusCode, resp.Header, body}
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// bars asks a provider for the bars of [from, to) in its fullest sessions, raw where it has
// raw prices, and reads them back; extra overrides parameters (an empty value removes one).
func (f *fixture) bars(provider, symbol string, from, to time.Time, extra url.Values) []tb {
	f.t.Helper()
	q, path := requestFor(provider, symbol, from, to)
	if path == "" {
		f.t.Fatalf("no request for %s", provider)
	}
	for k, v := range extra {
		if len(v) == 0 {
			q.Del(k)
		} else {
			q[k] = v
		}
	}
	r := f.get(provider, path, q, true, nil)
	if r.status != http.StatusOK {
		f.t.Fatalf("%s: HTTP %d: %s", provider, r.status, clip(r.body))
	}
	bars, err := parseBars(provider, r.body, symbol)
	if err != nil {
		f.t.Fatalf("%s: %v in %s", provider, err, clip(r.body))
	}
	var out []tb
	for _, b := range bars {
		if !b.start.Before(from) && b.start.Before(to) {
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	return out
}

// requestFor is the path and query (without credentials) that asks a provider for [from, to).
func requestFor(p, symbol string, from, to time.Time) (url.Values, string) {
	secs := func(t time.Time) string { return fmt.Sprint(t.Unix()) }
	last := to.Add(-time.Second) // for providers whose end is inclusive
	nyd := func(t time.Time) string { return t.In(market.NewYork).Format(time.DateOnly) }
	switch p {
	case "yahoo":
		return url.Values{"interval": {"1m"}, "period1": {secs(from)}, "period2": {secs(to)}, "includePrePost": {"true"}}, "/v8/finance/chart/" + symbol
	case "alpaca":
		return url.Values{"symbols": {symbol}, "timeframe": {"1Min"}, "feed": {"iex"}, "limit": {"10000"},
			"start": {from.UTC().Format(time.RFC3339)}, "end": {last.UTC().Format(time.RFC3339)}}, "/v2/stocks/bars"
	case "massive":
		return url.Values{"adjusted": {"false"}, "limit": {"50000"}}, fmt.Sprintf("/v2/aggs/ticker/%s/range/1/minute/%d/%d", symbol, from.UnixMilli(), to.UnixMilli()-1)
	case "twelvedata":
		return url.Values{"symbol": {symbol}, "interval": {"1min"}, "timezone": {"UTC"}, "adjust": {"none"},
			"start_date": {from.UTC().Format(time.DateTime)}, "end_date": {last.UTC().Format(time.DateTime)}}, "/time_series"
	case "alphavantage":
		return url.Values{"function": {"TIME_SERIES_INTRADAY"}, "symbol": {symbol}, "interval": {"1min"}, "month": {from.In(market.NewYork).Format("2006-01")},
			"outputsize": {"full"}, "adjusted": {"false"}}, "/query"
	case "tiingo":
		return url.Values{"startDate": {nyd(from)}, "endDate": {nyd(last)}, "resampleFreq": {"1min"}, "afterHours": {"true"}}, "/iex/" + symbol + "/prices"
	case "pyth", "udf", "finnhub":
		return url.Values{"symbol": {ProviderSymbol(p, symbol)}, "resolution": {"1"}, "from": {secs(from)}, "to": {secs(last)}},
			map[string]string{"pyth": "/v1/fixed_rate@200ms/history", "udf": "/history", "finnhub": "/api/v1/stock/candle"}[p]
	case "fmp":
		return url.Values{"symbol": {symbol}, "from": {nyd(from)}, "to": {nyd(last)}, "nonadjusted": {"true"}}, "/stable/historical-chart/1min"
	}
	return url.Values{}, ""
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// parseBars reads a provider body into bars; an empty window reads as no bars.
func parseBars(provider string, body []byte, symbol string) ([]tb, error) {
	dec := func(v any) error {
		d := json.NewDecoder(strings.NewReader(string(body)))
		d.UseNumber()
		return d.Decode(v)
	}
	price := func(n json.Number) (numeric.Scaled, error) { return numeric.ParsePrice(n.String()) }
	var out []tb
	switch provider {
	case "yahoo":
		var v struct {
			Chart struct {
				Result []struct {
					Timestamp  []int64 `json:"timestamp"`
					Indicators struct {
						Quote []struct {
							Close  []*json.Number `json:"close"`
							Volume []*json.Number `json:"volume"`
						} `json:"quote"`
					} `json:"indicators"`
				} `json:"result"`
				Error any `json:"error"`
			} `json:"chart"`
		}
		if err := dec(&v); err != nil {
			return nil, err
		}
		if v.Chart.Error != nil || len(v.Chart.Result) != 1 {
			return nil, fmt.Errorf("chart error %v", v.Chart.Error)
		}
		r := v.Chart.Result[0]
		for i, ts := range r.Timestamp {
			c := r.Indicators.Quote[0].Close[i]
			if c == nil || r.Indicators.Quote[0].Volume[i].String() == "0" {
				continue // no trade, or Yahoo's synthetic closing bar
			}
			text, err := numeric.CanonicalFloat32(c.String())
			if err != nil {
				return nil, err
			}
			p, err := numeric.ParsePrice(text)
			if err != nil {
				return nil, err
			}
			out = append(out, tb{time.Unix(ts, 0).UTC(), p})
		}
	case "alpaca":
		var v struct {
			Bars map[string][]struct {
				T time.Time   `json:"t"`
				C json.Number `json:"c"`
			} `json:"bars"`
		}
		if err := dec(&v); err != nil {
			return nil, err
		}
		for _, b := range v.Bars[symbol] {
			p, err := price(b.C)
			if err != nil {
				return nil, err
			}
			out = append(out, tb{b.T, p})
		}
	case "massive":
		var v struct {
			Status  string `json:"status"`
			Results []struct {
				T int64       `json:"t"`
				C json.Number `json:"c"`
			} `json:"results"`
		}
		if err := dec(&v); err != nil {
			return nil, err
		}
		if v.Status != "OK" {
			return nil, fmt.Errorf("status %q", v.Status)
		}
		for _, b := range v.Results {
			p, err := price(b.C)
			if err != nil {
				return nil, err
			}
			out = append(out, tb{time.UnixMilli(b.T).UTC(), p})
		}
	case "twelvedata":
		var v struct {
			Status  string `json:"status"`
			Code    int    `json:"code"`
			Message string `json:"message"`
			Values  []struct {
				Datetime string `json:"datetime"`
				Close    string `json:"close"`
			} `json:"values"`
		}
		if err := dec(&v); err != nil {
			return nil, err
		}
		if v.Status != "ok" {
			if strings.HasPrefix(v.Message, "No data is available") {
				return nil, nil
			}
			return nil, fmt.Errorf("error %d %s", v.Code, v.Message)
		}
		for _, b := range v.Values {
			t, err := time.Parse(time.DateTime, b.Datetime) // asked with timezone=UTC
			if err != nil {
				return nil, err
			}
			p, err := numeric.ParsePrice(b.Close)
			if err != nil {
				return nil, err
			}
			out = append(out, tb{t, p})
		}
	case "alphavantage":
		var v map[string]json.RawMessage
		if err := dec(&v); err != nil {
			return nil, err
		}
		series, ok := v["Time Series (1min)"]
		if !ok {
			if _, invalid := v["Error Message"]; invalid {
				return nil, nil
			}
			return nil, fmt.Errorf("no time series")
		}
		var bars map[string]map[string]string
		if err := json.Unmarshal(series, &bars); err != nil {
			return nil, err
		}
		for k, b := range bars {
			t, err := time.ParseInLocation(time.DateTime, k, market.NewYork)
			if err != nil {
				return nil, err
			}
			p, err := numeric.ParsePrice(b["4. close"])
			if err != nil {
				return nil, err
			}
			out = append(out, tb{t.UTC(), p}) // start-labelled
		}
	case "tiingo":
		var v []struct {
			Date  time.Time   `json:"date"`
			Close json.Number `json:"close"`
		}
		if err := dec(&v); err != nil {
			return nil, err
		}
		for _, b := range v {
			p, err := price(b.Close)
			if err != nil {
				return nil, err
			}
			out = append(out, tb{b.Date, p})
		}
	case "pyth", "udf", "finnhub":
		var v struct {
			S string        `json:"s"`
			T []int64       `json:"t"`
			C []json.Number `json:"c"`
		}
		if err := dec(&v); err != nil {
			return nil, err
		}
		if v.S == "no_data" {
			return nil, nil
		}
		if v.S != "ok" || len(v.T) != len(v.C) {
			return nil, fmt.Errorf("s %q, %d times, %d closes", v.S, len(v.T), len(v.C))
		}
		for i, ts := range v.T {
			p, err := price(v.C[i])
			if err != nil {
				return nil, err
			}
			out = append(out, tb{time.Unix(ts, 0).UTC(), p})
		}
	case "fmp":
		var v []struct {
			Date  string      `json:"date"`
			Close json.Number `json:"close"`
		}
		if err := dec(&v); err != nil {
			return nil, err
		}
		for _, b := range v {
			t, err := time.ParseInLocation(time.DateTime, b.Date, market.NewYork)
			if err != nil {
				return nil, err
			}
			p, err := price(b.Close)
			if err != nil {
				return nil, err
			}
			out = append(out, tb{t.UTC(), p})
		}
	default:
		return nil, fmt.Errorf("no parser for %s", provider)
	}
	return out, nil
}

// tapeBars lists the tape's raw bars of [from, to) in the sessions, divided by the splits
// effective by asOf when adjusted.
func tapeBars(tape *Tape, symbol string, from, to time.Time, sessions []market.Session, adjusted bool, asOf time.Time) []tb {
	var out []tb
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		if !market.InSessions(m, sessions) {
			continue
		}
		b, ok := tape.Bar(symbol, m)
		if !ok {
			continue
		}
		p := b.Close
		if adjusted {
			for _, s := range tape.Splits(symbol) {
				if m.Before(s.Effective) && !asOf.Before(s.Effective) {
					p = numeric.Scaled(int64(p) / s.Ratio)
				}
			}
		}
		out = append(out, tb{m, p})
	}
	return out
}

func diffBars(got, want []tb) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bars, want %d (first got %v, first want %v)", len(got), len(want), first(got), first(want))
	}
	for i := range got {
		if !got[i].start.Equal(want[i].start) || got[i].close != want[i].close {
			return fmt.Sprintf("bar %d: got %s %s, want %s %s", i, got[i].start.Format(time.RFC3339), got[i].close,
				want[i].start.Format(time.RFC3339), want[i].close)
		}
	}
	return ""
}

func first(b []tb) string {
	if len(b) == 0 {
		return "none"
	}
	return b[0].start.Format(time.RFC3339) + " " + b[0].close.String()
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not an integer", s)
	}
	return n
}
