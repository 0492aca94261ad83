// Package testbound gives an end-to-end test its own bound. A test that waits on a chain, a
// process or a database runs under a context; when that context's only limit was go test's
// -timeout, one hung test used the whole package's time, and every test after it failed at once
// with a downstream "context deadline exceeded" (a CI run: one devnet test hung for 1728 s and
// sixteen others then failed in 0.1 s each, "deploying AgentRig: context deadline exceeded").
//
// Context bounds a test by the sooner of its own cap and go test's deadline less Margin, so a
// hung test fails alone and by name, the tests after it still get their own caps, and a test
// whose bound ran out says so beside whatever failed downstream of it.
//
// Only tests import this package.
package testbound

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Cap is the bound of an ordinary end-to-end test: several times what they took under -race at
// a load of 10-15 on 2 cores (under a minute each, the audit's devnet runs up to two), so a slow
// run still finishes while a hang stops well inside a package's -timeout. The few that took
// minutes there (cmd/pricerig's failover runs, rig/devnet's rank kills) pass a bigger cap.
const Cap = 8 * time.Minute

// Margin is what a bound leaves of go test's -timeout: a test still running when the package
// deadline nears fails by name, with time left to report, before the binary panics.
const Margin = time.Minute

// Context returns the context of an end-to-end test: it ends cap after now, or Margin before go
// test's -timeout stops the binary, whichever is sooner, and is cancelled when t ends. When the
// bound ran out and the test failed, the test also fails with a message saying which bound ran
// out, so "context deadline exceeded" from deep inside reads as what it is.
func Context(t testing.TB, cap time.Duration) (context.Context, context.CancelFunc) {
	t.Helper()
	start := time.Now()
	end := start.Add(cap)
	why := fmt.Sprintf("%s's own bound of %v ran out", t.Name(), cap)
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := d.Deadline(); ok && dl.Add(-Margin).Before(end) {
			end = dl.Add(-Margin)
			why = fmt.Sprintf("%s ran out of the package's time: go test's -timeout ends at %s, and the test stops %v before it", t.Name(), dl.Format(time.TimeOnly), Margin)
		}
	}
	bound := fmt.Errorf("%s (started %s, ended %s)", why, start.Format(time.TimeOnly), end.Format(time.TimeOnly))
	ctx, cancel := context.WithDeadlineCause(context.Background(), end, bound)
	t.Cleanup(func() {
		// Cause is bound only when the deadline ended the context, not a cancel. A test that
		// passed is not failed for a bound that ran out in its cleanups.
		if t.Failed() && context.Cause(ctx) == bound {
			t.Errorf("%v; the failure above is where the test was when it stopped", bound)
		}
		cancel()
	})
	return ctx, cancel
}

// EndToEnd skips t under go test -short, the fast tier: a test that starts a devnet, rig or
// pricerig processes, a database cluster or a browser, or waits out real windows, calls it
// first. Without -short it does nothing, so the full run keeps every assertion.
func EndToEnd(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: runs without -short")
	}
}
