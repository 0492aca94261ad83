// Package alpaca reads 1-minute bars from Alpaca Market Data v2: raw (as-traded) prices, years
// of history, a key id and secret sent as headers, and next_page_token pagination.
package alpaca

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Type is the source type sources.yaml names.
const Type = "alpaca"

// DefaultBaseURL is Alpaca's market data API, base_url's default.
const DefaultBaseURL = "https://data.alpaca.markets"

const (
	// MaxWindow: a week of 1-minute bars of one symbol (at most 7×960) fits one 10000-bar page.
	MaxWindow = 7 * 24 * time.Hour
	pageLimit = 10000
	maxPages  = 10000 // a provider that never stops paging is broken, not busy
)

// DefaultRate is the free Basic plan's commonly cited 200 requests a minute.
var DefaultRate = sources.Rate{N: 200, Per: time.Minute}

// feeds maps each feed Alpaca serves to the sessions its bars include and how long after a
// minute its bar may be asked for: IEX is real time on every plan; SIP is free only for bars at
// least 15 minutes old; BOATS (Blue Ocean) trades overnight.
var feeds = map[string]struct {
	sessions []market.Session
	delay    time.Duration
}{
	"iex":         {[]market.Session{market.Pre, market.Regular, market.Post}, 0},
	"sip":         {[]market.Session{market.Pre, market.Regular, market.Post}, 15 * time.Minute},
	"delayed_sip": {[]market.Session{market.Pre, market.Regular, market.Post}, 15 * time.Minute},
	"otc":         {[]market.Session{market.Pre, market.Regular, market.Post}, 0},
	"boats":       {[]market.Session{market.Overnight}, 0},
	"overnight":   {[]market.Session{market.Overnight}, 0},
}

// DefaultFinalAfter: Alpaca calculates a minute bar 1 s after the minute and recalculates it 30 s
// later for trades reported late ("Because trade data can be delivered up to 10 seconds after the
// actual execution, the bar is then recalculated after 30 seconds", alpaca.markets/learn-api/
// stock-minute-bars; the stream sends that bar on its updatedBars channel, forum.alpaca.markets/t/
// alpaca-market-data-update-bars/8947: the 9:31 bar again at 9:32:30), plus 5 s for the
// recalculated bar to reach the REST endpoint.
const DefaultFinalAfter = 35 * time.Second

// factory is the type's one Factory: registered, and what its sources are built with.
var factory = sources.Adapter(sources.Factory{
	Type: Type,
	Options: map[string]string{
		"feed": "iex (default: the only feed without a subscription), sip, delayed_sip, otc, boats or overnight",
	},
	NeedsKey:    true,
	NeedsSecret: true,
	KeyEnv:      "ALPACA_API_KEY_ID",
	SecretEnv:   "ALPACA_API_SECRET_KEY",
	KeyHelp:     "alpaca needs a key id and a secret",
	BaseURL:     DefaultBaseURL,
	DefaultRate: DefaultRate,
	FinalAfter:  DefaultFinalAfter,
}, build)

// Source is an Alpaca bars source: a sources.Pager, and a sources.Batcher through its
// multi-symbol endpoint.
type Source struct {
	sources.Base
	feed string
}

// build makes an Alpaca source from its key id (Key), secret (Secret) and feed option.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	feed, err := sources.ChoiceOption(s, "feed", "iex", "sip", "delayed_sip", "otc", "boats", "overnight")
	if err != nil {
		return nil, err
	}
	f := feeds[feed]
	auth := map[string]string{"APCA-API-KEY-ID": s.Key, "APCA-API-SECRET-KEY": s.Secret}
	cov := sources.Coverage{Sessions: f.sessions, MaxWindow: MaxWindow, Page: pageLimit, Paged: true, Adjustment: sources.Raw, Delay: f.delay}
	return &Source{Base: sources.NewBase(s, d, sources.ClientOptions{Header: auth, ReadError: readError}, cov), feed: feed}, nil
}

// Bars returns the raw 1-minute bars of symbol that start in [from, to).
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	m, err := s.fetch(ctx, "/v2/stocks/"+url.PathEscape(symbol)+"/bars", []string{symbol}, from, to)
	if err != nil {
		return nil, err
	}
	return m[symbol], nil
}

