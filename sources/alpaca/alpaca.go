// Package alpaca reads 1-minute bars from Alpaca Market Data v2: raw (as-traded) prices, years
// of history, a key id and secret sent as headers, and next_page_token pagination.
package alpaca

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// Type is the source type sources.yaml names.
const Type = "alpaca"

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

// factory is the type's one Factory: registered, and checked against by New.
var factory = sources.Factory{
	Type: Type,
	Options: map[string]string{
		"feed": "iex (default: the only feed without a subscription), sip, delayed_sip, otc, boats or overnight",
	},
	NeedsKey:    true,
	NeedsSecret: true,
	KeyEnv:      "ALPACA_API_KEY_ID",
	SecretEnv:   "ALPACA_API_SECRET_KEY",
	DefaultRate: DefaultRate,
}

func init() { sources.Register(factory.Type, factory.With(New)) }

// Source is an Alpaca bars source.
type Source struct {
	name   string
	feed   string
	client *sources.Client
	now    func() time.Time
	cov    sources.Coverage
}

// New builds an Alpaca source from its key id (Key), secret (Secret) and feed option.
func New(s sources.Settings, d sources.Deps) (sources.Source, error) {
	s, err := sources.Keyed(s, factory, "alpaca needs a key id and a secret", "https://data.alpaca.markets")
	if err != nil {
		return nil, err
	}
	feed := "iex"
	if v := strings.ToLower(strings.TrimSpace(s.Options["feed"])); v != "" {
		feed = v
	}
	f, ok := feeds[feed]
	if !ok {
		return nil, sources.OptionErrorf(s.Name, "feed", "%q is not one of iex, sip, delayed_sip, otc, boats, overnight", feed)
	}
	d = d.WithDefaults()
	return &Source{
		name: s.Name,
		feed: feed,
		client: sources.NewClient(s, d, sources.ClientOptions{Header: map[string]string{
			"APCA-API-KEY-ID":     s.Key,
			"APCA-API-SECRET-KEY": s.Secret,
		}}),
		now: d.Now,
		cov: sources.Coverage{
			Sessions:   f.sessions,
			MaxWindow:  MaxWindow,
			Page:       pageLimit,
			Paged:      true,
			Adjustment: sources.Raw,
			Delay:      f.delay,
			Rate:       s.Rate,
		},
	}, nil
}

// Name is the source's name in sources.yaml.
func (s *Source) Name() string { return s.name }

// Coverage says what the source can answer with its feed.
func (s *Source) Coverage() sources.Coverage { return s.cov }

// Bars returns the raw 1-minute bars of symbol that start in [from, to).
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	m, err := s.fetch(ctx, "/v2/stocks/"+url.PathEscape(symbol)+"/bars", []string{symbol}, from, to)
	if err != nil {
		return nil, err
	}
	return m[symbol], nil
}

// BarsMulti returns the bars of several symbols at once through the multi-symbol endpoint, for
// backfill: one request pages through all of them. Every symbol asked for has an entry, empty
// when it did not trade.
func (s *Source) BarsMulti(ctx context.Context, symbols []string, from, to time.Time) (map[string][]sources.Bar, error) {
	if len(symbols) == 0 {
		return map[string][]sources.Bar{}, nil
	}
	return s.fetch(ctx, "/v2/stocks/bars", symbols, from, to)
}

