// Package massive reads 1-minute aggregates from Massive (formerly Polygon.io): raw prices with
// adjusted=false, unix-millisecond bar starts, an apiKey query parameter, and next_url paging.
package massive

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Type is the source type sources.yaml names.
const Type = "massive"

// DefaultBaseURL is Massive's API host, base_url's default.
const DefaultBaseURL = "https://api.massive.com"

const (
	// MaxWindow: 30 days of 1-minute bars (at most 30×960 = 28800) fit one 50000-bar page.
	MaxWindow = 30 * 24 * time.Hour
	pageLimit = 50000
	maxPages  = 10000
	// DefaultDelay: the free plan serves end-of-day data; paid plans are 15-minute delayed or real
	// time, which the delay option says.
	DefaultDelay = 24 * time.Hour
)

// DefaultRate is the free plan's 5 requests a minute.
var DefaultRate = sources.Rate{N: 5, Per: time.Minute}

// Origins Massive's own next_url (or a redirect) may point at besides the configured base: the
// API moved from api.polygon.io to api.massive.com in 2025 and answers on both. The key is
// re-added only to these or to the base's own origin, never to one a body names (the client's
// Trusted rule, which its redirect policy applies too).
var knownOrigins = []string{"https://api.polygon.io", "https://api.massive.com"}

var options = map[string]string{
	"delay": sources.DelayHelp,
}

// DefaultFinalAfter: Massive holds each minute bar open for late trades and re-sends it when one
// changes it, for 15 minutes ("if a trade comes in after that 15-minute window, it will not be
// included in the candle until the end of the day", polygon.io/blog/aggregate-bar-delays; "we
// hold each bar open for late trades and rebroadcast it when one changes it", massive.com
// knowledge base, "Why am I receiving a late aggregate bar"). It publishes no bar for a minute
// without trades, so until then no bar and a bar not yet sent look the same.
const DefaultFinalAfter = 15 * time.Minute

// factory is the type's one Factory: registered, and what its sources are built with.
var factory = sources.Adapter(sources.Factory{Type: Type, KeyEnv: "MASSIVE_API_KEY", Options: options, NeedsKey: true, DefaultRate: DefaultRate, BaseURL: DefaultBaseURL, FinalAfter: DefaultFinalAfter}, build)

// Source is a Massive aggregates source: a one-ticker Pager over pages.
type Source struct {
	sources.OneTicker
	base *url.URL
}

// build makes a Massive source from its API key (Key) and options.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	delay, err := sources.DelayOption(s, DefaultDelay)
	if err != nil {
		return nil, err
	}
	src := &Source{}
	src.base, _ = url.Parse(s.BaseURL) // Keyed checked it
	src.OneTicker = sources.NewOneTicker(sources.NewBase(s, d, sources.ClientOptions{Origins: knownOrigins}, sources.Coverage{
		Sessions:   []market.Session{market.Pre, market.Regular, market.Post},
		MaxWindow:  MaxWindow,
		Page:       pageLimit,
		Paged:      true,
		Adjustment: sources.Raw,
		Delay:      delay,
	}), src.pages)
	return src, nil
}

// pages asks for one window of symbol and follows its next_url, handing each page tidied to the
// window (and to the minutes closed by now) with the part of the window it proves. The
// aggregates take any range, so the backfill asks for a whole span at once and keeps every page
// before the next_url is followed.
func (s *Source) pages(ctx context.Context, symbol string, from, to time.Time, each func(sources.Page) error) error {
	// Both ends of the path are inclusive milliseconds: [from, to) is from … to−1ms.
	path := fmt.Sprintf("/v2/aggs/ticker/%s/range/1/minute/%d/%d", url.PathEscape(symbol), ceilMilli(from), ceilMilli(to)-1)
	q := url.Values{"adjusted": {"false"}, "sort": {"asc"}, "limit": {strconv.Itoa(pageLimit)}, "apiKey": {s.Key()}}
	seen := map[string]bool{}
	for n := 0; ; n++ {
		if n == maxPages {
			return s.Client().Fail(sources.ErrBadResponse, 0, fmt.Sprintf("more than %d pages for one window", maxPages))
		}
		req := sources.Request{Path: path, Query: q, Limit: sources.BodyCap(from, to, 1), Keep: sources.Window{From: from, To: to}}
		pg, err := sources.Fetch(ctx, s.Client(), req, func(st *sources.Stream) (page, error) { return decode(st, symbol, req.Keep) })
		if err != nil {
			return err
		}
		bars, next := pg.bars, pg.next
		last := next == ""
		p := sources.Page{
			Bars:   map[string][]sources.Bar{symbol: sources.Tidy(bars, from, sources.ClosedBy(to, s.Now()))},
			Proven: map[string]sources.Window{},
		}
		if w, ok := sources.ProvenThrough(bars, from, to, last); ok {
			p.Proven[symbol] = w
		}
		if err := each(p); err != nil {
			return err
		}
		if last {
			return nil
		}
		if seen[next] {
			return s.Client().Fail(sources.ErrBadResponse, 200, "next_url repeats: the pages loop")
		}
		seen[next] = true
		if path, err = s.nextPage(next); err != nil {
			return s.Client().Adopt(200, err)
		}
		// next_url carries the cursor (with limit, sort and adjusted) but not the key.
		q = url.Values{"apiKey": {s.Key()}}
	}
}

