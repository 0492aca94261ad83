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

// DefaultBaseURL is Yahoo's chart API host, base_url's default.
const DefaultBaseURL = "https://query2.finance.yahoo.com"

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

// DefaultFinalAfter: Yahoo documents nothing about when a minute bar is final, and it serves the
// minute in progress (yfinance drops a trailing bar because Yahoo "often appends latest price
// even if after end date", research §1): what it shows of a minute is the price so far until
// the minute ends, and may lag prints reported late. Conservative, sources.UndocumentedFinalAfter.
const DefaultFinalAfter = sources.UndocumentedFinalAfter

// factory is the type's one Factory: registered, and what its sources are built with.
var factory = sources.Adapter(sources.Factory{Type: Type, Options: map[string]string{}, DefaultRate: DefaultRate, BaseURL: DefaultBaseURL, FinalAfter: DefaultFinalAfter}, build)

// Source is a Yahoo chart source.
type Source struct{ sources.Base }

// build makes a Yahoo source. Yahoo takes no key and no options of its own.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	sessions := []market.Session{market.Pre, market.Regular, market.Post}
	cov := sources.Coverage{Sessions: sessions, Lookback: Lookback, MaxWindow: MaxWindow, Adjustment: sources.SplitAdjusted}
	return &Source{sources.NewBase(s, d, sources.ClientOptions{BrowserUA: true, ReadError: readError}, cov)}, nil
}

// Bars returns the split-adjusted 1-minute bars of symbol that start in [from, to).
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	// the clock before asking: the minute in progress when Yahoo answers is not a bar, even
	// if it has closed by the time the answer is read
	now := s.Now()
	// Asking Yahoo for older minutes (than its Lookback) only earns a 422 and counts against
	// the rate limit.
	if err := s.Check(symbol, from, to); err != nil {
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
		req := sources.Request{Path: "/v8/finance/chart/" + url.PathEscape(symbol), Query: q, Limit: sources.BodyCap(w.From, w.To, 1), Keep: w}
		bars, err := sources.Fetch(ctx, s.Client(), req, func(st *sources.Stream) ([]sources.Bar, error) { return decode(st, symbol, w) })
		if err != nil {
			return nil, err
		}
		all = sources.Join(all, bars)
	}
	// Yahoo appends the minute in progress (and sometimes a bar past period2): only closed
	// minutes inside the window are bars.
	return sources.Tidy(all, from, sources.ClosedBy(to, now)), nil
}

// readError explains a non-200 answer from the chart.error Yahoo puts in its body: a 404 (or
// code "Not Found") is an unknown symbol, a 422 a window Yahoo does not serve.
func readError(status int, body []byte) (string, error) {
	var b struct {
		Chart struct {
			Error *errorBody `json:"error"`
		} `json:"chart"`
	}
	if json.Unmarshal(body, &b) != nil || b.Chart.Error == nil {
		b.Chart.Error = &errorBody{}
	}
	kind := b.Chart.Error.kind()
	switch status {
	case http.StatusNotFound:
		kind = sources.ErrUnknownSymbol
	case http.StatusUnprocessableEntity:
		kind = sources.ErrUnsupportedWindow
	}
	return b.Chart.Error.Description, kind
}

type errorBody struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

// kind is what chart.error's code says, under any status; nil when it says nothing more.
func (e *errorBody) kind() error {
	switch e.Code {
	case "Not Found":
		return sources.ErrUnknownSymbol
	case "Unprocessable Entity":
		return sources.ErrUnsupportedWindow
	case "Internal Server Error", "Service Unavailable":
		return sources.ErrUnavailable // Yahoo's outage page in a 200: "Will be right back"
	}
	return nil
}

// row is one parsed row, before the edge rule decides whether it is a bar.
type row struct {
	bar    sources.Bar
	hasVol bool
}

