// Package twelvedata reads 1-minute bars from Twelve Data's time_series endpoint: raw prices
// with adjust=none, numbers as strings, wall-clock datetimes in the zone asked for, and errors
// that arrive with HTTP 200 and the real code in the body.
package twelvedata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Type is the source type sources.yaml names.
const Type = "twelvedata"

// DefaultBaseURL is Twelve Data's API host, base_url's default.
const DefaultBaseURL = "https://api.twelvedata.com"

const (
	// MaxWindow: 7 days hold at most 5 trading days, 4800 bars even with pre/post, under the
	// 5000-bar outputsize.
	MaxWindow  = 7 * 24 * time.Hour
	outputSize = 5000
	maxPages   = 1000
	dateLayout = "2006-01-02 15:04:05"
)

// DefaultRate is the Basic plan's 8 credits a minute (one per time_series call).
var DefaultRate = sources.Rate{N: 8, Per: time.Minute}

// DefaultQuota is the Basic (free) plan's 800 credits a day, one per time_series call: "up to 8
// API credits per minute and a maximum of 800 API credits per day"
// (support.twelvedata.com/en/articles/5194820-api-credits-limits), counted from midnight UTC
// (twelvedata.com/changelog, "clarifies api credit limits in the docs").
var DefaultQuota = sources.Quota{{N: 800, Per: sources.QuotaDay}}

var options = map[string]string{
	"timezone": "utc (default: datetimes asked for and read in UTC) or exchange (read in meta.exchange_timezone)",
	"prepost":  "true to ask for pre- and post-market bars (Pro plan and above); default false",
}

// DefaultFinalAfter: Twelve Data documents nothing about when a minute bar is final;
// conservative, sources.UndocumentedFinalAfter.
const DefaultFinalAfter = sources.UndocumentedFinalAfter

// factory is the type's one Factory: registered, and what its sources are built with.
var factory = sources.Adapter(sources.Factory{Type: Type, KeyEnv: "TWELVEDATA_API_KEY", Options: options, NeedsKey: true, DefaultRate: DefaultRate, DefaultQuota: DefaultQuota, BaseURL: DefaultBaseURL, FinalAfter: DefaultFinalAfter}, build)

// Source is a Twelve Data time_series source: a one-ticker Pager over pages.
type Source struct {
	sources.OneTicker
	exchange bool // datetimes in the exchange's zone instead of UTC
	prepost  bool
	pageSize int // outputsize asked for: the provider's maximum, smaller in tests
}

// build makes a Twelve Data source from its API key (Key) and options.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	zone, err := sources.ChoiceOption(s, "timezone", "utc", "exchange")
	if err != nil {
		return nil, err
	}
	src := &Source{exchange: zone == "exchange", pageSize: outputSize}
	if v, ok := s.Options["prepost"]; ok {
		b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(v)))
		if err != nil {
			return nil, sources.OptionErrorf(s.Name, "prepost", "%q is not true or false", v)
		}
		src.prepost = b
	}
	sessions := []market.Session{market.Regular}
	if src.prepost {
		sessions = []market.Session{market.Pre, market.Regular, market.Post}
	}
	cov := sources.Coverage{Sessions: sessions, MaxWindow: MaxWindow, Page: outputSize, Paged: true, Adjustment: sources.Raw}
	src.OneTicker = sources.NewOneTicker(sources.NewBase(s, d, sources.ClientOptions{ReadError: readError}, cov), src.pages)
	return src, nil
}

