// Package tiingo reads 1-minute bars from Tiingo's IEX intraday endpoint: raw IEX prints, with
// pre- and post-market when afterHours=true. The endpoint takes whole dates, so the adapter asks
// for the dates that cover a window and keeps the bars inside it.
//
// tiingo.go is the adapter (its factory, requests and decoding); emulation.go serves the same wire
// format from sources/sim's tape, registered for the simulator.
package tiingo

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Type is the source type sources.yaml names.
const Type = "tiingo"

// DefaultBaseURL is Tiingo's API host.
const DefaultBaseURL = "https://api.tiingo.com"

// maxDays is how many dates one request asks for (Coverage.MaxWindow is the same span).
const maxDays = 7

// DefaultRate is the free plan's 50 requests per hour: an allowance, not a pace (sources.PaceSpan).
var DefaultRate = sources.Rate{N: 50, Per: time.Hour}

// DefaultQuota is the free plan's 50 requests an hour and 1,000 a day. Tiingo's documentation
// states no figure (api.tiingo.com/docs/general/overview: "if you need higher usage limits …
// upgrade"); these are the limits third-party clients hold its free keys to
// (research/quote-sources.md §Tiingo, "[3p code comments]").
var DefaultQuota = sources.Quota{{N: 50, Per: sources.QuotaHour}, {N: 1000, Per: sources.QuotaDay}}

// DefaultFinalAfter: Tiingo documents nothing about when its IEX minute bars are final (its
// end-of-day prices take corrections until 8 PM, api.tiingo.com/documentation/end-of-day, but
// intraday says nothing); conservative, sources.UndocumentedFinalAfter.
const DefaultFinalAfter = sources.UndocumentedFinalAfter

// factory is the type's one Factory: registered, and what its sources are built with.
var factory = sources.Adapter(sources.Factory{Type: Type, KeyEnv: "TIINGO_API_KEY", Options: map[string]string{}, NeedsKey: true, DefaultRate: DefaultRate, DefaultQuota: DefaultQuota, KeyHelp: "tiingo needs an API token", BaseURL: DefaultBaseURL, FinalAfter: DefaultFinalAfter}, build)

// Source is a tiingo source.
type Source struct{ sources.Base }

// build makes a tiingo source. The key goes in "Authorization: Token <key>" rather than token=,
// so it never lands in a URL.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	auth := map[string]string{"Authorization": "Token " + s.Key}
	return &Source{sources.NewBase(s, d, sources.ClientOptions{Header: auth}, sources.Coverage{
		Sessions:   []market.Session{market.Pre, market.Regular, market.Post},
		MaxWindow:  maxDays * 24 * time.Hour,
		Cut:        sources.CutDates,
		Dates:      maxDays,
		Adjustment: sources.Raw, // /iex has no adjustment: these are IEX's prints
	})}, nil
}

// Bars asks for the dates covering [from, to), seven at a time, and keeps the bars in the window.
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	if err := s.Check(symbol, from, to); err != nil {
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
		req := sources.Request{Path: path, Query: q, Limit: sources.BodyCap(r.First, r.Last.AddDate(0, 0, 1), 1), Keep: sources.Window{From: from, To: to}}
		bars, err := sources.Fetch(ctx, s.Client(), req, func(st *sources.Stream) ([]sources.Bar, error) { return Decode(st, req.Keep) })
		if err != nil {
			return nil, err
		}
		all = append(all, bars...)
	}
	return s.Client().Finish(all, from, to)
}

// Decode reads a Tiingo IEX prices body as it arrives, keeping the bars that start in keep: an
// array of {"date": ISO UTC bar start, "close": …, "volume": …}, [] when there were no prints,
// or {"detail": …} for an error (an *sources.Error without a source whose kind comes from the
// words). A bar with a null close gives no bar.
func Decode(s *sources.Stream, keep sources.Window) ([]sources.Bar, error) {
	row := sources.NewFields("date", "close", "volume")
	bars := []sources.Bar{}
	err := sources.RowArray(s, row, "a Tiingo prices array", func(i int) error {
		date, err := sources.TextBytes(row.Get(0)) // in place: no copy per bar
		if err != nil || len(date) == 0 {
			return sources.Errorf("", sources.ErrBadResponse, "bar %d has no date", i)
		}
		t, err := sources.ParseRFC3339(date)
		if err != nil {
			return sources.Errorf("", sources.ErrBadResponse, "bar %d: date %q is not an ISO time", i, date)
		}
		return sources.KeepRow(&bars, keep, i, t, row.Get(1), row.Get(2))
	})
	if err != nil {
		return nil, err
	}
	return bars, nil
}