// edgeMargin is how far beyond the window asked the decoder keeps rows, so that the edge rule
// (dropSyntheticEdges) sees the edges of Yahoo's answer, which asks for the window and adds at
// most the minute in progress, while a body padded with far-off minutes costs nothing.
const edgeMargin = 24 * time.Hour

// parse reads a whole chart body held in memory (a recorded one), keeping every bar.
func parse(body []byte, symbol string) ([]sources.Bar, error) {
	return sources.DecodeBytes(body, func(s *sources.Stream) ([]sources.Bar, error) { return decode(s, symbol, sources.AllTime) })
}

// decode reads a 200 chart body as it arrives into the bars near keep (edgeMargin either side),
// in Yahoo's order. It skips minutes whose close is null (no trade), drops the synthetic
// volume-0 bars Yahoo puts at a response's edges (see dropSyntheticEdges), rewrites each
// float32-widened price to its shortest decimal before parsing it exactly, and rejects an answer
// about another symbol. The timestamp column comes before the quote columns, so those keep only
// the rows it chose.
func decode(s *sources.Stream, symbol string, keep sources.Window) ([]sources.Bar, error) {
	c := &chart{s: s, near: keep.Widen(edgeMargin)}
	s.Expect("a chart body")
	if err := s.Object(c.top); err != nil {
		return nil, err
	}
	if err := c.check(symbol); err != nil {
		return nil, err
	}
	if c.nt == 0 { // a closed market: no timestamp key and quote:[{}]
		return []sources.Bar{}, nil
	}
	if c.quotes != 1 {
		return nil, sources.Errorf("", sources.ErrBadResponse, "%d quote series, want 1", c.quotes)
	}
	if c.closes.Len() != c.nt || (c.volumes.Present() && c.volumes.Len() != c.nt) {
		return nil, sources.Errorf("", sources.ErrBadResponse, "%d timestamps but %d closes and %d volumes", c.nt, c.closes.Len(), c.volumes.Len())
	}
	return c.bars()
}

// chart is what decode keeps of a chart body as it reads it: the first result's symbol, the
// rows of its timestamp column near the window, and its first quote series' close and volume
// columns, filtered to those rows.
type chart struct {
	s                   *sources.Stream
	near                sources.Window
	hasChart            bool
	err                 *errorBody
	results, quotes, nt int // results and quote series seen, timestamps read
	symbol              string
	rows                sources.Rows
	times               []int64
	closes, volumes     sources.Column
}

// top reads a member of the body's object: chart, with its result list and error.
func (c *chart) top(name []byte) error {
	s := c.s
	if string(name) != "chart" || s.Kind() == 'n' {
		return s.Skip()
	}
	c.hasChart = true
	return s.Object(func(name []byte) error {
		switch string(name) {
		case "result":
			if s.Kind() == 'n' {
				return s.Skip()
			}
			return s.Array(func(int) error { return c.result() })
		case "error":
			if s.Kind() == 'n' {
				return s.Skip()
			}
			raw, err := s.Raw()
			if err != nil {
				return err
			}
			c.err = &errorBody{}
			if err := json.Unmarshal(raw, c.err); err != nil {
				return sources.Errorf("", sources.ErrBadResponse, "chart.error: %v", err)
			}
			return nil
		}
		return s.Skip()
	})
}

// result reads the first result (meta's symbol, the timestamps, the indicators); a later one is
// counted and skipped.
func (c *chart) result() error {
	s := c.s
	c.results++
	if c.results > 1 {
		return s.Skip()
	}
	return s.Object(func(name []byte) error {
		switch string(name) {
		case "meta":
			_, err := s.Strings(sources.Text("symbol", &c.symbol))
			return err
		case "timestamp":
			return c.timestamps()
		case "indicators":
			return s.Object(func(name []byte) error {
				if string(name) != "quote" || s.Kind() == 'n' {
					return s.Skip()
				}
				return s.Array(func(int) error { return c.quote() })
			})
		}
		return s.Skip()
	})
}

