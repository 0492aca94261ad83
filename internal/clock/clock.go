// Package clock holds what every waiting part of pricerig needs of the clock and has once:
// Sleep, a wait that ends early when its context does, and Fake, the clock of their tests. It
// sits below every other package (the HTTP client of the sources, the backfill, the rig's
// transaction manager), so each uses the one.
package clock

import (
	"context"
	"sync"
	"time"
)

// Sleep waits d, or until ctx ends (then it returns ctx's error). A d of zero or less waits for
// nothing and returns ctx's error, if any.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Fake is a clock for tests, shared by a simulator, the sources and what waits on them: Now is
// the time it holds, and Sleep moves it on by the wait instead of waiting, so a rate limit's
// minutes cost nothing and every decision is repeatable.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

// NewFake returns a fake clock at now.
func NewFake(now time.Time) *Fake { return &Fake{now: now} }

// Now is the time the clock holds.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep moves the clock on by d (nothing for d ≤ 0) and returns ctx's error, if any.
func (c *Fake) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.mu.Lock()
		c.now = c.now.Add(d)
		c.mu.Unlock()
	}
	return ctx.Err()
}