// pages reads one window of symbol, whatever its width, from its end back, a page of outputsize
// bars at a time: Twelve Data answers the latest outputsize bars of a window, so each page moves
// end_date back before its oldest bar and proves the window from that bar to its end, which is
// where it resumes.
func (s *Source) pages(ctx context.Context, symbol string, from, to time.Time, each func(sources.Page) error) error {
	// The request's wall clock: UTC, or New York for a US exchange when reading exchange time.
	reqLoc, parseLoc := time.UTC, time.UTC
	if s.exchange {
		reqLoc, parseLoc = market.NewYork, nil
	}
	end := to.Add(-time.Nanosecond).Truncate(time.Second) // end_date is inclusive
	for n := 0; ; n++ {
		if n == maxPages {
			return s.Client().Fail(sources.ErrBadResponse, 0, fmt.Sprintf("more than %d pages for one window", maxPages))
		}
		q := url.Values{
			"symbol":     {symbol},
			"interval":   {"1min"},
			"start_date": {ceilSecond(from).In(reqLoc).Format(dateLayout)},
			"end_date":   {end.In(reqLoc).Format(dateLayout)},
			"order":      {"asc"},
			"adjust":     {"none"},
			"outputsize": {strconv.Itoa(s.pageSize)},
			"apikey":     {s.Key()},
		}
		if !s.exchange {
			q.Set("timezone", "UTC")
		}
		if s.prepost {
			q.Set("prepost", "true")
		}
		req := sources.Request{Path: "/time_series", Query: q, Limit: sources.BodyCap(from, from.Add(min(to.Sub(from), MaxWindow)), 1), Keep: sources.Window{From: from, To: to}}
		pg, err := sources.Fetch(ctx, s.Client(), req, func(st *sources.Stream) (page, error) { return decode(st, symbol, parseLoc, req.Keep) })
		if errors.Is(err, sources.ErrNoData) {
			pg, err = page{bars: []sources.Bar{}}, nil // the body only says the window has no data
		}
		if err != nil {
			return err
		}
		bars := pg.bars
		// A full page holds the latest outputsize bars of the window: the earlier ones are
		// asked for next, ending before the oldest bar of this page.
		oldest := pg.oldest
		last := pg.n < s.pageSize || oldest.IsZero() || !oldest.After(from)
		p := sources.Page{
			Bars:   map[string][]sources.Bar{symbol: sources.Tidy(bars, from, sources.ClosedBy(to, s.Now()))},
			Proven: map[string]sources.Window{symbol: {From: from, To: to}},
		}
		if !last {
			p.Proven[symbol] = sources.Window{From: oldest, To: to}
		}
		if err := each(p); err != nil {
			return err
		}
		if last {
			return nil
		}
		end = oldest.Add(-time.Second)
	}
}