// timestamps reads the timestamp column, keeping the rows of whole minutes near the window.
func (c *chart) timestamps() error {
	s := c.s
	c.rows, c.times, c.nt = sources.Rows{}, c.times[:0], 0 // rows not nil: the quote columns filter
	if s.Kind() == 'n' {
		return s.Skip()
	}
	return s.Array(func(i int) error {
		c.nt++
		raw, err := s.Raw()
		if err != nil {
			return err
		}
		sec, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return sources.Errorf("", sources.ErrBadResponse, "timestamp %d: %q is not unix seconds", i, raw)
		}
		// a second that is not a minute's start is the live quote Yahoo sometimes appends, not a
		// minute bar
		if sec%60 == 0 && c.near.Has(time.Unix(sec, 0)) {
			c.rows = append(c.rows, i)
			c.times = append(c.times, sec)
		}
		return nil
	})
}

// quote reads the first quote series' close and volume columns; a later one is counted and
// skipped.
func (c *chart) quote() error {
	s := c.s
	c.quotes++
	if c.quotes > 1 {
		return s.Skip()
	}
	return s.Object(func(name []byte) error {
		if s.Kind() == 'n' {
			return s.Skip() // as if absent
		}
		switch string(name) {
		case "close":
			return c.closes.Read(s, c.rows)
		case "volume":
			return c.volumes.Read(s, c.rows)
		}
		return s.Skip()
	})
}

// check refuses a body with no chart, an error in it, not one result, or another symbol's.
func (c *chart) check(symbol string) error {
	if !c.hasChart {
		return sources.Errorf("", sources.ErrBadResponse, "chart body has no chart")
	}
	if e := c.err; e != nil {
		kind := e.kind()
		if kind == nil {
			kind = sources.ErrBadResponse
		}
		return sources.Errorf("", kind, "%s: %s", e.Code, e.Description)
	}
	if c.results != 1 {
		return sources.Errorf("", sources.ErrBadResponse, "chart has %d results, want 1", c.results)
	}
	if !strings.EqualFold(c.symbol, symbol) {
		return sources.Errorf("", sources.ErrBadResponse, "asked for %q, chart is of %q", symbol, c.symbol)
	}
	return nil
}

// bars makes the kept rows bars. Not sources.ParseBar, and not for speed: a close is Yahoo's
// float32 printed as a float64 ("103.63999938964844"), which is a price only once
// CanonicalFloat32 has recovered its shortest decimal, and a volume Yahoo left out (null, or no
// volume array) must stay told apart from 0 (hasVol), which dropSyntheticEdges reads.
func (c *chart) bars() ([]sources.Bar, error) {
	kept := make([]row, 0, len(c.rows))
	for k, i := range c.rows {
		start := time.Unix(c.times[k], 0).UTC()
		cl := c.closes.At(i)
		if isNull(cl) {
			continue // no trade in the minute
		}
		text, err := numeric.CanonicalFloat32(strings.Trim(string(cl), `"`))
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "close at %s: %v", start.Format(time.RFC3339), err)
		}
		price, err := numeric.ParsePrice(text)
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "close at %s: %v", start.Format(time.RFC3339), err)
		}
		rw := row{bar: sources.Bar{Start: start, Close: price}}
		if v := c.volumes.At(i); c.volumes.Present() && !isNull(v) {
			vol, err := sources.ParseVolumeBytes(v)
			if err != nil {
				return nil, sources.Errorf("", sources.ErrBadResponse, "volume at %s: %v", start.Format(time.RFC3339), err)
			}
			rw.bar.Volume, rw.hasVol = vol, true
		}
		kept = append(kept, rw)
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
func dropSyntheticEdges(rows []row) []row {
	synthetic := func(edge, neighbour row) bool {
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

func isNull(m []byte) bool { return len(m) == 0 || string(m) == "null" }

func ceilSecond(t time.Time) int64 {
	if t.Truncate(time.Second).Equal(t) {
		return t.Unix()
	}
	return t.Unix() + 1
}
