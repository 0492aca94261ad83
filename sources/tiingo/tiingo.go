// Package tiingo reads 1-minute bars from Tiingo's IEX intraday endpoint: raw IEX prints, with
// pre- and post-market when afterHours=true. The endpoint takes whole dates, so the adapter asks
// for the dates that cover a window and keeps the bars inside it.
package tiingo

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// DefaultBaseURL is Tiingo's API host.
const DefaultBaseURL = "https://api.tiingo.com"

// maxDays is how many dates one request asks for (Coverage.MaxWindow is the same span).
const maxDays = 7

// DefaultRate is the free plan's 50 requests per hour.
var DefaultRate = sources.Rate{N: 50, Per: time.Hour}

// factory is the type's one Factory: registered, and checked against by New.
var factory = sources.Factory{Type: "tiingo", KeyEnv: "TIINGO_API_KEY", Options: map[string]string{}, NeedsKey: true, DefaultRate: DefaultRate}

func init() { sources.Register(factory.Type, factory.With(New)) }

// Source is a tiingo source.
type Source struct {
	client *sources.Client
	cov    sources.Coverage
}

// New builds a tiingo source. The key goes in "Authorization: Token <key>" rather than token=,
// so it never lands in a URL.
func New(s sources.Settings, d sources.Deps) (sources.Source, error) {
	s, err := sources.Keyed(s, factory, "tiingo needs an API token", DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	c := sources.NewClient(s, d, sources.ClientOptions{Header: map[string]string{"Authorization": "Token " + s.Key}})
	return &Source{client: c, cov: sources.Coverage{
		Sessions:   []market.Session{market.Pre, market.Regular, market.Post},
		MaxWindow:  maxDays * 24 * time.Hour,
		Cut:        sources.CutDates,
		Dates:      maxDays,
		Adjustment: sources.Raw, // /iex has no adjustment: these are IEX's prints
		Rate:       s.Rate,
	}}, nil
}

// Name is the source's name in sources.yaml.
func (s *Source) Name() string { return s.client.Name() }

// Coverage says what the source can answer.
func (s *Source) Coverage() sources.Coverage { return s.cov }

// Bars asks for the dates covering [from, to), seven at a time, and keeps the bars in the window.
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	if err := sources.CheckWindow(s.client.Name(), symbol, from, to, 0, time.Time{}); err != nil {
		return nil, err
	}
	path := "/iex/" + url.PathEscape(strings.TrimSpace(symbol)) + "/prices"
	var all []sources.Bar
	for _, r := range sources.DateRanges(from, to, maxDays) {
		q := url.Values{}
		q.Set("startDate", r.First.Format(time.DateOnly))
		q.Set("endDate", r.Last.Format(time.DateOnly))
		q.Set("resampleFreq", "1min")
		q.Set("afterHours", "true")
		q.Set("forceFill", "false") // a minute without an IEX print has no bar; feeds carry
		q.Set("columns", "open,high,low,close,volume")
		q.Set("format", "json")
		bars, err := s.client.GetBars(ctx, path, q, sources.BodyCap(r.First, r.Last.AddDate(0, 0, 1), 1), Parse)
		if err != nil {
			return nil, err
		}
		all = append(all, bars...)
	}
	return s.client.Finish(all, from, to)
}

// row is one bar of a Tiingo body; prices stay raw JSON text.
type row struct {
	Date   *string         `json:"date"`
	Close  json.RawMessage `json:"close"`
	Volume json.RawMessage `json:"volume"`
}

// Parse reads a Tiingo IEX prices body: an array of {"date": ISO UTC bar start, "close": …,
// "volume": …}, [] when there were no prints, or {"detail": …} for an error (an *sources.Error
// without a source whose kind comes from the words). A bar with a null close gives no bar.
func Parse(body []byte) ([]sources.Bar, error) {
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "{") {
		msg := sources.ProviderMessage(body)
		if msg == "" || msg == trimmed {
			msg = "object instead of an array of bars"
		}
		return nil, sources.Errorf("", sources.ClassifyMessage(msg), "%s", msg)
	}
	var rows []row
	if err := json.Unmarshal(body, &rows); err != nil {
		return nil, sources.Errorf("", sources.ErrBadResponse, "not a Tiingo prices array: %v", err)
	}
	if rows == nil && trimmed != "[]" {
		return nil, sources.Errorf("", sources.ErrBadResponse, "body is %q, not an array of bars", trimmed)
	}
	bars := make([]sources.Bar, 0, len(rows))
	for i, r := range rows {
		if r.Date == nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bar %d has no date", i)
		}
		t, err := time.Parse(time.RFC3339Nano, *r.Date)
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bar %d: date %q is not an ISO time", i, *r.Date)
		}
		bar, ok, err := sources.RowBar(i, t, r.Close, r.Volume)
		if err != nil {
			return nil, err
		}
		if ok {
			bars = append(bars, bar)
		}
	}
	return bars, nil
}