// nextPage checks a next_url before the key goes to it: it must be http(s) on the base's host or
// one of Massive's own hosts, and must not already carry a key.
func (s *Source) nextPage(next string) (string, error) {
	u, err := url.Parse(next)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", sources.Errorf("", sources.ErrBadResponse, "next_url %q is not an http(s) URL", sources.Redact(next))
	}
	if !s.Client().Trusted(u) {
		return "", sources.Errorf("", sources.ErrBadResponse, "next_url points at %s, not at %s: the key is not sent there", sources.Origin(u), sources.Origin(s.base))
	}
	q := u.Query()
	q.Del("apiKey")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// page is one page of aggregates: the bars in the window asked and the next page's URL ("" on
// the last page).
type page struct {
	bars []sources.Bar
	next string
}

// parse reads a whole page held in memory (a recorded one), keeping every bar.
func parse(body []byte, symbol string) ([]sources.Bar, string, error) {
	p, err := sources.DecodeBytes(body, func(s *sources.Stream) (page, error) { return decode(s, symbol, sources.AllTime) })
	return p.bars, p.next, err
}

// decode reads one page of aggregates as it arrives, keeping the bars that start in keep. The
// status is checked even on HTTP 200: NOT_AUTHORIZED and ERROR arrive that way too, and since
// Massive writes it after the results, a broken result is reported only once the status is
// known to be OK.
func decode(s *sources.Stream, symbol string, keep sources.Window) (page, error) {
	var status, ticker, msg, errMsg string
	var p page
	var rowErr error
	row := sources.NewFields("t", "c", "v")
	s.Expect("an aggregates body")
	strs := []sources.Member{sources.Text("status", &status), sources.Text("ticker", &ticker), sources.Text("message", &msg), sources.Text("error", &errMsg), sources.Text("next_url", &p.next)}
	err := s.Members(strs, func(name []byte) error {
		if string(name) != "results" || s.Kind() == 'n' {
			return s.Skip()
		}
		if p.bars == nil {
			p.bars = make([]sources.Bar, 0, keep.Room(pageLimit))
		}
		p.bars = p.bars[:0]
		return s.Array(func(i int) error {
			if err := row.Read(s); err != nil {
				return err
			}
			if rowErr == nil {
				rowErr = result(row, i, keep, &p.bars)
			}
			return nil
		})
	})
	if err != nil {
		return page{}, err
	}
	if errMsg != "" {
		msg = errMsg
	}
	switch status {
	case "OK", "DELAYED": // DELAYED is a delayed plan's normal answer
	case "NOT_AUTHORIZED":
		return page{}, sources.Errorf("", sources.ErrUnauthorized, "%s", msg)
	case "ERROR":
		kind := sources.ErrBadResponse
		if l := strings.ToLower(msg); strings.Contains(l, "exceeded the maximum requests") || strings.Contains(l, "rate limit") {
			kind = sources.ErrRateLimited
		} else if strings.Contains(l, "api key") || strings.Contains(l, "apikey") {
			kind = sources.ErrUnauthorized
		}
		return page{}, sources.Errorf("", kind, "%s", msg)
	case "":
		return page{}, sources.Errorf("", sources.ErrBadResponse, "aggregates body has no status")
	default:
		return page{}, sources.Errorf("", sources.ErrBadResponse, "status %s: %s", status, msg)
	}
	if ticker != "" && !strings.EqualFold(ticker, symbol) {
		return page{}, sources.Errorf("", sources.ErrBadResponse, "asked for %q, aggregates are of %q", symbol, ticker)
	}
	if rowErr != nil {
		return page{}, rowErr
	}
	if p.bars == nil {
		p.bars = []sources.Bar{}
	}
	return p, nil
}

// result reads result i of a page (its t, c and v) and adds it to bars when it starts in keep.
func result(row *sources.Fields, i int, keep sources.Window, bars *[]sources.Bar) error {
	t := row.Get(0)
	ms, err := strconv.ParseInt(string(t), 10, 64)
	if err != nil {
		return sources.Errorf("", sources.ErrBadResponse, "result %d: t %q is not unix milliseconds", i, t)
	}
	if ms%60000 != 0 {
		return sources.Errorf("", sources.ErrBadResponse, "result %d: t %d is not the start of a minute", i, ms)
	}
	start := time.UnixMilli(ms).UTC()
	c := row.Get(1)
	if !keep.Has(start) || len(c) == 0 || string(c) == "null" {
		return nil // outside the window, or no trade
	}
	bar, err := sources.ParseBar(start, c, row.Get(2))
	if err != nil {
		return sources.Errorf("", sources.ErrBadResponse, "result at %s: %v", start.Format(time.RFC3339), err)
	}
	*bars = append(*bars, bar)
	return nil
}

func ceilMilli(t time.Time) int64 {
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return ms
}
