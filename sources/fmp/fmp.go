// Package fmp reads 1-minute bars from Financial Modeling Prep's stable historical-chart
// endpoint, unadjusted (nonadjusted=true). FMP labels bars by their start in New York wall-clock
// time, newest first, and takes whole dates. The free plan answers 402 "Restricted Endpoint"
// (ErrUnauthorized).
//
// fmp.go is the adapter (its factory, requests and decoding); emulation.go serves the same wire
// format from sources/sim's tape, registered for the simulator.
package fmp

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Type is the source type sources.yaml names.
const Type = "fmp"

// DefaultBaseURL is FMP's API host.
const DefaultBaseURL = "https://financialmodelingprep.com"

const (
	chartPath = "/stable/historical-chart/1min"
	maxDays   = 7 // dates per request (Coverage.MaxWindow is the same span)
	etLayout  = "2006-01-02 15:04:05"
)

// DefaultRate is the free plan's 250 requests per day.
var DefaultRate = sources.Rate{N: 250, Per: 24 * time.Hour}

// DefaultQuota is the same 250 a day as a count every process on a store shares. A rate per day
// paces nothing (sources.PaceSpan): it is an allowance the client counts with this quota. FMP's free plan is widely documented at 250 requests a day
// (research/quote-sources.md §FMP "[3p]"; the FMP API guides third parties publish agree).
var DefaultQuota = sources.Quota{{N: 250, Per: sources.QuotaDay}}

// DefaultFinalAfter: FMP documents nothing about when a minute bar is final; conservative,
// sources.UndocumentedFinalAfter.
const DefaultFinalAfter = sources.UndocumentedFinalAfter

// factory is the type's one Factory: registered, and what its sources are built with.
var factory = sources.Adapter(sources.Factory{Type: Type, KeyEnv: "FMP_API_KEY", Options: map[string]string{}, NeedsKey: true, DefaultRate: DefaultRate, DefaultQuota: DefaultQuota, BaseURL: DefaultBaseURL, FinalAfter: DefaultFinalAfter}, build)

// Source is an fmp source.
type Source struct{ sources.Base }

// build makes an fmp source. FMP documents only apikey= for its key; the client redacts it from
// every URL it logs or puts in an error.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	return &Source{sources.NewBase(s, d, sources.ClientOptions{}, sources.Coverage{
		Sessions:   []market.Session{market.Regular},
		MaxWindow:  maxDays * 24 * time.Hour,
		Cut:        sources.CutDates,
		Dates:      maxDays,
		Adjustment: sources.Raw,
	})}, nil
}

// Bars asks for the dates covering [from, to), seven at a time, and keeps the bars in the window.
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	if err := s.Check(symbol, from, to); err != nil {
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
		q.Set("apikey", s.Key())
		req := sources.Request{Path: chartPath, Query: q, Limit: sources.BodyCap(r.First, r.Last.AddDate(0, 0, 1), 1), Keep: sources.Window{From: from, To: to}}
		bars, err := sources.Fetch(ctx, s.Client(), req, func(st *sources.Stream) ([]sources.Bar, error) { return Decode(st, symbol, req.Keep) })
		if err != nil {
			return nil, err
		}
		all = append(all, bars...)
	}
	return s.Client().Finish(all, from, to)
}

// Decode reads an FMP historical-chart body for symbol as it arrives, keeping the bars that
// start in keep: an array of {"date": New York wall-clock bar start, "close": …, "volume": …},
// [] for no bars, or {"Error Message": …} for an error (an *sources.Error without a source whose
// kind comes from the words). A row that names another symbol is a bad response; a null close
// gives no bar. Bars come back in UTC, in body order.
func Decode(s *sources.Stream, symbol string, keep sources.Window) ([]sources.Bar, error) {
	if k := s.Kind(); k != '[' && k != '{' && k != 'n' {
		// FMP sometimes answers its plan errors in plain text, even with 200
		if msg := sources.ProviderMessage(s.Head()); msg != "" {
			return nil, sources.Errorf("", sources.ClassifyMessage(msg), "%s", msg)
		}
	}
	row := sources.NewFields("date", "symbol", "close", "volume")
	bars := []sources.Bar{}
	err := sources.RowArray(s, row, "an FMP chart array", func(i int) error {
		if raw := row.Get(1); raw != nil && symbol != "" {
			if sym, err := sources.TextBytes(raw); err != nil || (len(sym) != 0 && !strings.EqualFold(string(sym), symbol)) {
				return sources.Errorf("", sources.ErrBadResponse, "bar %d is for symbol %s, not %q", i, raw, symbol)
			}
		}
		date, err := sources.TextBytes(row.Get(0)) // in place: no copy per bar
		if err != nil || len(date) == 0 {
			return sources.Errorf("", sources.ErrBadResponse, "bar %d has no date", i)
		}
		t, err := sources.ParseWallClock(date, market.NewYork)
		if err != nil {
			return sources.Errorf("", sources.ErrBadResponse, "bar %d: date %q is not %s New York time", i, date, etLayout)
		}
		return sources.KeepRow(&bars, keep, i, t, row.Get(2), row.Get(3))
	})
	if err != nil {
		return nil, err
	}
	return bars, nil
}
