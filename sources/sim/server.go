// Package sim is a loopback server that speaks the wire format of every quote provider pricerig
// reads — paths, query parameters, auth, pagination, window and lookback errors, rate limits —
// over one deterministic tape of NVDA, TSLA and SPY minute bars, so the adapters can be tested
// (and `pricerig devnet` and the benchmarks can run) against the real formats with only
// base_url changed. Each provider serves the tape in its own sessions and adjustment convention,
// so reconciling the simulated providers agrees exactly, as the real ones would.
//
// Mount a Server on any listener (httptest.NewServer(sim.New(o))); each provider lives under
// "/<provider>/…" and BaseURL gives the base_url to configure. Faults, latency, drift and an
// unrecorded split can be injected per provider while it runs.
//
// Each provider's emulation lives in its adapter's folder (sources/<type>/emulation.go) and
// registers itself (Register, from its init), so the simulator speaks the providers linked into
// the binary: import sources/all for every one. The package must not import any adapter: the
// adapters import it.
package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// The only credentials the emulations accept. A missing or different one gets the provider's
// real unauthorized answer.
const (
	Key    = "sim-key"
	Secret = "sim-secret"
)

// Options configure a Server.
type Options struct {
	Seed int64 // tape seed; 0 means 1
	// Now is the server's clock: the tape has no bars at or after the current minute (a minute
	// must have closed), and lookbacks and rate-limit minutes are relative to it. Default
	// time.Now.
	Now func() time.Time
	// Latency is added to every response (per-provider SetLatency overrides it).
	Latency time.Duration
	// RateLimit is the requests per provider per minute (of Now) served before answering 429
	// with Retry-After; 0 is unlimited.
	RateLimit int
	// CacheFor, when positive, serves a request answered before (the same path and query) the
	// body rendered then, for that long of Now, like a cache in front of a provider: see
	// bodycache.go. CacheBytes bounds the bodies kept (0: 1 GiB).
	CacheFor   time.Duration
	CacheBytes int64
	// DateSkew sets every answer's Date header this far ahead of Now (behind, negative): a
	// provider whose clock is off, or, seen from the client, a client whose clock is off the
	// other way (pricerig doctor's clock check). Every answer carries a Date header of Now: the
	// simulator's clock, not the machine's, as http.Server would write it.
	DateSkew time.Duration
}

// Fault is a failure injected into one provider's answers.
type Fault int

// The faults.
const (
	FaultNone         Fault = iota
	FaultTimeout            // hang until the client gives up (or the server closes)
	Fault5xx                // 503 Service Unavailable
	FaultTruncated          // the normal 200 body cut in half (a valid HTTP response, broken JSON)
	FaultErrorIn200         // HTTP 200 whose body is the provider's error shape
	FaultWrongSymbol        // the bars (and label, where the format has one) of another symbol
	FaultUnauthorized       // answer as if the key were wrong
	FaultNotEntitled        // answer as the provider refuses a known key whose plan lacks the data (Emulation.NotEntitled)
)

var faultNames = []string{"none", "timeout", "5xx", "truncated", "error-in-200", "wrong-symbol", "unauthorized", "not-entitled"}

