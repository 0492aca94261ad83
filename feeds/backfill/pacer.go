package backfill

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pricerig/pricerig/internal/clock"
	"github.com/pricerig/pricerig/market"
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

// pacer holds one source's requests to its pace during a backfill. The source's client asks it
// before each request it sends — pages and retries included — (sources.Deps.Pacer) and sends
// the request once Wait returns, so the wait never counts against the request's timeout. It
// spaces them evenly with a burst of one at the rate's Pace, as sources.Rate.Limiter does, on
// the backfill's clock; an hourly or daily rate is no pace but an allowance the client's budget
// counts. It is also the source's http.RoundTripper, where it counts the requests really sent
// and the 429s, and it knows how long it has waited, for the progress estimate.
type pacer struct {
	next  http.RoundTripper
	clock Clock
	every time.Duration // 0: no pace

	mu       sync.Mutex
	slot     time.Time // the earliest instant of the next request
	waiting  time.Time // when the current wait ends, zero when not waiting
	waited   time.Duration
	requests atomic.Int64
	limited  atomic.Int64 // answers with status 429
}

var _ sources.Pacer = (*pacer)(nil)

func newPacer(next http.RoundTripper, clock Clock, rate sources.Rate) *pacer {
	if next == nil {
		next = bulkTransport()
	}
	return &pacer{next: next, clock: clock, every: rate.Pace().Interval()}
}

// Wait takes the next slot and waits for it. A wait that ends early (ctx ended) gives its slot
// back when no later request has taken one since, so a request never sent does not push the
// schedule past the provider's own limit.
func (p *pacer) Wait(ctx context.Context) error {
	p.mu.Lock()
	now := p.clock.Now()
	at := market.Later(now, p.slot)
	next := at.Add(p.every)
	p.slot = next
	wait := at.Sub(now)
	if wait > 0 {
		p.waiting = at
		p.waited += wait
	}
	p.mu.Unlock()
	if wait <= 0 {
		return nil
	}
	err := p.clock.Sleep(ctx, wait)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiting = time.Time{}
	if err != nil {
		if p.slot.Equal(next) {
			p.slot = at
		}
		if left := at.Sub(p.clock.Now()); left > 0 {
			p.waited -= left // not waited after all
		}
	}
	return err
}

// RoundTrip sends a request its client has paced (Wait), counting it.
func (p *pacer) RoundTrip(r *http.Request) (*http.Response, error) {
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
