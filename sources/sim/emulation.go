package sim

// What an emulation works with: the Request it serves (and the views of the tape it reads
// through it), the Reply it gives, and its registration.

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"encoding/json"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// Request is one call to an emulation.
type Request struct {
	R        *http.Request
	Path     string // after "/<provider>", starting with "/"
	Query    url.Values
	Now      time.Time
	Provider string
	Limit    int // the provider's requests per minute (0: unlimited)
	Used     int // requests in this minute, this one included

	s        *Server
	wrongSym bool
	view     view
}

// Reply is an emulation's answer, buffered so faults can rewrite it.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSONReply is status with v encoded as JSON.
func JSONReply(status int, v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic("sim: " + err.Error())
	}
	return RawJSON(status, b)
}

// RawJSON is status with a JSON body written already.
func RawJSON(status int, body []byte) Reply {
	return Reply{Status: status, Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, Body: body}
}

// TextReply is status with a plain-text body.
func TextReply(status int, text string) Reply {
	return Reply{Status: status, Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte(text)}
}

// AuthState is what the request's credentials amount to.
type AuthState int

const (
	AuthOK AuthState = iota
	AuthMissing
	AuthWrong
)

// Emulation is one provider: how it checks credentials, answers a refusal, and serves a request.
// ServeHTTP applies the faults, latency, rate limits and the body cache around it.
type Emulation struct {
	Name     string
	Sessions []market.Session
	Auth     func(r *http.Request) AuthState       // nil: no key needed
	Denied   func(rq *Request, missing bool) Reply // the unauthorized answer
	Limited  func(rq *Request) Reply               // the 429 body (Retry-After is added)
	InBody   func(rq *Request) Reply               // an error in a 200 body
	Serve    func(rq *Request) Reply               // the normal answer
	Headers  func(rq *Request) http.Header         // extra headers on every answer, may be nil
	Symbol   func(ticker string) string            // the provider's name of a tape symbol; nil: the ticker
	// Publish is when the provider serves a minute's bar and when its close is final, by its
	// documented or recorded behaviour (cited beside it); the zero value is Instant.
	Publish Publication
}

// emulations are the registered providers, sorted by name.
var emulations []*Emulation

// Register adds a provider's emulation; each emulation calls it from its package's init (in the
// provider's folder), so adding a
// provider touches no list here.
func Register(e *Emulation) {
	if emulationOf(e.Name) != nil {
		panic("sim: provider " + e.Name + " registered twice")
	}
	emulations = append(emulations, e)
	slices.SortFunc(emulations, func(a, b *Emulation) int { return strings.Compare(a.Name, b.Name) })
}