func (f Fault) String() string {
	if f >= 0 && int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// ParseFault reads a fault by the name String gives it ("5xx", "error-in-200", …).
func ParseFault(name string) (Fault, error) {
	for i, n := range faultNames {
		if n == name {
			return Fault(i), nil
		}
	}
	return FaultNone, fmt.Errorf("unknown fault %q (want one of %s)", name, strings.Join(faultNames, ", "))
}

// Server is the simulator: an http.Handler serving every provider under "/<provider>/".
type Server struct {
	opts Options
	tape *Tape

	mu       sync.Mutex
	state    map[string]*providerState
	dateSkew time.Duration

	cache *bodyCache // nil unless Options.CacheFor

	done      chan struct{}
	closeOnce sync.Once
}

type providerState struct {
	fault      Fault
	latency    time.Duration
	latencySet bool
	driftBps   int
	extra      []extraSplit
	rateLimit  int // -1: Options.RateLimit
	requests   int
	window     time.Time // the minute the rate count is for
	inWindow   int
}

type extraSplit struct {
	ratio int64
	on    time.Time
}

// New builds a simulator.
func New(o Options) *Server {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{opts: o, tape: NewTape(o.Seed, o.Now), state: map[string]*providerState{}, dateSkew: o.DateSkew, done: make(chan struct{})}
	for _, p := range Providers() {
		s.state[p] = &providerState{rateLimit: -1}
	}
	if o.CacheFor > 0 {
		s.cache = newBodyCache(o.CacheFor, o.CacheBytes)
	}
	return s
}

// Providers lists the provider types the simulator speaks, each mounted at "/<name>/", sorted.
func Providers() []string {
	out := make([]string, len(emulations))
	for i, e := range emulations {
		out[i] = e.Name
	}
	return out
}

// Sessions lists the sessions a provider's bars include when asked with its fullest parameters
// (includePrePost=true, extended_hours=true, afterHours=true): what its sources.yaml coverage
// should say. nil for an unknown provider.
func Sessions(provider string) []market.Session {
	if e := emulationOf(provider); e != nil {
		return slices.Clone(e.Sessions)
	}
	return nil
}

// ProviderSymbol is the provider's name for a tape symbol, as its emulation declares it
// (Equity.US.NVDA/USD for pyth); the ticker itself for the others.
func ProviderSymbol(provider, symbol string) string {
	if e := emulationOf(provider); e != nil && e.Symbol != nil {
		return e.Symbol(symbol)
	}
	return symbol
}

// BaseURL is the base_url of a provider on a server reachable at root (e.g. an
// httptest.Server's URL): root + "/" + provider.
func (s *Server) BaseURL(root, provider string) string {
	return strings.TrimRight(root, "/") + "/" + provider
}

// Tape is the tape every provider serves.
func (s *Server) Tape() *Tape { return s.tape }

// Close releases every request held by latency or FaultTimeout, so the listener can shut down.
// The Server answers nothing after it.
func (s *Server) Close() { s.closeOnce.Do(func() { close(s.done) }) }

func (s *Server) with(provider string, f func(*providerState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.state[provider]
	if !ok {
		panic("sim: unknown provider " + provider)
	}
	f(st)
}

// SetFault injects a fault into every later answer of a provider (FaultNone clears it). A fault
// the provider has no answer for (CanFault) panics.
func (s *Server) SetFault(provider string, f Fault) {
	if err := CanFault(provider, f); err != nil {
		panic("sim: " + err.Error())
	}
	s.with(provider, func(st *providerState) { st.fault = f })
}

// CanFault says whether a provider can be made to fail so: FaultNotEntitled needs the provider's
// recorded refusal of a plan (Emulation.NotEntitled), which not every provider has.
func CanFault(provider string, f Fault) error {
	e := emulationOf(provider)
	switch {
	case e == nil:
		return fmt.Errorf("unknown provider %q", provider)
	case f == FaultNotEntitled && e.NotEntitled == nil:
		return fmt.Errorf("%s has no recorded answer to a plan that lacks the data (providers with one: %s)", provider, strings.Join(entitledProviders(), ", "))
	}
	return nil
}

func entitledProviders() []string {
	var out []string
	for _, e := range emulations {
		if e.NotEntitled != nil {
			out = append(out, e.Name)
		}
	}
	return out
}

// SetDateSkew sets every later answer's Date header d ahead of Now (Options.DateSkew).
func (s *Server) SetDateSkew(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dateSkew = d
}

// SetLatency delays every answer of a provider by d, in place of Options.Latency.
func (s *Server) SetLatency(provider string, d time.Duration) {
	s.with(provider, func(st *providerState) { st.latency, st.latencySet = d, true })
}

// SetRateLimit sets a provider's requests per minute, in place of Options.RateLimit (0 is
// unlimited).
func (s *Server) SetRateLimit(provider string, perMinute int) {
	s.with(provider, func(st *providerState) { st.rateLimit = perMinute })
}

// SetDriftBps multiplies every price a provider serves by (1 + bps/10000), rounded to 10^-8:
// a source drifting away from the others, for audit tests.
func (s *Server) SetDriftBps(provider string, bps int) {
	s.with(provider, func(st *providerState) { st.driftBps = bps })
}

// SetExtraSplit makes a provider pretend a split nobody recorded: its prices of minutes before on
// are divided by ratio (rounded to 10^-8).
func (s *Server) SetExtraSplit(provider string, ratio int, on time.Time) {
	if ratio < 1 {
		panic("sim: split ratio must be at least 1")
	}
	s.with(provider, func(st *providerState) { st.extra = append(st.extra, extraSplit{int64(ratio), on}) })
}

// Requests is how many requests a provider received (answered or refused) since the last
// ResetCounts.
func (s *Server) Requests(provider string) int {
	n := 0
	s.with(provider, func(st *providerState) { n = st.requests })
	return n
}

// ResetCounts zeroes the request counts and the rate-limit windows.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.state {
		st.requests, st.inWindow, st.window = 0, 0, time.Time{}
	}
}

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
	// NotEntitled is the provider's refusal of a key it knows whose plan does not include the
	// data (FaultNotEntitled), as recorded from the real provider; nil when none is recorded.
	NotEntitled func(rq *Request) Reply
	Serve       func(rq *Request) Reply       // the normal answer
	Headers     func(rq *Request) http.Header // extra headers on every answer, may be nil
	Symbol      func(ticker string) string    // the provider's name of a tape symbol; nil: the ticker
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

