// Package clock holds what every waiting part of pricerig needs of the wall clock and has once:
// Sleep, a wait that ends early when its context does. It sits below every other package (the
// HTTP client of the sources, the backfill, the rig's transaction manager), so each uses the
// one.
package clock

import (
	"context"
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
