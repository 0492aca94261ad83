package backfill

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pricerig/pricerig/internal/clock"
	"github.com/pricerig/pricerig/sources"
)

// Clock is the time the backfill reads and waits on. Tests pass a fake one (shared with the
// simulator), so rate-limit waits of minutes take no time and every decision is repeatable.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the wall clock.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// Sleep waits on a timer.
func (RealClock) Sleep(ctx context.Context, d time.Duration) error { return clock.Sleep(ctx, d) }

// unpaced is the rate the adapters are built with during a backfill: their own limiter would
// otherwise stack on the pacer's waits (and wait on the wall clock while the pacer waits on the
// injected one). Its interval rounds to zero, which x/time/rate reads as no limit.
var unpaced = sources.Rate{N: 1 << 40, Per: time.Second}

// pacer is the http.RoundTripper of one source during a backfill. It holds every HTTP request
// the adapter sends — pages and retries included — to the source's rate, spaced evenly with a
// burst of one as sources.Rate.Limiter does, on the backfill's clock; it counts the requests and
// the 429s, and it knows how long it has waited, for the progress estimate.
type pacer struct {
	next  http.RoundTripper
	clock Clock
	every time.Duration // 0: no limit

	mu       sync.Mutex
	slot     time.Time // the earliest instant of the next request
	waiting  time.Time // when the current wait ends, zero when not waiting
	waited   time.Duration
	requests atomic.Int64
	limited  atomic.Int64 // answers with status 429
}

func newPacer(next http.RoundTripper, clock Clock, rate sources.Rate) *pacer {
	if next == nil {
		next = bulkTransport()
	}
	return &pacer{next: next, clock: clock, every: rate.Interval()}
}

// RoundTrip waits for the request's slot, then sends it.
func (p *pacer) RoundTrip(r *http.Request) (*http.Response, error) {
	if p.every > 0 {
		p.mu.Lock()
		now := p.clock.Now()
		at := maxTime(now, p.slot)
		p.slot = at.Add(p.every)
		wait := at.Sub(now)
		if wait > 0 {
			p.waiting = at
			p.waited += wait
		}
		p.mu.Unlock()
		if wait > 0 {
			err := p.clock.Sleep(r.Context(), wait)
			p.mu.Lock()
			p.waiting = time.Time{}
			p.mu.Unlock()
			if err != nil {
				return nil, err
			}
		}
	}
	p.requests.Add(1)
	resp, err := p.next.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		p.limited.Add(1)
	}
	return resp, err
}

// hold pushes the next slot to at least until: after a provider said "retry after", no request
// goes out before then, whoever sends it.
func (p *pacer) hold(until time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if until.After(p.slot) {
		p.slot = until
	}
}

// state reads the counters.
func (p *pacer) state() (requests, limited int, waited time.Duration, waitingUntil time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return int(p.requests.Load()), int(p.limited.Load()), p.waited, p.waiting
}

// bulkTransport is http.DefaultTransport reading each connection through a larger buffer: a
// backfill's bodies run to megabytes, and the default 4 KiB buffer read them in about one
// syscall per 3 KiB (66,000 reads for the year of the benchmark).
func bulkTransport() http.RoundTripper {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t = t.Clone()
	t.ReadBufferSize = 256 << 10
	return t
}
