// Package fmp reads 1-minute bars from Financial Modeling Prep's stable historical-chart
// endpoint, unadjusted (nonadjusted=true). FMP labels bars by their start in New York wall-clock
// time, newest first, and takes whole dates. The free plan answers 402 "Restricted Endpoint"
// (ErrUnauthorized).
package fmp

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// DefaultBaseURL is FMP's API host.
const DefaultBaseURL = "https://financialmodelingprep.com"

const (
	chartPath = "/stable/historical-chart/1min"
	maxDays   = 7 // dates per request (Coverage.MaxWindow is the same span)
	etLayout  = "2006-01-02 15:04:05"
)

// DefaultRate is the free plan's 250 requests per day.
var DefaultRate = sources.Rate{N: 250, Per: 24 * time.Hour}

// factory is the type's one Factory: registered, and checked against by New.
var factory = sources.Factory{Type: "fmp", KeyEnv: "FMP_API_KEY", Options: map[string]string{}, NeedsKey: true, DefaultRate: DefaultRate}

func init() { sources.Register(factory.Type, factory.With(New)) }

// Source is an fmp source.
type Source struct {
	client *sources.Client
	key    string
	cov    sources.Coverage
}

// New builds an fmp source. FMP documents only apikey= for its key; the client redacts it from
// every URL it logs or puts in an error.
func New(s sources.Settings, d sources.Deps) (sources.Source, error) {
	s, err := sources.Keyed(s, factory, "fmp needs an API key", DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	return &Source{client: sources.NewClient(s, d, sources.ClientOptions{}), key: s.Key, cov: sources.Coverage{
		Sessions:   []market.Session{market.Regular},
		MaxWindow:  maxDays * 24 * time.Hour,
		Cut:        sources.CutDates,
		Dates:      maxDays,
		Adjustment: sources.Raw,
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
	symbol = strings.TrimSpace(symbol)
	var all []sources.Bar
	for _, r := range sources.DateRanges(from, to, maxDays) {
		q := url.Values{}
		q.Set("symbol", symbol)
		q.Set("from", r.First.Format(time.DateOnly))
		q.Set("to", r.Last.Format(time.DateOnly))
		q.Set("nonadjusted", "true")
		q.Set("apikey", s.key)
		bars, err := s.client.GetBars(ctx, chartPath, q, sources.BodyCap(r.First, r.Last.AddDate(0, 0, 1), 1), func(b []byte) ([]sources.Bar, error) { return Parse(b, symbol) })
		if err != nil {
			return nil, err
		}
		all = append(all, bars...)
	}
	return s.client.Finish(all, from, to)
}

// row is one bar of an FMP body; prices stay raw JSON text.
type row struct {
	Date   *string         `json:"date"`
	Symbol *string         `json:"symbol"`
	Close  json.RawMessage `json:"close"`
	Volume json.RawMessage `json:"volume"`
}

// Parse reads an FMP historical-chart body for symbol: an array of {"date": New York wall-clock
// bar start, "close": …, "volume": …}, [] for no bars, or {"Error Message": …} for an error (an
// *sources.Error without a source whose kind comes from the words). A row that names another
// symbol is a bad response; a null close gives no bar. Bars come back in UTC, in body order.
func Parse(body []byte, symbol string) ([]sources.Bar, error) {
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
		msg := sources.ProviderMessage(body)
		if !strings.HasPrefix(trimmed, "[") && msg != "" {
			// FMP sometimes answers its plan errors in plain text, even with 200
			return nil, sources.Errorf("", sources.ClassifyMessage(msg), "%s", msg)
		}
		return nil, sources.Errorf("", sources.ErrBadResponse, "not an FMP chart array: %v", err)
	}
	if rows == nil {
		return nil, sources.Errorf("", sources.ErrBadResponse, "body is %q, not an array of bars", trimmed)
	}
	bars := make([]sources.Bar, 0, len(rows))
	for i, r := range rows {
		if r.Symbol != nil && symbol != "" && !strings.EqualFold(*r.Symbol, symbol) {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bar %d is for symbol %q, not %q", i, *r.Symbol, symbol)
		}
		if r.Date == nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bar %d has no date", i)
		}
		t, err := time.ParseInLocation(etLayout, *r.Date, market.NewYork)
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bar %d: date %q is not %s New York time", i, *r.Date, etLayout)
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
