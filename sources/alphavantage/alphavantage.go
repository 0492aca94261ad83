// Package alphavantage reads 1-minute bars from Alpha Vantage's TIME_SERIES_INTRADAY, one
// calendar month per request: raw prices with adjusted=false, New York wall-clock keys, and errors
// and throttling that arrive with HTTP 200 under other top-level keys.
//
// Bar labels. Alpha Vantage's keys have been labelled both ways over the years. The recorded
// 2020 extended-history CSV (testdata) is END-labelled: its day ends with a 20:00:00 key, which
// can only be the 19:59–20:00 bar since extended hours end at 20:00 (and, per the research, it
// starts at 04:01 and puts the opening cross on 09:31). The recorded 2017 MSFT JSON cannot tell:
// it is 100 consecutive mid-session minutes. Responses of today's endpoint (the month= one this
// adapter calls) as copied into public code from 2023-11 to 2025-08 all end an extended day at
// 19:59:00, never 20:00:00, and the 5-minute and 60-minute series end at 19:55 and 19:00: START
// labels. So the default is label: start, and label: end reads data that follows the old
// convention. A body carries its own evidence, and the adapter follows it per body: a body that
// holds a 20:00:00 key is END-labelled (extended hours end at 20:00), one that holds a 04:00:00
// key is START-labelled (they begin at 04:00); only a body with neither is read by the option.
// Evidence that contradicts the option is logged as a warning (the option is likely wrong); a
// body holding both keys contradicts itself and is a bad response.
package alphavantage

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Type is the source type sources.yaml names.
const Type = "alphavantage"

// DefaultBaseURL is Alpha Vantage's API host, base_url's default.
const DefaultBaseURL = "https://www.alphavantage.co"

const (
	keyLayout = "2006-01-02 15:04:05"
	// DefaultDelay: the free plan's intraday series is updated at the end of the day; the delay
	// option says otherwise for premium plans.
	DefaultDelay = 24 * time.Hour
	// MaxWindow is the longest calendar month; Bars splits at New York month boundaries.
	MaxWindow = 31 * 24 * time.Hour
)

// First is the first month Alpha Vantage serves 1-minute bars for.
var First = time.Date(2000, 1, 1, 0, 0, 0, 0, market.NewYork)

// DefaultRate: the free plan is often quoted at 5 requests a minute; the coverage table holds
// the source to 5/min, and DefaultQuota to the free plan's day.
var DefaultRate = sources.Rate{N: 5, Per: time.Minute}

// DefaultQuota is the free plan's 25 requests a day, in Alpha Vantage's own words when a key
// passes it: "Our standard API rate limit is 25 requests per day" (the throttle body quoted in
// /work/shared/research/quote-sources.md §Alpha Vantage; alphavantage.co/premium).
var DefaultQuota = sources.Quota{{N: 25, Per: sources.QuotaDay}}

var options = map[string]string{
	"label": "start (default: a key is the minute the bar starts, as today's endpoint labels) or end (the old convention)",
	"delay": sources.DelayHelp,
}

// DefaultFinalAfter: Alpha Vantage documents nothing about when a minute bar is final (its free
// plan serves a day late anyway: DefaultDelay); conservative, sources.UndocumentedFinalAfter.
const DefaultFinalAfter = sources.UndocumentedFinalAfter

// factory is the type's one Factory: registered, and what its sources are built with.
var factory = sources.Adapter(sources.Factory{Type: Type, KeyEnv: "ALPHAVANTAGE_API_KEY", Options: options, NeedsKey: true, DefaultRate: DefaultRate, DefaultQuota: DefaultQuota, BaseURL: DefaultBaseURL, FinalAfter: DefaultFinalAfter}, build)

// Source is an Alpha Vantage intraday source.
type Source struct {
	sources.Base
	endLabel bool
}

// build makes an Alpha Vantage source from its API key (Key) and options.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	label, err := sources.ChoiceOption(s, "label", "start", "end")
	if err != nil {
		return nil, err
	}
	delay, err := sources.DelayOption(s, DefaultDelay)
	if err != nil {
		return nil, err
	}
	sessions := []market.Session{market.Pre, market.Regular, market.Post}
	cov := sources.Coverage{Sessions: sessions, Since: First.UTC(), Cut: sources.CutMonth, MaxWindow: MaxWindow, Adjustment: sources.Raw, Delay: delay}
	return &Source{Base: sources.NewBase(s, d, sources.ClientOptions{}, cov), endLabel: label == "end"}, nil
}

