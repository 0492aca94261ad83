// Package sim is a loopback server that speaks the wire format of every quote provider pricerig
// reads — paths, query parameters, auth, pagination, window and lookback errors, rate limits —
// over one deterministic tape of NVDA, TSLA and SPY minute bars, so the adapters can be tested
// (and `pricerig devnet` and the benchmarks can run) against the real formats with only
// base_url changed. Each provider serves the tape in its own sessions and adjustment convention,
// so reconciling the simulated providers agrees exactly, as the real ones would.
//
// Mount a Server on any listener (httptest.NewServer(sim.New(o))); each provider lives under
// "/<provider>/…" and BaseURL gives the base_url to configure. Faults, latency, drift and an
// unrecorded split can be injected per provider while it runs. Each provider publishes a minute's
// bar late and revises its close as its documentation says (publication.go: Yahoo serves the
// minute in progress, Alpaca revises at 30 s, …); SetPublication changes one, Options.Instant
// serves every bar final the moment its minute ends.
//
// Files: server.go the server (options, faults, ServeHTTP); emulation.go what an emulation works
// with (Request and its views of the tape, Reply, Register); publication.go when bars are served
// and final; kit.go the emulations' shared helpers; tape.go, barcache.go the tape; bodycache.go
// the answer cache; udf.go the generic UDF provider.
//
// Each provider's emulation lives in its adapter's folder (sources/<type>/emulation.go) and
// registers itself (Register, from its init), so the simulator speaks the providers linked into
// the binary: import sources/all for every one. The package must not import any adapter: the
// adapters import it.
package sim

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pricerig/pricerig/market"
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
	// Instant makes every provider serve a minute's bar the moment the minute ends, final
	// (Instant), in place of its emulation's default (Emulation.Publish: Yahoo serves the minute
	// in progress, Alpaca revises a bar 30 s after it, …): the world of a test that prices the
	// last closed minute and does not wait for finality. SetPublication changes one provider.
	Instant bool
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
)

var faultNames = []string{"none", "timeout", "5xx", "truncated", "error-in-200", "wrong-symbol", "unauthorized"}

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

	mu    sync.Mutex
	state map[string]*providerState

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
	pub        Publication
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
	s := &Server{opts: o, tape: NewTape(o.Seed, o.Now), state: map[string]*providerState{}, done: make(chan struct{})}
	for _, e := range emulations {
		st := &providerState{rateLimit: -1, pub: e.Publish}
		if o.Instant {
			st.pub = Instant
		}
		s.state[e.Name] = st
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

// SetFault injects a fault into every later answer of a provider (FaultNone clears it).
func (s *Server) SetFault(provider string, f Fault) {
	s.with(provider, func(st *providerState) { st.fault = f })
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
	s.with(name, func(p *providerState) {
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
		view:     view{now: now, driftBps: st.driftBps, extra: st.extra, pub: st.pub},
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
