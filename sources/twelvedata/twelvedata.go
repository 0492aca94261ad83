// Package twelvedata reads 1-minute bars from Twelve Data's time_series endpoint: raw prices
// with adjust=none, numbers as strings, wall-clock datetimes in the zone asked for, and errors
// that arrive with HTTP 200 and the real code in the body.
package twelvedata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
const Type = "twelvedata"

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

var options = map[string]string{
	"timezone": "utc (default: datetimes asked for and read in UTC) or exchange (read in meta.exchange_timezone)",
	"prepost":  "true to ask for pre- and post-market bars (Pro plan and above); default false",
}

// factory is the type's one Factory: registered, and checked against by New.
var factory = sources.Factory{Type: Type, KeyEnv: "TWELVEDATA_API_KEY", Options: options, NeedsKey: true, DefaultRate: DefaultRate}

func init() { sources.Register(factory.Type, factory.With(New)) }

// Source is a Twelve Data time_series source.
type Source struct {
	name     string
	key      string
	exchange bool // datetimes in the exchange's zone instead of UTC
	prepost  bool
	pageSize int // outputsize asked for: the provider's maximum, smaller in tests
	client   *sources.Client
	now      func() time.Time
	cov      sources.Coverage
}

// New builds a Twelve Data source from its API key (Key) and options.
func New(s sources.Settings, d sources.Deps) (sources.Source, error) {
	s, err := sources.Keyed(s, factory, "twelvedata needs an API key", "https://api.twelvedata.com")
	if err != nil {
		return nil, err
	}
	src := &Source{name: s.Name, key: s.Key, pageSize: outputSize}
	switch v := strings.ToLower(strings.TrimSpace(s.Options["timezone"])); v {
	case "utc", "":
	case "exchange":
		src.exchange = true
	default:
		return nil, sources.OptionErrorf(s.Name, "timezone", "%q is not utc or exchange", v)
	}
	if v, ok := s.Options["prepost"]; ok {
		b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(v)))
		if err != nil {
			return nil, sources.OptionErrorf(s.Name, "prepost", "%q is not true or false", v)
		}
		src.prepost = b
	}
	d = d.WithDefaults()
	src.client = sources.NewClient(s, d, sources.ClientOptions{})
	src.now = d.Now
	sessions := []market.Session{market.Regular}
	if src.prepost {
		sessions = []market.Session{market.Pre, market.Regular, market.Post}
	}
	src.cov = sources.Coverage{
		Sessions:   sessions,
		MaxWindow:  MaxWindow,
		Page:       outputSize,
		Paged:      true,
		Adjustment: sources.Raw,
		Rate:       s.Rate,
	}
	return src, nil
}

// Name is the source's name in sources.yaml.
func (s *Source) Name() string { return s.name }

// Coverage says what the source can answer.
func (s *Source) Coverage() sources.Coverage { return s.cov }