// Bars returns the raw 1-minute bars of symbol that start in [from, to), one request per New
// York calendar month the window touches.
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	if err := s.Check(symbol, from, to); err != nil {
		return nil, err
	}
	from, to = from.UTC(), to.UTC()
	end := sources.ClosedBy(to, s.Now())
	var all []sources.Bar
	for _, m := range months(from, to) {
		if !m.Before(end) {
			break // a month that has not begun has no bars: do not spend a request on it
		}
		if m.Before(First) {
			return nil, s.Client().Fail(sources.ErrUnsupportedWindow, 0, fmt.Sprintf("1-minute bars begin with 2000-01; asked for %s", m.Format("2006-01")))
		}
		q := url.Values{
			"function":       {"TIME_SERIES_INTRADAY"},
			"symbol":         {symbol},
			"interval":       {"1min"},
			"month":          {m.Format("2006-01")},
			"outputsize":     {"full"},
			"extended_hours": {"true"},
			"adjusted":       {"false"},
			"datatype":       {"json"},
			"apikey":         {s.Key()},
		}
		req := sources.Request{Path: "/query", Query: q, Limit: sources.BodyCap(m, m.AddDate(0, 1, 0), 1), Keep: sources.Window{From: from, To: end}}
		p, err := sources.Fetch(ctx, s.Client(), req, func(st *sources.Stream) (month, error) { return decode(st, symbol, s.endLabel, req.Keep) })
		if err != nil {
			return nil, err
		}
		bars, warning := p.bars, p.warning
		if warning != "" {
			s.Logger().Warn("alphavantage bar labels look wrong", "source", s.Name(), "month", m.Format("2006-01"), "symbol", symbol, "why", warning)
		}
		all = sources.Join(all, bars)
	}
	return sources.Tidy(all, from, end), nil
}

// months lists the first instant (New York midnight) of every calendar month that [from, to)
// touches.
func months(from, to time.Time) []time.Time {
	f := from.In(market.NewYork)
	m := time.Date(f.Year(), f.Month(), 1, 0, 0, 0, 0, market.NewYork)
	var out []time.Time
	for ; m.Before(to); m = m.AddDate(0, 1, 0) {
		out = append(out, m)
	}
	return out
}

// month is one month's answer: the bars in the window asked, and a warning when the body's own
// evidence of its labels overrode the label option.
type month struct {
	bars    []sources.Bar
	warning string
}

// parse reads a whole body held in memory (a recorded one), keeping every bar.
func parse(raw []byte, symbol string, endLabel bool) ([]sources.Bar, string, error) {
	m, err := sources.DecodeBytes(raw, func(s *sources.Stream) (month, error) { return decode(s, symbol, endLabel, sources.AllTime) })
	return m.bars, m.warning, err
}