func (s *Source) fetch(ctx context.Context, path string, symbols []string, from, to time.Time) (map[string][]sources.Bar, error) {
	all := map[string][]sources.Bar{}
	for _, sym := range symbols {
		all[sym] = []sources.Bar{}
	}
	for _, w := range sources.Windows(from.UTC(), to.UTC(), MaxWindow) {
		err := s.pages(ctx, path, symbols, w.From, w.To, func(p sources.Page) error {
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
// symbols after.
func (s *Source) Pages(ctx context.Context, symbols []string, from, to time.Time, each func(sources.Page) error) error {
	if len(symbols) == 0 {
		return nil
	}
	path := "/v2/stocks/bars"
	if len(symbols) == 1 {
		path = "/v2/stocks/" + url.PathEscape(symbols[0]) + "/bars"
	}
	return s.pages(ctx, path, symbols, from.UTC(), to.UTC(), each)
}

// pages asks for one window and follows its next_page_token, handing each page tidied to the
// window (and to the minutes closed by now).
func (s *Source) pages(ctx context.Context, path string, symbols []string, from, to time.Time, each func(sources.Page) error) error {
	for _, sym := range symbols {
		if err := sources.CheckWindow(s.name, sym, from, to, 0, time.Time{}); err != nil {
			return err
		}
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
	for page := 0; ; page++ {
		if page == maxPages {
			return s.client.Fail(sources.ErrBadResponse, 0, fmt.Sprintf("more than %d pages for one window", maxPages))
		}
		resp, err := s.client.GetCapped(ctx, path, q, sources.BodyCap(from, to, len(symbols)))
		if err != nil {
			return err
		}
		if resp.Status != http.StatusOK {
			return s.statusError(resp)
		}
		var bars map[string][]sources.Bar
		var next string
		if multi {
			bars, next, err = parseMulti(resp.Body, symbols)
		} else {
			var one []sources.Bar
			one, next, err = parse(resp.Body, symbols[0])
			bars = map[string][]sources.Bar{symbols[0]: one}
		}
		if err != nil {
			return s.client.Adopt(resp.Status, err)
		}
		last := next == ""
		if !last {
			if seen[next] {
				return s.client.Fail(sources.ErrBadResponse, resp.Status, "next_page_token repeats: the pages loop")
			}
			seen[next] = true
		}
		end := sources.ClosedBy(to, s.now())
		p := sources.Page{Bars: map[string][]sources.Bar{}, Proven: map[string]sources.Window{}}
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

func (s *Source) statusError(resp *sources.Response) error {
	var b struct {
		Message string `json:"message"`
	}
	msg := sources.BodyText(resp.Body)
	if json.Unmarshal(resp.Body, &b) == nil && b.Message != "" {
		msg = b.Message
	}
	if (resp.Status == http.StatusUnprocessableEntity || resp.Status == http.StatusBadRequest || resp.Status == http.StatusNotFound) &&
		strings.Contains(strings.ToLower(msg), "symbol") {
		return s.client.Fail(sources.ErrUnknownSymbol, resp.Status, msg)
	}
	return s.client.StatusError(resp, msg)
}

// page is a bars answer: bars is an array on the single-symbol endpoint and an object keyed by
// symbol on the multi-symbol one.
type page struct {
	Bars          json.RawMessage `json:"bars"`
	Symbol        *string         `json:"symbol"`
	NextPageToken *string         `json:"next_page_token"`
	Message       string          `json:"message"`
	Code          int64           `json:"code"`
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

// wireBar keeps the numbers as JSON text so the price is read exactly.
type wireBar struct {
	T string          `json:"t"`
	C json.RawMessage `json:"c"`
	V json.RawMessage `json:"v"`
}

func decodePage(body []byte) (page, error) {
	var p page
	if err := json.Unmarshal(body, &p); err != nil {
		return p, sources.Errorf("", sources.ErrBadResponse, "bars body: %v", err)
	}
	if p.Bars == nil && p.NextPageToken == nil && p.Message != "" {
		return p, sources.Errorf("", codeKind(p.Code), "%s", p.Message)
	}
	return p, nil
}

// parse reads a single-symbol page (or a multi-symbol one holding only symbol) into bars and the
// next page token, "" on the last page.
func parse(body []byte, symbol string) ([]sources.Bar, string, error) {
	p, err := decodePage(body)
	if err != nil {
		return nil, "", err
	}
	if p.Symbol != nil && !strings.EqualFold(*p.Symbol, symbol) {
		return nil, "", sources.Errorf("", sources.ErrBadResponse, "asked for %q, bars are of %q", symbol, *p.Symbol)
	}
	raw := bytes.TrimSpace(p.Bars)
	var bars []sources.Bar
	switch {
	case len(raw) == 0 || string(raw) == "null":
		bars = []sources.Bar{}
	case raw[0] == '[':
		bars, err = parseBars(raw, symbol)
	case raw[0] == '{':
		var m map[string][]sources.Bar
		m, err = parseMap(raw, []string{symbol})
		if bars = m[symbol]; bars == nil {
			bars = []sources.Bar{} // the symbol did not trade
		}
	default:
		err = sources.Errorf("", sources.ErrBadResponse, "bars is neither a list nor an object")
	}
	if err != nil {
		return nil, "", err
	}
	return bars, token(p), nil
}

// parseMulti reads a multi-symbol page. A symbol that did not trade is absent; a symbol that was
// not asked for is a bad response.
func parseMulti(body []byte, symbols []string) (map[string][]sources.Bar, string, error) {
	p, err := decodePage(body)
	if err != nil {
		return nil, "", err
	}
	raw := bytes.TrimSpace(p.Bars)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string][]sources.Bar{}, token(p), nil
	}
	if raw[0] != '{' {
		return nil, "", sources.Errorf("", sources.ErrBadResponse, "multi-symbol bars is not an object")
	}
	m, err := parseMap(raw, symbols)
	if err != nil {
		return nil, "", err
	}
	return m, token(p), nil
}

func token(p page) string {
	if p.NextPageToken == nil {
		return ""
	}
	return *p.NextPageToken
}

func parseMap(raw json.RawMessage, symbols []string) (map[string][]sources.Bar, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, sources.Errorf("", sources.ErrBadResponse, "bars: %v", err)
	}
	want := map[string]string{}
	for _, s := range symbols {
		want[strings.ToUpper(s)] = s
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string][]sources.Bar{}
	for _, k := range keys {
		sym, ok := want[strings.ToUpper(k)]
		if !ok {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bars of %q, which was not asked for", k)
		}
		bars, err := parseBars(m[k], sym)
		if err != nil {
			return nil, err
		}
		out[sym] = append(out[sym], bars...)
	}
	return out, nil
}

func parseBars(raw json.RawMessage, symbol string) ([]sources.Bar, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		if string(t) == "null" {
			return []sources.Bar{}, nil
		}
		return nil, sources.Errorf("", sources.ErrBadResponse, "bars of %s are not a list", symbol)
	}
	var wire []wireBar
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, sources.Errorf("", sources.ErrBadResponse, "bars of %s: %v", symbol, err)
	}
	out := make([]sources.Bar, 0, len(wire))
	for i, w := range wire {
		start, err := time.Parse(time.RFC3339, w.T)
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bar %d of %s: time %q: not RFC3339", i, symbol, w.T)
		}
		start = start.UTC()
		if !start.Truncate(time.Minute).Equal(start) {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bar %d of %s: %s is not the start of a minute", i, symbol, w.T)
		}
		if len(w.C) == 0 || string(w.C) == "null" {
			continue // no trade
		}
		price, err := numeric.ParsePrice(string(w.C))
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bar %s of %s: close: %v", w.T, symbol, err)
		}
		vol, err := sources.ParseVolume(string(w.V))
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bar %s of %s: %v", w.T, symbol, err)
		}
		out = append(out, sources.Bar{Start: start, Close: price, Volume: vol})
	}
	return out, nil
}