// Bars returns the raw 1-minute bars of symbol that start in [from, to).
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	if err := sources.CheckWindow(s.name, symbol, from, to, 0, time.Time{}); err != nil {
		return nil, err
	}
	from, to = from.UTC(), to.UTC()
	var all []sources.Bar
	for _, w := range sources.Windows(from, to, MaxWindow) {
		err := s.pages(ctx, symbol, w.From, w.To, func(p sources.Page) error {
			all = append(all, p.Bars[symbol]...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return sources.Tidy(all, from, sources.ClosedBy(to, s.now())), nil
}

// Pages asks for [from, to) of each symbol whatever its width, outputsize bars at a time: Twelve
// Data answers the latest outputsize bars of a window, so each page moves end_date back before
// its oldest bar and proves the window from that bar to its end.
func (s *Source) Pages(ctx context.Context, symbols []string, from, to time.Time, each func(sources.Page) error) error {
	for _, sym := range symbols {
		if err := sources.CheckWindow(s.name, sym, from, to, 0, time.Time{}); err != nil {
			return err
		}
		if err := s.pages(ctx, sym, from.UTC(), to.UTC(), each); err != nil {
			return err
		}
	}
	return nil
}

// pages reads one window of symbol from its end back, a page of outputsize bars at a time.
func (s *Source) pages(ctx context.Context, symbol string, from, to time.Time, each func(sources.Page) error) error {
	// The request's wall clock: UTC, or New York for a US exchange when reading exchange time.
	reqLoc, parseLoc := time.UTC, time.UTC
	if s.exchange {
		reqLoc, parseLoc = market.NewYork, nil
	}
	end := to.Add(-time.Nanosecond).Truncate(time.Second) // end_date is inclusive
	for page := 0; ; page++ {
		if page == maxPages {
			return s.client.Fail(sources.ErrBadResponse, 0, fmt.Sprintf("more than %d pages for one window", maxPages))
		}
		q := url.Values{
			"symbol":     {symbol},
			"interval":   {"1min"},
			"start_date": {ceilSecond(from).In(reqLoc).Format(dateLayout)},
			"end_date":   {end.In(reqLoc).Format(dateLayout)},
			"order":      {"asc"},
			"adjust":     {"none"},
			"outputsize": {strconv.Itoa(s.pageSize)},
			"apikey":     {s.key},
		}
		if !s.exchange {
			q.Set("timezone", "UTC")
		}
		if s.prepost {
			q.Set("prepost", "true")
		}
		resp, err := s.client.GetCapped(ctx, "/time_series", q, sources.BodyCap(from, minTime(to, from.Add(MaxWindow)), 1))
		if err != nil {
			return err
		}
		// Twelve Data explains failures in a JSON body under 200 and under other statuses
		// alike; a non-200 without that body is classified by its status.
		if resp.Status != http.StatusOK && !isErrorBody(resp.Body) {
			return s.client.StatusError(resp, sources.FirstLine(resp.Body))
		}
		bars, n, err := parse(resp.Body, symbol, parseLoc)
		if err != nil {
			return s.fail(err, resp)
		}
		// A full page holds the latest outputsize bars of the window: the earlier ones are
		// asked for next, ending before the oldest bar of this page.
		last := n < s.pageSize || len(bars) == 0
		oldest := to
		for _, b := range bars {
			if b.Start.Before(oldest) {
				oldest = b.Start
			}
		}
		if !oldest.After(from) {
			last = true
		}
		p := sources.Page{
			Bars:   map[string][]sources.Bar{symbol: sources.Tidy(bars, from, sources.ClosedBy(to, s.now()))},
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

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func (s *Source) fail(err error, resp *sources.Response) error {
	var e *sources.Error
	if errors.As(err, &e) {
		out := s.client.Fail(e.Kind, resp.Status, e.Msg)
		if e.Kind == sources.ErrRateLimited {
			out.RetryAfter = sources.RetryAfter(resp.Header, s.now())
		}
		return out
	}
	return s.client.Fail(sources.ErrBadResponse, resp.Status, err.Error())
}

// seriesBody is a time_series answer or its error shape; numbers stay text.
type seriesBody struct {
	Meta *struct {
		Symbol           string `json:"symbol"`
		ExchangeTimezone string `json:"exchange_timezone"`
	} `json:"meta"`
	Values []struct {
		Datetime string          `json:"datetime"`
		Close    json.RawMessage `json:"close"`
		Volume   json.RawMessage `json:"volume"`
	} `json:"values"`
	Status  string          `json:"status"`
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

// parse reads a time_series body into bars (in the body's order) and the number of values it
// held. loc is the zone the datetimes are in; nil means meta.exchange_timezone. An error body
// saying the window has no data is an empty window; other error codes map to kinds.
func parse(body []byte, symbol string, loc *time.Location) ([]sources.Bar, int, error) {
	var b seriesBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, 0, sources.Errorf("", sources.ErrBadResponse, "time_series body: %v", err)
	}
	if b.Status == "error" {
		code, _ := strconv.Atoi(strings.Trim(string(b.Code), `"`))
		kind := errorKind(code, b.Message)
		if kind == nil {
			return []sources.Bar{}, 0, nil
		}
		return nil, 0, sources.Errorf("", kind, "code %d: %s", code, b.Message)
	}
	if b.Status != "ok" {
		return nil, 0, sources.Errorf("", sources.ErrBadResponse, "time_series status %q", b.Status)
	}
	if b.Meta == nil {
		return nil, 0, sources.Errorf("", sources.ErrBadResponse, "time_series body has no meta")
	}
	if !strings.EqualFold(b.Meta.Symbol, symbol) {
		return nil, 0, sources.Errorf("", sources.ErrBadResponse, "asked for %q, series is of %q", symbol, b.Meta.Symbol)
	}
	if loc == nil {
		l, err := time.LoadLocation(b.Meta.ExchangeTimezone)
		if err != nil || b.Meta.ExchangeTimezone == "" {
			return nil, 0, sources.Errorf("", sources.ErrBadResponse, "exchange_timezone %q is not a time zone", b.Meta.ExchangeTimezone)
		}
		loc = l
	}
	out := make([]sources.Bar, 0, len(b.Values))
	for i, v := range b.Values {
		t, err := time.ParseInLocation(dateLayout, v.Datetime, loc)
		if err != nil {
			return nil, 0, sources.Errorf("", sources.ErrBadResponse, "value %d: datetime %q", i, v.Datetime)
		}
		start := t.UTC()
		if !start.Truncate(time.Minute).Equal(start) {
			return nil, 0, sources.Errorf("", sources.ErrBadResponse, "value %d: %s is not the start of a minute", i, v.Datetime)
		}
		if len(v.Close) == 0 || string(v.Close) == "null" {
			continue // no trade
		}
		price, err := numeric.ParsePrice(string(v.Close))
		if err != nil {
			return nil, 0, sources.Errorf("", sources.ErrBadResponse, "value %s: close: %v", v.Datetime, err)
		}
		vol, err := sources.ParseVolume(string(v.Volume))
		if err != nil {
			return nil, 0, sources.Errorf("", sources.ErrBadResponse, "value %s: %v", v.Datetime, err)
		}
		out = append(out, sources.Bar{Start: start, Close: price, Volume: vol})
	}
	return out, len(b.Values), nil
}

func isErrorBody(body []byte) bool {
	var b struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(body, &b) == nil && b.Status == "error"
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