// decode reads a TIME_SERIES_INTRADAY JSON body as it arrives into the bars that start in keep
// (in no particular order). endLabel says whether a key is the minute the bar ends (the old
// convention) rather than the one it starts, for a body without evidence of its own (see
// labelEvidence); the warning is non-empty when the body's evidence overrode it. Zone and labels
// are known only once the whole body is read, so keys are first placed roughly (a day either
// side of keep, as if in UTC) and read exactly at the end.
func decode(s *sources.Stream, symbol string, endLabel bool, keep sources.Window) (month, error) {
	rough := keep.Widen(24*time.Hour + time.Minute)
	var metaSymbol, interval, zone, information, note, errorMessage string
	var hasMeta, hasSeries, ends, starts bool
	var kept []sources.Held // an entry's Wall is its key read in UTC until the body's zone and labels are known
	var text sources.Texts  // the kept entries' texts
	bar := sources.NewFields("4. close", "5. volume")
	s.Expect("an intraday body")
	strs := []sources.Member{sources.Text("Information", &information), sources.Text("Note", &note), sources.Text("Error Message", &errorMessage)}
	err := s.Members(strs, func(name []byte) error {
		var err error
		switch string(name) {
		case "Meta Data":
			hasMeta, err = s.Strings(sources.Text("2. Symbol", &metaSymbol), sources.Text("4. Interval", &interval), sources.Text("6. Time Zone", &zone))
		case "Time Series (1min)":
			if s.Kind() == 'n' {
				return s.Skip()
			}
			hasSeries = true
			return s.Object(func(name []byte) error {
				key := name
				switch {
				case bytes.HasSuffix(key, []byte(" 20:00:00")):
					ends = true
				case bytes.HasSuffix(key, []byte(" 04:00:00")):
					starts = true
				}
				t, err := sources.ParseWallClock(key, time.UTC)
				if err != nil {
					return sources.Errorf("", sources.ErrBadResponse, "key %q is not a wall-clock time", key)
				}
				if !rough.Has(t) {
					return s.Skip()
				}
				e := sources.Held{Wall: t}
				if e.Key, err = text.Put(key); err != nil { // before the next read reuses it
					return err
				}
				if err := bar.Read(s); err != nil {
					return sources.Errorf("", sources.ErrBadResponse, "bar %s: %v", text.Get(e.Key), err)
				}
				return text.Hold(&kept, e, bar.Get(0), bar.Get(1))
			})
		default:
			err = s.Skip()
		}
		return err
	})
	if err != nil {
		return month{}, err
	}
	if errorMessage != "" {
		kind := sources.ErrBadResponse
		switch m := strings.ToLower(errorMessage); {
		case strings.Contains(m, "apikey") || strings.Contains(m, "api key"):
			kind = sources.ErrUnauthorized
		case strings.Contains(m, "invalid api call"):
			kind = sources.ErrUnknownSymbol // Alpha Vantage's whole answer to a symbol it does not know
		}
		return month{}, sources.Errorf("", kind, "%s", errorMessage)
	}
	if !hasSeries {
		if msg := information + note; msg != "" {
			kind := sources.ErrRateLimited
			if m := strings.ToLower(msg); strings.Contains(m, "premium endpoint") && !strings.Contains(m, "rate limit") {
				kind = sources.ErrUnauthorized
			}
			return month{}, sources.Errorf("", kind, "%s", msg)
		}
		return month{}, sources.Errorf("", sources.ErrBadResponse, `no "Time Series (1min)" in the body`)
	}
	if !hasMeta {
		return month{}, sources.Errorf("", sources.ErrBadResponse, `no "Meta Data" to say whose series this is`)
	}
	if !strings.EqualFold(metaSymbol, symbol) {
		return month{}, sources.Errorf("", sources.ErrBadResponse, "asked for %q, series is of %q", symbol, metaSymbol)
	}
	if interval != "" && interval != "1min" {
		return month{}, sources.Errorf("", sources.ErrBadResponse, "series interval %q, want 1min", interval)
	}
	loc := market.NewYork
	if zone != "" {
		l, err := time.LoadLocation(zone)
		if err != nil {
			return month{}, sources.Errorf("", sources.ErrBadResponse, "time zone %q: %v", zone, err)
		}
		loc = l
	}
	endLabel, warning, err := labelEvidence(ends, starts, endLabel)
	if err != nil {
		return month{}, err
	}
	out := make([]sources.Bar, 0, len(kept))
	for _, e := range kept {
		start := sources.InZone(e.Wall, loc).UTC()
		if endLabel {
			start = start.Add(-time.Minute)
		}
		if !start.Truncate(time.Minute).Equal(start) {
			return month{}, sources.Errorf("", sources.ErrBadResponse, "key %q is not a whole minute", text.Get(e.Key))
		}
		c := text.Get(e.Close)
		if !keep.Has(start) || len(c) == 0 || string(c) == "null" {
			continue // outside the window, or no trade
		}
		bar, err := sources.ParseBar(start, c, text.Get(e.Volume))
		if err != nil {
			return month{}, sources.Errorf("", sources.ErrBadResponse, "bar %s: %v", text.Get(e.Key), err)
		}
		out = append(out, bar)
	}
	return month{bars: out, warning: warning}, nil
}

// labelEvidence is how a body's keys are labelled: by the body's own evidence where it has any
// (a 20:00:00 key: END-labelled, since extended hours end at 20:00; a 04:00:00 key:
// START-labelled, since they begin at 04:00: ends and starts say whether the body had such a
// key), else as the option says. warning says when the
// evidence overrode the option; a body with both keys is an error.
func labelEvidence(ends, starts, option bool) (endLabel bool, warning string, err error) {
	switch {
	case ends && starts:
		return false, "", sources.Errorf("", sources.ErrBadResponse, "keys at 04:00:00 and at 20:00:00: the body is labelled neither by bar start nor by bar end")
	case ends && !option:
		return true, "a 20:00:00 key: extended hours end at 20:00, so the keys are END-labelled and read so (set label: end)", nil
	case starts && option:
		return false, "a 04:00:00 key: extended hours begin at 04:00, so the keys are START-labelled and read so (set label: start)", nil
	case ends:
		return true, "", nil
	case starts:
		return false, "", nil
	}
	return option, "", nil
}