// readError reads Twelve Data's error body, {"code": …, "message": …, "status": "error"}, which
// it sends under other statuses as under 200; one that only says the window has no data is
// ErrNoData, which Bars reads as an empty window.
func readError(_ int, body []byte) (string, error) {
	var b struct {
		Status  string          `json:"status"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &b) != nil || b.Status != "error" {
		return sources.FirstLine(body), nil
	}
	return b.Message, bodyError(b.Code, b.Message).Kind
}

// bodyError is the error a body with status "error" stands for; kind ErrNoData when it only
// says the window has no data.
func bodyError(rawCode []byte, msg string) *sources.Error {
	code, _ := strconv.Atoi(strings.Trim(string(rawCode), `"`))
	kind := errorKind(code, msg)
	if kind == nil {
		kind = sources.ErrNoData
	}
	return sources.Errorf("", kind, "code %d: %s", code, msg)
}

// page is one time_series answer: the bars in the window asked, how many values it held, and
// the start of its oldest bar (zero when no value traded), which tells where the next page ends.
type page struct {
	bars   []sources.Bar
	n      int
	oldest time.Time
}

// parse reads a whole body held in memory (a recorded one), keeping every bar; an error body
// saying the window has no data is an empty page.
func parse(body []byte, symbol string, loc *time.Location) ([]sources.Bar, int, error) {
	p, err := sources.DecodeBytes(body, func(s *sources.Stream) (page, error) { return decode(s, symbol, loc, sources.AllTime) })
	if errors.Is(err, sources.ErrNoData) {
		return []sources.Bar{}, 0, nil
	}
	return p.bars, p.n, err
}

// decode reads a time_series body as it arrives into the bars that start in keep. loc is the
// zone the datetimes are in; nil means meta.exchange_timezone, which the body may give after the
// values, so values are first placed roughly (a day either side of keep, as if in UTC) and read
// exactly at the end. An error body is an error of the kind its code and words say (see
// errorKind), ErrNoData when it only says the window has no data.
func decode(s *sources.Stream, symbol string, loc *time.Location, keep sources.Window) (page, error) {
	rough := keep.Widen(24 * time.Hour)
	var status, message, metaSymbol, zone string
	var oldest time.Time // the earliest traded value's wall clock, when hasOldest
	hasOldest := false
	var code []byte
	hasMeta := false
	var p page
	var kept []sources.Held // a value's Wall is its datetime read in UTC until the body's zone is known
	var text sources.Texts  // the kept values' texts
	row := sources.NewFields("datetime", "close", "volume")
	s.Expect("a time_series body")
	err := s.Members([]sources.Member{sources.Text("status", &status), sources.Text("message", &message)}, func(name []byte) error {
		var err error
		switch string(name) {
		case "code":
			var raw []byte
			if raw, err = s.Raw(); err == nil {
				code = append(code[:0], raw...)
			}
		case "meta":
			hasMeta, err = s.Strings(sources.Text("symbol", &metaSymbol), sources.Text("exchange_timezone", &zone))
		case "values":
			if s.Kind() == 'n' {
				return s.Skip()
			}
			return s.Array(func(i int) error {
				p.n++
				if err := row.Read(s); err != nil {
					return err
				}
				dt, _ := sources.TextBytes(row.Get(0)) // in place: no copy per value
				t, err := sources.ParseWallClock(dt, time.UTC)
				if err != nil {
					return sources.Errorf("", sources.ErrBadResponse, "value %d: datetime %q", i, dt)
				}
				if t.Second() != 0 || t.Nanosecond() != 0 {
					return sources.Errorf("", sources.ErrBadResponse, "value %d: %s is not the start of a minute", i, dt)
				}
				c := row.Get(1)
				if len(c) == 0 || string(c) == "null" {
					return nil // no trade
				}
				if !hasOldest || t.Before(oldest) { // one zone: the wall clock sorts as the time
					oldest, hasOldest = t, true
				}
				if !rough.Has(t) {
					return nil
				}
				v := sources.Held{Wall: t}
				if v.Key, err = text.Put(dt); err != nil {
					return err
				}
				return text.Hold(&kept, v, c, row.Get(2))
			})
		default:
			err = s.Skip()
		}
		return err
	})
	if err != nil {
		return page{}, err
	}
	if status == "error" {
		return page{}, bodyError(code, message)
	}
	if status != "ok" {
		return page{}, sources.Errorf("", sources.ErrBadResponse, "time_series status %q", status)
	}
	if !hasMeta {
		return page{}, sources.Errorf("", sources.ErrBadResponse, "time_series body has no meta")
	}
	if !strings.EqualFold(metaSymbol, symbol) {
		return page{}, sources.Errorf("", sources.ErrBadResponse, "asked for %q, series is of %q", symbol, metaSymbol)
	}
	if loc == nil {
		l, err := time.LoadLocation(zone)
		if err != nil || zone == "" {
			return page{}, sources.Errorf("", sources.ErrBadResponse, "exchange_timezone %q is not a time zone", zone)
		}
		loc = l
	}
	if hasOldest {
		p.oldest = sources.InZone(oldest, loc).UTC()
	}
	p.bars = make([]sources.Bar, 0, len(kept))
	for _, v := range kept {
		start := sources.InZone(v.Wall, loc).UTC()
		if !start.Truncate(time.Minute).Equal(start) {
			return page{}, sources.Errorf("", sources.ErrBadResponse, "value %s: not the start of a minute in %s", text.Get(v.Key), loc)
		}
		if !keep.Has(start) {
			continue
		}
		bar, err := sources.ParseBar(start, text.Get(v.Close), text.Get(v.Volume))
		if err != nil {
			return page{}, sources.Errorf("", sources.ErrBadResponse, "value %s: %v", text.Get(v.Key), err)
		}
		p.bars = append(p.bars, bar)
	}
	return p, nil
}

// errorKind maps Twelve Data's body code and words to a failure kind; nil means the body only
// says the window has no data (a weekend, a holiday), which is an empty window, not a failure.
func errorKind(code int, msg string) error {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "no data is available"):
		return nil
	case code == 401 || code == 403:
		return sources.ErrUnauthorized
	case code == 429 || strings.Contains(m, "run out of api credits"):
		return sources.ErrRateLimited
	case code >= 500:
		return sources.ErrUnavailable
	case code == 404 || strings.Contains(m, "**symbol**"):
		return sources.ErrUnknownSymbol
	}
	return sources.ErrBadResponse
}

func ceilSecond(t time.Time) time.Time {
	if c := t.Truncate(time.Second); c.Before(t) {
		return c.Add(time.Second)
	}
	return t
}