// ServeHTTP routes "/<provider>/…" to the provider's emulation.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	e := emulationOf(name)
	if e == nil {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	select {
	case <-s.done:
		panic(http.ErrAbortHandler)
	default:
	}
	now := s.opts.Now()
	var st providerState
	limit, used, limited := 0, 0, false
	var skew time.Duration
	s.with(name, func(p *providerState) {
		skew = s.dateSkew
		p.requests++
		limit = p.rateLimit
		if limit < 0 {
			limit = s.opts.RateLimit
		}
		if minute := now.Truncate(time.Minute); !minute.Equal(p.window) {
			p.window, p.inWindow = minute, 0
		}
		p.inWindow++
		used = p.inWindow
		limited = limit > 0 && p.inWindow > limit
		st = *p
		st.extra = slices.Clone(p.extra)
	})
	latency := s.opts.Latency
	if st.latencySet {
		latency = st.latency
	}
	if !s.wait(r.Context(), latency) {
		panic(http.ErrAbortHandler)
	}
	rq := &Request{
		R: r, Path: "/" + rest, Query: r.URL.Query(), Now: now, Provider: name, s: s,
		wrongSym: st.fault == FaultWrongSymbol,
		view:     view{now: now, driftBps: st.driftBps, extra: st.extra},
		Limit:    limit, Used: used,
	}
	var rep Reply
	switch {
	case st.fault == FaultTimeout:
		s.wait(r.Context(), math.MaxInt64)
		panic(http.ErrAbortHandler)
	case st.fault == Fault5xx:
		rep = TextReply(http.StatusServiceUnavailable, "503 Service Unavailable")
	case limited:
		rep = e.Limited(rq)
		rep.Header.Set("Retry-After", strconv.Itoa(retryAfter(now)))
	case st.fault == FaultUnauthorized && e.Denied != nil:
		rep = e.Denied(rq, false)
	case e.Auth != nil && e.Auth(r) != AuthOK:
		rep = e.Denied(rq, e.Auth(r) == AuthMissing)
	case st.fault == FaultNotEntitled:
		rep = e.NotEntitled(rq) // the key is known: the plan is what is refused
	case st.fault == FaultErrorIn200:
		rep = e.InBody(rq)
	case s.cache != nil && st.fault == FaultNone && st.driftBps == 0 && len(st.extra) == 0:
		key := cacheKey(r)
		var hit bool
		if rep, hit = s.cache.get(key, now); !hit {
			rep = e.Serve(rq)
			s.cache.put(key, rep, now)
		}
	default:
		rep = e.Serve(rq)
		if st.fault == FaultTruncated && rep.Status == http.StatusOK {
			rep.Body = rep.Body[:len(rep.Body)/2]
		}
	}
	if e.Headers != nil {
		for k, v := range e.Headers(rq) {
			rep.Header[k] = v
		}
	}
	for k, v := range rep.Header {
		w.Header()[k] = v
	}
	w.Header().Set("Date", now.Add(skew).UTC().Format(http.TimeFormat))
	w.Header().Set("Content-Length", strconv.Itoa(len(rep.Body)))
	w.WriteHeader(rep.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(rep.Body)
	}
}

