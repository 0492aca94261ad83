// Package yahoo reads 1-minute bars from Yahoo Finance's chart v8 endpoint: keyless (a browser
// User-Agent is enough), the last 29 days only, split-adjusted prices with no raw option (the
// feeds layer undoes splits with its split table).
package yahoo

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// Type is the source type sources.yaml names.
const Type = "yahoo"

const (
	// Lookback: a 1-minute request that starts 29 days back succeeds and 30 days back fails with
	// 422 (research §1, verified 2026-08).
	Lookback = 29 * 24 * time.Hour
	// MaxWindow: Yahoo allowed 7 days of 1-minute bars per request in older notes; verified in
	// 2026-08, 8 days succeed and 9 fail ("Only 8 days worth of 1m granularity data are allowed
	// to be fetched per request"). The backfill's floor is the number of such windows.
	MaxWindow = 8 * 24 * time.Hour
)

// DefaultRate is unpublished by Yahoo; about 40 requests in 40 minutes have tripped its limit
// from one IP, and 60/min is what the coverage table sets.
var DefaultRate = sources.Rate{N: 60, Per: time.Minute}

// factory is the type's one Factory: registered, and checked against by New.
var factory = sources.Factory{Type: Type, Options: map[string]string{}, DefaultRate: DefaultRate}

func init() { sources.Register(factory.Type, factory.With(New)) }

// Source is a Yahoo chart source.
type Source struct {
	name   string
	client *sources.Client
	now    func() time.Time
	cov    sources.Coverage
}

// New builds a Yahoo source. Yahoo takes no key and no options of its own.
func New(s sources.Settings, d sources.Deps) (sources.Source, error) {
	s, err := sources.Keyed(s, factory, "", "https://query2.finance.yahoo.com")
	if err != nil {
		return nil, err
	}
	d = d.WithDefaults()
	return &Source{
		name:   s.Name,
		client: sources.NewClient(s, d, sources.ClientOptions{BrowserUA: true}),
		now:    d.Now,
		cov: sources.Coverage{
			Sessions:   []market.Session{market.Pre, market.Regular, market.Post},
			Lookback:   Lookback,
			MaxWindow:  MaxWindow,
			Adjustment: sources.SplitAdjusted,
			Rate:       s.Rate,
		},
	}, nil
}

// Name is the source's name in sources.yaml.
func (s *Source) Name() string { return s.name }

// Coverage says what Yahoo can answer.
func (s *Source) Coverage() sources.Coverage { return s.cov }

// Bars returns the split-adjusted 1-minute bars of symbol that start in [from, to).
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	// Asking Yahoo for older minutes only earns a 422 and counts against the rate limit.
	now := s.now()
	if err := sources.CheckWindow(s.name, symbol, from, to, Lookback, now); err != nil {
		return nil, err
	}
	from, to = from.UTC(), to.UTC()
	var all []sources.Bar
	for _, w := range sources.Windows(from, to, MaxWindow) {
		q := url.Values{
			"period1":        {strconv.FormatInt(w.From.Unix(), 10)},
			"period2":        {strconv.FormatInt(ceilSecond(w.To), 10)}, // exclusive
			"interval":       {"1m"},
			"includePrePost": {"true"},
			"events":         {"div|split"},
		}
		resp, err := s.client.GetCapped(ctx, "/v8/finance/chart/"+url.PathEscape(symbol), q, sources.BodyCap(w.From, w.To, 1))
		if err != nil {
			return nil, err
		}
		if resp.Status != http.StatusOK {
			return nil, s.statusError(resp)
		}
		bars, err := parse(resp.Body, symbol)
		if err != nil {
			return nil, s.client.Adopt(resp.Status, err)
		}
		all = append(all, bars...)
	}
	// Yahoo appends the minute in progress (and sometimes a bar past period2): only closed
	// minutes inside the window are bars.
	return sources.Tidy(all, from, sources.ClosedBy(to, now)), nil
}

// statusError explains a non-200 answer from the chart.error Yahoo puts in its body.
func (s *Source) statusError(resp *sources.Response) error {
	code, desc := chartError(resp.Body)
	msg := desc
	if msg == "" {
		msg = sources.BodyText(resp.Body)
	}
	switch {
	case resp.Status == http.StatusNotFound || code == "Not Found":
		return s.client.Fail(sources.ErrUnknownSymbol, resp.Status, msg)
	case resp.Status == http.StatusUnprocessableEntity:
		return s.client.Fail(sources.ErrUnsupportedWindow, resp.Status, msg)
	}
	return s.client.StatusError(resp, msg)
}

// chartBody is the part of a chart v8 answer we read. Numbers stay raw text: prices go through
// numeric, never through a float64 of ours.
type chartBody struct {
	Chart *struct {
		Result []struct {
			Meta struct {
				Symbol string `json:"symbol"`
			} `json:"meta"`
			Timestamp  []json.RawMessage `json:"timestamp"`
			Indicators struct {
				Quote []struct {
					Close  []json.RawMessage `json:"close"`
					Volume []json.RawMessage `json:"volume"`
				} `json:"quote"`
			} `json:"indicators"`
		} `json:"result"`
		Error *errorBody `json:"error"`
	} `json:"chart"`
}

type errorBody struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