func emulationOf(name string) *Emulation {
	for _, e := range emulations {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// tapeSymbol maps a provider's symbol text to the tape symbol whose data it serves, honouring
// FaultWrongSymbol (the next symbol's data, and name); "" when unknown.
func (rq *Request) TapeSymbol(text string) string {
	sym := ""
	for _, t := range tapeSymbols {
		if strings.EqualFold(ProviderSymbol(rq.Provider, t), strings.TrimSpace(text)) {
			sym = t
		}
	}
	if sym != "" && rq.wrongSym {
		sym = tapeSymbols[(symbolIndex(sym)+1)%len(tapeSymbols)]
	}
	return sym
}

// view is how one provider shows the tape in one answer: its clock, when it publishes, and
// injected distortions.
type view struct {
	now      time.Time
	driftBps int
	extra    []extraSplit
	pub      Publication
}

// Series lists a provider's bars of symbol starting in [from, to) — only minutes the provider
// serves by now (Publication: those that have closed, by default) and lie in one of sessions —
// split-adjusted as of now when adjusted is true, else raw, with a provisional close until the
// provider revises it.
func (rq *Request) Series(symbol string, from, to time.Time, sessions []market.Session, adjusted bool) []OHLCV {
	return rq.First(symbol, from, to, sessions, adjusted, 0)
}

// First is Series cut to its first n bars (n ≤ 0: all), walking no further than it must.
func (rq *Request) First(symbol string, from, to time.Time, sessions []market.Session, adjusted bool, n int) []OHLCV {
	var out []OHLCV
	if span := to.Sub(from) / time.Minute; span > 0 {
		out = make([]OHLCV, 0, min(span*2/3, 50_000)) // at most 16 of 24 hours have a session
	}
	rq.Walk(symbol, from, to, sessions, adjusted, func(b OHLCV, ok bool) bool {
		if ok {
			out = append(out, b)
		}
		return n <= 0 || len(out) < n
	})
	return out
}

// Latest is Series cut to its last n bars (still oldest first), walking back from to a week at a
// time so a wide window with a small n stays cheap.
func (rq *Request) Latest(symbol string, from, to time.Time, sessions []market.Session, adjusted bool, n int) []OHLCV {
	if end := published(rq.Now, rq.view.pub); to.After(end) {
		to = end
	}
	var out []OHLCV
	for hi := to; hi.After(from) && len(out) < n; {
		lo := hi.Add(-7 * 24 * time.Hour)
		if lo.Before(from) {
			lo = from
		}
		chunk := rq.Series(symbol, lo, hi, sessions, adjusted)
		out = append(chunk, out...)
		hi = lo
		if lo.Before(dayStart(tapeFirst)) {
			break
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// Reversed is bars newest first.
func Reversed(bars []OHLCV) []OHLCV {
	out := make([]OHLCV, len(bars))
	for i, b := range bars {
		out[len(bars)-1-i] = b
	}
	return out
}

// Walk calls fn, in time order, until it returns false, for every minute of [from, to) in
// sessions that the provider serves by now (its Publication), with the provider's bar and
// whether the tape traded in it. It steps through each New York day's session bounds rather than
// asking the calendar minute by minute.
func (rq *Request) Walk(symbol string, from, to time.Time, sessions []market.Session, adjusted bool, fn func(b OHLCV, ok bool) bool) {
	start := from.Truncate(time.Minute)
	if start.Before(from) {
		start = start.Add(time.Minute)
	}
	if first := dayStart(tapeFirst); start.Before(first) {
		start = first
	}
	end := published(rq.Now, rq.view.pub) // the minutes the provider serves by now
	if last := dayStart(tapeLast + 1); end.After(last) {
		end = last
	}
	if to.Before(end) {
		end = to
	}
	if !start.Before(end) {
		return
	}
	// the overnight session of a day opens the evening before, so look one day past end
	for day, lastDay := nyDayOf(start), nyDayOf(end)+1; day <= lastDay; day++ {
		c := time.Unix(day*86400, 0).UTC()
		info := market.Day(c.Year(), c.Month(), c.Day())
		if !info.Trading {
			continue
		}
		var cache *dayBars
		if symbolIndex(symbol) >= 0 {
			cache = rq.s.tape.dayBarsOf(symbol, day, info)
		}
		for _, sess := range market.AllSessions { // in the order of the day
			if !slices.Contains(sessions, sess) {
				continue
			}
			a, b, _ := info.Bounds(sess)
			if a.Before(start) {
				a = start
			}
			if b.After(end) {
				b = end
			}
			if cache != nil {
				cache.fill(rq.s.tape, symbol, a, b, sess)
			}
			for m := a; m.Before(b); m = m.Add(time.Minute) {
				var bar OHLCV
				var traded bool
				if cache != nil {
					bar, traded = cache.bar(m, sess)
				} else {
					bar, traded = rq.s.tape.barIn(symbol, m, sess)
				}
				if traded {
					bar = rq.view.apply(symbol, bar, adjusted)
				} else {
					bar = OHLCV{Start: m, Session: sess}
				}
				if !fn(bar, traded) {
					return
				}
			}
		}
	}
}

// nyDayOf is the civil day number of the New York date of t.
func nyDayOf(t time.Time) int64 {
	ny := t.In(market.NewYork)
	return civilDay(ny.Year(), ny.Month(), ny.Day())
}

// apply turns a raw tape bar into what the provider shows: its close provisional until the
// provider's revision, then adjusted and distorted.
func (v view) apply(symbol string, b OHLCV, adjusted bool) OHLCV {
	if v.pub.provisionalAt(b.Start, v.now) {
		b = provisional(b)
	}
	div := int64(1)
	if adjusted {
		for _, sp := range splitTable[symbol] {
			if b.Start.Before(sp.Effective) && !v.now.Before(sp.Effective) {
				div *= sp.Ratio
			}
		}
	}
	for _, x := range v.extra {
		if b.Start.Before(x.on) {
			div *= x.ratio
		}
	}
	price := func(p numeric.Scaled) numeric.Scaled {
		q := divRound(int64(p), div)
		if v.driftBps != 0 {
			q = divRound(q*int64(10_000+v.driftBps), 10_000)
		}
		return numeric.Scaled(q)
	}
	b.O, b.H, b.L, b.C = price(b.O), price(b.H), price(b.L), price(b.C)
	b.V *= div
	return b
}

// Bar is the provider's bar of the minute m of a tape symbol (split-adjusted as of now when
// adjusted, else raw), ignoring the clock and the sessions it serves: false when the tape did not
// trade in it.
func (rq *Request) Bar(symbol string, m time.Time, adjusted bool) (OHLCV, bool) {
	b, ok := rq.s.tape.bar(symbol, m)
	if !ok {
		return OHLCV{}, false
	}
	return rq.view.apply(symbol, b, adjusted), true
}