// retryAfter is the whole seconds until the next minute of now, at least 1.
func retryAfter(now time.Time) int {
	next := now.Truncate(time.Minute).Add(time.Minute)
	return max(1, int((next.Sub(now)+time.Second-1)/time.Second))
}

// wait sleeps d unless the request or the server ends first; false if it did not sleep it all.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
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

// view is how one provider shows the tape in one answer: its clock and injected distortions.
type view struct {
	now      time.Time
	driftBps int
	extra    []extraSplit
}

// Series lists a provider's bars of symbol starting in [from, to) — only minutes that have closed
// by now and lie in one of sessions — split-adjusted as of now when adjusted is true, else raw.
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
	if end := rq.Now.Truncate(time.Minute); to.After(end) {
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

// Walk calls fn, in time order, until it returns false, for every minute of [from, to) in sessions that has closed by
// now, with the provider's bar and whether the tape traded in it. It steps through each New York
// day's session bounds rather than asking the calendar minute by minute.
func (rq *Request) Walk(symbol string, from, to time.Time, sessions []market.Session, adjusted bool, fn func(b OHLCV, ok bool) bool) {
	start := from.Truncate(time.Minute)
	if start.Before(from) {
		start = start.Add(time.Minute)
	}
	if first := dayStart(tapeFirst); start.Before(first) {
		start = first
	}
	end := rq.Now.Truncate(time.Minute) // the current minute has not closed
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

// apply turns a raw tape bar into what the provider shows.
func (v view) apply(symbol string, b OHLCV, adjusted bool) OHLCV {
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

// divRound divides rounding half away from zero (a, b > 0 here).
func divRound(a, b int64) int64 {
	if b == 1 {
		return a
	}
	return (2*a + b) / (2 * b)
}

// scaledText prints a scaled price as the shortest decimal: 103.64, 3380, 0.0123.
func ScaledText(p numeric.Scaled) string { return decimalText(int64(p), numeric.Scale) }

// fixedText prints a scaled price with exactly n decimals (n ≤ 8), rounding half away from zero:
// Twelve Data's "177.91010", Alpha Vantage's "86.4900".
func FixedText(p numeric.Scaled, n int) string {
	unit := int64(1)
	for i := n; i < numeric.Scale; i++ {
		unit *= 10
	}
	q := divRound(int64(p), unit)
	pow := int64(1)
	for i := 0; i < n; i++ {
		pow *= 10
	}
	if n == 0 {
		return strconv.FormatInt(q, 10)
	}
	return fmt.Sprintf("%d.%0*d", q/pow, n, q%pow)
}

// float32Text prints a price the way Yahoo does: the float32 it stores, widened to float64 and
// printed in full (103.64 → "103.63999938964844").
func Float32Text(p numeric.Scaled) string {
	f, err := strconv.ParseFloat(ScaledText(p), 32) // rounds the decimal straight to float32
	if err != nil {
		panic("sim: " + err.Error())
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Bodies of bars are written by hand into one buffer (appendDecimal, appendFixed,
// appendJSONString): the simulator shares the machine with what a benchmark measures, and
// encoding/json's reflection over a struct of text per field cost it about a third of its CPU.
// The render tests hold each hand-written body to encoding/json's, byte for byte.

// appendDecimal appends decimalText(v, scale).
func AppendDecimal(dst []byte, v int64, scale int) []byte {
	pow := ipow10(scale)
	dst = strconv.AppendInt(dst, v/pow, 10)
	frac := v % pow
	if frac == 0 {
		return dst
	}
	n := scale // the fraction's digits, once its trailing zeros are gone
	for frac%10 == 0 {
		frac /= 10
		n--
	}
	return appendPadded(append(dst, '.'), frac, n)
}

// appendPadded appends v (≥ 0) zero-padded to n digits.
func appendPadded(dst []byte, v int64, n int) []byte {
	for d := ipow10(n - 1); d > 1 && v < d; d /= 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, v, 10)
}

// appendFixed appends fixedText(p, n).
func AppendFixed(dst []byte, p numeric.Scaled, n int) []byte {
	unit := int64(1)
	for i := n; i < numeric.Scale; i++ {
		unit *= 10
	}
	q := divRound(int64(p), unit)
	if n == 0 {
		return strconv.AppendInt(dst, q, 10)
	}
	pow := ipow10(n)
	dst = strconv.AppendInt(dst, q/pow, 10)
	return appendPadded(append(dst, '.'), q%pow, n)
}

func ipow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// appendJSONString appends s as encoding/json writes a string.
func AppendJSONString(dst []byte, s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic("sim: " + err.Error())
	}
	return append(dst, b...)
}

// num is JSON number text written as is.
type Num string

func (n Num) MarshalJSON() ([]byte, error) { return []byte(n), nil }

func IntNum(v int64) Num { return Num(strconv.FormatInt(v, 10)) }

// requestID is a hex id in the shape providers print, derived from the request so answers stay
// deterministic.
func RequestID(rq *Request) string {
	h := mix64(uint64(len(rq.R.URL.RawQuery)) ^ uint64(rq.Now.UnixNano()))
	for _, c := range rq.R.URL.String() {
		h = mix64(h ^ uint64(c))
	}
	return fmt.Sprintf("%016x%016x", h, mix64(h))
}

// parseUnix reads whole unix seconds.
func ParseUnix(text string) (time.Time, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(n, 0).UTC(), true
}

// nyDate reads YYYY-MM-DD as midnight New York.
func NYDate(text string) (time.Time, bool) {
	d, err := time.ParseInLocation(time.DateOnly, strings.TrimSpace(text), market.NewYork)
	return d, err == nil
}

// nextDay is midnight New York of the day after the New York date of t.
func NextDay(t time.Time) time.Time {
	y, m, d := t.In(market.NewYork).Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, market.NewYork)
}

// headerKey reads a credential from a header that carries "<scheme> <key>" (scheme may be "").
func HeaderKey(r *http.Request, header, scheme string) (string, bool) {
	v := strings.TrimSpace(r.Header.Get(header))
	if v == "" {
		return "", false
	}
	if scheme != "" {
		word, rest, ok := strings.Cut(v, " ")
		if !ok || !strings.EqualFold(word, scheme) {
			return v, true // present but not in the scheme: a wrong key
		}
		v = strings.TrimSpace(rest)
	}
	return v, true
}

// keyCheck turns the credentials found into an authState.
func KeyCheck(values ...string) AuthState {
	for _, v := range values {
		if v == Key {
			return AuthOK
		}
	}
	for _, v := range values {
		if v != "" {
			return AuthWrong
		}
	}
	return AuthMissing
}

// maxSpan bounds the window of the providers with no documented limit (tiingo, pyth, fmp, udf),
// which their adapters stay well inside (a week at a time): it keeps one stray request from
// walking, and printing, a year of minutes.
const MaxSpan = 31 * 24 * time.Hour

const TooWide = "Error: the simulator serves at most 31 days per request"

var (
	PreRegPost = []market.Session{market.Pre, market.Regular, market.Post}
	Regular    = []market.Session{market.Regular}
	AllDay     = []market.Session{market.Overnight, market.Pre, market.Regular, market.Post}
)

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