func chartError(body []byte) (code, desc string) {
	var b struct {
		Chart struct {
			Error *errorBody `json:"error"`
		} `json:"chart"`
	}
	if json.Unmarshal(body, &b) != nil || b.Chart.Error == nil {
		return "", ""
	}
	return b.Chart.Error.Code, b.Chart.Error.Description
}

// raw is one parsed row, before the edge rule decides whether it is a bar.
type row struct {
	bar    sources.Bar
	hasVol bool
}

// parse reads a 200 chart body into bars, in Yahoo's order. It skips minutes whose close is
// null (no trade), drops the synthetic volume-0 bars Yahoo puts at a response's edges (see
// dropSyntheticEdges), rewrites each float32-widened price to its shortest decimal before parsing
// it exactly, and rejects an answer about another symbol.
func parse(body []byte, symbol string) ([]sources.Bar, error) {
	var b chartBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, sources.Errorf("", sources.ErrBadResponse, "chart body: %v", err)
	}
	if b.Chart == nil {
		return nil, sources.Errorf("", sources.ErrBadResponse, "chart body has no chart")
	}
	if e := b.Chart.Error; e != nil {
		kind := sources.ErrBadResponse
		switch e.Code {
		case "Not Found":
			kind = sources.ErrUnknownSymbol
		case "Unprocessable Entity":
			kind = sources.ErrUnsupportedWindow
		case "Internal Server Error", "Service Unavailable":
			kind = sources.ErrUnavailable // Yahoo's outage page in a 200: "Will be right back"
		}
		return nil, sources.Errorf("", kind, "%s: %s", e.Code, e.Description)
	}
	if len(b.Chart.Result) != 1 {
		return nil, sources.Errorf("", sources.ErrBadResponse, "chart has %d results, want 1", len(b.Chart.Result))
	}
	r := b.Chart.Result[0]
	if !strings.EqualFold(r.Meta.Symbol, symbol) {
		return nil, sources.Errorf("", sources.ErrBadResponse, "asked for %q, chart is of %q", symbol, r.Meta.Symbol)
	}
	if len(r.Timestamp) == 0 { // a closed market: no timestamp key and quote:[{}]
		return []sources.Bar{}, nil
	}
	if len(r.Indicators.Quote) != 1 {
		return nil, sources.Errorf("", sources.ErrBadResponse, "%d quote series, want 1", len(r.Indicators.Quote))
	}
	q := r.Indicators.Quote[0]
	n := len(r.Timestamp)
	if len(q.Close) != n || (q.Volume != nil && len(q.Volume) != n) {
		return nil, sources.Errorf("", sources.ErrBadResponse, "%d timestamps but %d closes and %d volumes", n, len(q.Close), len(q.Volume))
	}
	rows := make([]*row, n)
	for i := range n {
		sec, err := strconv.ParseInt(string(r.Timestamp[i]), 10, 64)
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "timestamp %d: %q is not unix seconds", i, r.Timestamp[i])
		}
		start := time.Unix(sec, 0).UTC()
		if sec%60 != 0 {
			continue // the live quote Yahoo sometimes appends, not a minute bar
		}
		if isNull(q.Close[i]) {
			continue // no trade in the minute
		}
		text, err := numeric.CanonicalFloat32(strings.Trim(string(q.Close[i]), `"`))
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "close at %s: %v", start.Format(time.RFC3339), err)
		}
		price, err := numeric.ParsePrice(text)
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "close at %s: %v", start.Format(time.RFC3339), err)
		}
		rw := &row{bar: sources.Bar{Start: start, Close: price}}
		if q.Volume != nil && !isNull(q.Volume[i]) {
			v, err := sources.ParseVolume(string(q.Volume[i]))
			if err != nil {
				return nil, sources.Errorf("", sources.ErrBadResponse, "volume at %s: %v", start.Format(time.RFC3339), err)
			}
			rw.bar.Volume, rw.hasVol = v, true
		}
		rows[i] = rw
	}
	var kept []*row
	for _, rw := range rows {
		if rw != nil {
			kept = append(kept, rw)
		}
	}
	kept = dropSyntheticEdges(kept)
	out := make([]sources.Bar, len(kept))
	for i, rw := range kept {
		out[i] = rw.bar
	}
	return out, nil
}

// dropSyntheticEdges removes the first and the last bar when they report volume 0 while their
// neighbour traded: Yahoo pads a response with bars of no volume at its edges (the sample's
// 15:30 bar and its 16:00 bar, O=H=L=C= regularMarketPrice), which are the minute in progress
// or a partial one, not a minute's last trade. Where the neighbour shows no volume either, as in
// extended hours for which Yahoo often reports none, volume says nothing and the bar stays.
func dropSyntheticEdges(rows []*row) []*row {
	synthetic := func(edge, neighbour *row) bool {
		return edge.hasVol && edge.bar.Volume == 0 && neighbour.bar.Volume > 0
	}
	if len(rows) >= 2 && synthetic(rows[len(rows)-1], rows[len(rows)-2]) {
		rows = rows[:len(rows)-1]
	}
	if len(rows) >= 2 && synthetic(rows[0], rows[1]) {
		rows = rows[1:]
	}
	return rows
}

func isNull(m json.RawMessage) bool { return len(m) == 0 || string(m) == "null" }

func ceilSecond(t time.Time) int64 {
	if t.Truncate(time.Second).Equal(t) {
		return t.Unix()
	}
	return t.Unix() + 1
}