// the backfill finds these by type: a drifted signature would silently stop its batching
var (
	_ sources.Pager   = (*Source)(nil)
	_ sources.Batcher = (*Source)(nil)
)

// BarsMulti returns the bars of several symbols at once through the multi-symbol endpoint, for
// backfill (a sources.Batcher): one request pages through all of them. Every symbol asked for has an entry, empty
// when it did not trade.
func (s *Source) BarsMulti(ctx context.Context, symbols []string, from, to time.Time) (map[string][]sources.Bar, error) {
	if len(symbols) == 0 {
		return map[string][]sources.Bar{}, nil
	}
	return s.fetch(ctx, "/v2/stocks/bars", symbols, from, to)
}

func (s *Source) fetch(ctx context.Context, path string, symbols []string, from, to time.Time) (map[string][]sources.Bar, error) {
	if err := sources.CheckWindows(s.Name(), symbols, from, to); err != nil {
		return nil, err
	}
	all := map[string][]sources.Bar{}
	for _, sym := range symbols {
		all[sym] = []sources.Bar{}
	}
	for _, w := range sources.Windows(from.UTC(), to.UTC(), MaxWindow) {
		err := s.pages(ctx, path, symbols, w.From, w.To, "", func(p sources.Page) error {
			for sym, b := range p.Bars {
				all[sym] = append(all[sym], b...)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return all, nil
}

// Pages asks for [from, to) of the symbols in one request, whatever its width (Alpaca takes any
// start and end), and hands each page as it arrives: the backfill keeps every page before it
// asks for the next. Alpaca sorts a multi-symbol answer by symbol, then time, so a page proves
// the symbols before its last one whole, its last one up to its last bar, and nothing of the
// symbols after. Each page but the last carries its next_page_token as Next: Alpaca's tokens name
// the symbol and bar the next page starts at, so the same request resumes there later.
func (s *Source) Pages(ctx context.Context, symbols []string, from, to time.Time, resume string, each func(sources.Page) error) error {
	if len(symbols) == 0 {
		return nil
	}
	path := "/v2/stocks/bars"
	if len(symbols) == 1 {
		path = "/v2/stocks/" + url.PathEscape(symbols[0]) + "/bars"
	}
	return s.pages(ctx, path, symbols, from.UTC(), to.UTC(), resume, each)
}

// pages asks for one window and follows its next_page_token, handing each page tidied to the
// window (and to the minutes closed by now).
func (s *Source) pages(ctx context.Context, path string, symbols []string, from, to time.Time, resume string, each func(sources.Page) error) error {
	if err := sources.CheckWindows(s.Name(), symbols, from, to); err != nil {
		return err
	}
	multi := path == "/v2/stocks/bars"
	q := url.Values{
		"timeframe":  {"1Min"},
		"start":      {from.Truncate(time.Second).Format(time.RFC3339)},
		"end":        {inclusiveEnd(to).Format(time.RFC3339)},
		"limit":      {strconv.Itoa(pageLimit)},
		"adjustment": {"raw"},
		"feed":       {s.feed},
		"sort":       {"asc"},
	}
	if multi {
		q.Set("symbols", strings.Join(symbols, ","))
	}
	order := slices.Clone(symbols) // the order Alpaca pages in
	slices.SortFunc(order, func(a, b string) int { return strings.Compare(strings.ToUpper(a), strings.ToUpper(b)) })
	seen := map[string]bool{}
	if resume != "" {
		q.Set("page_token", resume)
		seen[resume] = true
	}
	for n := 0; ; n++ {
		if n == maxPages {
			return s.Client().Fail(sources.ErrBadResponse, 0, fmt.Sprintf("more than %d pages for one window", maxPages))
		}
		req := sources.Request{Path: path, Query: q, Limit: sources.BodyCap(from, to, len(symbols)), Keep: sources.Window{From: from, To: to}}
		pg, err := sources.Fetch(ctx, s.Client(), req, func(st *sources.Stream) (page, error) { return decode(st, symbols, multi, req.Keep) })
		if err != nil {
			return err
		}
		bars, next := pg.bars, pg.next
		last := next == ""
		if !last {
			if seen[next] {
				return s.Client().Fail(sources.ErrBadResponse, 200, "next_page_token repeats: the pages loop")
			}
			seen[next] = true
		}
		end := sources.ClosedBy(to, s.Now())
		p := sources.Page{Bars: map[string][]sources.Bar{}, Proven: map[string]sources.Window{}, Next: next}
		current := -1 // the last symbol of the page in Alpaca's order
		for i, sym := range order {
			if b := bars[sym]; len(b) > 0 {
				p.Bars[sym] = sources.Tidy(b, from, end)
				current = i
			}
		}
		for i, sym := range order {
			switch {
			case last || i < current:
				p.Proven[sym] = sources.Window{From: from, To: to}
			case i == current:
				if w, ok := sources.ProvenThrough(bars[sym], from, to, false); ok {
					p.Proven[sym] = w
				}
			}
		}
		if err := each(p); err != nil {
			return err
		}
		if last {
			return nil
		}
		q.Set("page_token", next)
	}
}

// inclusiveEnd turns the exclusive end of [from, to) into Alpaca's inclusive end: the last whole
// second before to, so a bar starting at to is not asked for and one starting before it is.
func inclusiveEnd(to time.Time) time.Time {
	return to.Add(-time.Nanosecond).Truncate(time.Second)
}

// readError reads Alpaca's error body, {"code": …, "message": …}: a 400, 404 or 422 that speaks
// of the symbol is an unknown symbol; the status says the rest.
func readError(status int, body []byte) (string, error) {
	msg := sources.ProviderMessage(body)
	if (status == http.StatusUnprocessableEntity || status == http.StatusBadRequest || status == http.StatusNotFound) &&
		strings.Contains(strings.ToLower(msg), "symbol") {
		return msg, sources.ErrUnknownSymbol
	}
	return msg, nil
}

// codeKind reads Alpaca's 8-digit error codes, whose first three digits are the HTTP status
// they stand for (42210000 is a 422, 50010000 a 500), for errors that arrive in a 200.
func codeKind(code int64) error {
	switch status := code / 100000; {
	case status == 401 || status == 403:
		return sources.ErrUnauthorized
	case status == 429:
		return sources.ErrRateLimited
	case status >= 500 && status < 600:
		return sources.ErrUnavailable
	}
	return sources.ErrBadResponse
}

// page is one page of bars: those of each symbol in the window asked, and the next page's token
// ("" on the last page).
type page struct {
	bars map[string][]sources.Bar
	next string
}

// parse reads a whole single-symbol page held in memory (a recorded one), keeping every bar.
func parse(body []byte, symbol string) ([]sources.Bar, string, error) {
	p, err := sources.DecodeBytes(body, func(s *sources.Stream) (page, error) {
		return decode(s, []string{symbol}, false, sources.AllTime)
	})
	bars := p.bars[symbol]
	if err == nil && bars == nil {
		bars = []sources.Bar{} // the symbol did not trade
	}
	return bars, p.next, err
}

// parseMulti reads a whole multi-symbol page held in memory, keeping every bar.
func parseMulti(body []byte, symbols []string) (map[string][]sources.Bar, string, error) {
	p, err := sources.DecodeBytes(body, func(s *sources.Stream) (page, error) { return decode(s, symbols, true, sources.AllTime) })
	return p.bars, p.next, err
}

// decode reads a bars page as it arrives, keeping the bars that start in keep. bars is an array
// on the single-symbol endpoint and an object keyed by symbol on the multi-symbol one (the
// single-symbol endpoint may answer that way too, with its one symbol). A symbol that did not
// trade is absent; a symbol that was not asked for is a bad response. An error arrives as
// {"code": …, "message": …}, under a 200 too.
func decode(s *sources.Stream, symbols []string, multi bool, keep sources.Window) (page, error) {
	p := page{bars: map[string][]sources.Bar{}}
	var symbol, message string
	var hasBars, hasSymbol, hasToken bool
	var code int64
	want := map[string]string{}
	for _, sym := range symbols {
		want[strings.ToUpper(sym)] = sym
	}
	row := sources.NewFields("t", "c", "v")
	// The page's bars, at most pageLimit across its symbols, go into one slab sized for them:
	// each symbol's list takes the slab's next part, so no list is copied as it grows.
	slab := make([]sources.Bar, 0, min(pageLimit, keep.Room(pageLimit)*len(symbols)))
	list := func(sym string) error {
		if s.Kind() == 'n' {
			return s.Skip()
		}
		if s.Kind() != '[' {
			if err := s.Skip(); err != nil {
				return err
			}
			return sources.Errorf("", sources.ErrBadResponse, "bars of %s are not a list", sym)
		}
		bars := p.bars[sym]
		fromSlab := bars == nil
		if fromSlab {
			bars = slab[len(slab):]
		}
		err := s.Array(func(i int) error {
			if err := row.Read(s); err != nil {
				return err
			}
			b, ok, err := bar(row, i, sym, keep)
			if ok {
				bars = append(bars, b)
			}
			return err
		})
		if fromSlab && len(bars) <= cap(slab)-len(slab) {
			// still in the slab (a list past its room was moved out by append): the next
			// symbol's part starts after it, and the list is clipped so an append copies
			slab = slab[:len(slab)+len(bars)]
			bars = bars[:len(bars):len(bars)]
		}
		p.bars[sym] = bars
		return err
	}
	s.Expect("a bars body")
	err := s.Object(func(name []byte) error {
		var err error
		switch string(name) {
		case "bars":
			hasBars = true
			switch k := s.Kind(); {
			case k == 'n':
				return s.Skip()
			case k == '[' && !multi:
				return list(symbols[0])
			case k == '{':
				return s.Object(func(key []byte) error {
					sym, ok := want[strings.ToUpper(string(key))]
					if !ok {
						return sources.Errorf("", sources.ErrBadResponse, "bars of %q, which was not asked for", key)
					}
					return list(sym)
				})
			case multi:
				return sources.Errorf("", sources.ErrBadResponse, "multi-symbol bars is not an object")
			default:
				return sources.Errorf("", sources.ErrBadResponse, "bars is neither a list nor an object")
			}
		case "symbol":
			hasSymbol = s.Kind() != 'n'
			symbol, err = s.String()
		case "next_page_token":
			hasToken = s.Kind() != 'n'
			p.next, err = s.String()
		case "message":
			message, err = s.String()
		case "code":
			var raw []byte
			if raw, err = s.Raw(); err == nil {
				code, _ = strconv.ParseInt(string(raw), 10, 64)
			}
		default:
			err = s.Skip()
		}
		return err
	})
	if err != nil {
		return page{}, err
	}
	if !hasBars && !hasToken && message != "" {
		return page{}, sources.Errorf("", codeKind(code), "%s", message)
	}
	if hasSymbol && !multi && !strings.EqualFold(symbol, symbols[0]) {
		return page{}, sources.Errorf("", sources.ErrBadResponse, "asked for %q, bars are of %q", symbols[0], symbol)
	}
	return p, nil
}

// bar reads bar i of symbol's list; ok when it starts in keep and traded.
func bar(row *sources.Fields, i int, symbol string, keep sources.Window) (sources.Bar, bool, error) {
	text, err := sources.TextBytes(row.Get(0)) // in place: no copy of the time per bar
	if err != nil {
		text = row.Get(0)
	}
	start, err := sources.ParseRFC3339(text)
	if err != nil {
		return sources.Bar{}, false, sources.Errorf("", sources.ErrBadResponse, "bar %d of %s: time %q: not RFC3339", i, symbol, text)
	}
	if !start.Truncate(time.Minute).Equal(start) {
		return sources.Bar{}, false, sources.Errorf("", sources.ErrBadResponse, "bar %d of %s: %s is not the start of a minute", i, symbol, text)
	}
	c := row.Get(1)
	if !keep.Has(start) || len(c) == 0 || string(c) == "null" {
		return sources.Bar{}, false, nil // outside the window, or no trade
	}
	b, err := sources.ParseBar(start, c, row.Get(2))
	if err != nil {
		return sources.Bar{}, false, sources.Errorf("", sources.ErrBadResponse, "bar %s of %s: %v", text, symbol, err)
	}
	return b, true, nil
}
