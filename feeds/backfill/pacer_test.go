package backfill

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
)

// With no transport of its own, a backfill's sources read each connection through a buffer
// sized for bodies of megabytes, not the default transport's 4 KiB (a syscall per 3 KiB of
// body), and leave http.DefaultTransport as it was.
func TestPacerReadsThroughALargeBuffer(t *testing.T) {
	p := newPacer(nil, RealClock{}, sources.Rate{})
	tr, ok := p.next.(*http.Transport)
	if !ok {
		t.Fatalf("the pacer sends through %T, want an *http.Transport", p.next)
	}
	if tr.ReadBufferSize < 64<<10 {
		t.Fatalf("read buffer %d bytes, want at least 64 KiB", tr.ReadBufferSize)
	}
	if tr == http.DefaultTransport || http.DefaultTransport.(*http.Transport).ReadBufferSize != 0 {
		t.Fatal("the default transport itself was changed")
	}
	given := &http.Transport{}
	if q := newPacer(given, RealClock{}, sources.Rate{}); q.next != given {
		t.Fatal("a transport given in Deps was replaced")
	}
}

// A request waits its turn before it is sent, not inside its round trip: at 2 requests a second,
// three requests in a row through a client whose timeout (100 ms) is shorter than the pace's
// 500 ms all succeed on the wall clock the timeout runs on. Paced inside the transport, the
// second and third timed out waiting for their slot (issue 32: massive at 5/min against the 10 s
// timeout).
func TestPacedWaitIsOutsideTheRequestTimeout(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	p := newPacer(nil, RealClock{}, sources.Rate{N: 2, Per: time.Second})
	c := sources.NewClient(sources.Settings{Name: "paced", BaseURL: srv.URL, Timeout: 100 * time.Millisecond, Retries: sources.NoRetries},
		sources.Deps{Transport: p, Pacer: p}, sources.ClientOptions{})
	for i := range 3 {
		if _, err := c.Get(context.Background(), fmt.Sprintf("/q/%d", i), nil); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	if requests, _, waited, _ := p.state(); requests != 3 || served.Load() != 3 || waited <= 100*time.Millisecond {
		t.Fatalf("%d requests counted, %d served, waited %s: want 3, 3 and waits longer than the timeout", requests, served.Load(), waited)
	}
}

// A wait that ends before its slot (the run was interrupted) gives the slot back: the next
// request goes one interval after the last one sent, not two.
func TestPacerGivesBackASlotNotUsed(t *testing.T) {
	start := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	clk := newClock(start)
	p := newPacer(nil, clk, sources.Rate{N: 5, Per: time.Minute}) // massive's 5/min
	if err := p.Wait(context.Background()); err != nil || !clk.Now().Equal(start) {
		t.Fatalf("first request: %v at %s, want at once", err, clk.Now().Sub(start))
	}
	// the clock stands still for a wait whose context has ended: a Fake moves on, so use a
	// clock that does not
	stuck := &stillClock{now: start}
	p.clock = stuck
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(ctx); err == nil {
		t.Fatal("a wait with an ended context succeeded")
	}
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if stuck.slept != 12*time.Second {
		t.Fatalf("the request after the one not sent waited %s, want 12s (one interval of 5/min)", stuck.slept)
	}
}

// stillClock does not move: Sleep records how long it was asked to wait and fails with ctx's error.
type stillClock struct {
	now   time.Time
	slept time.Duration
}

func (c *stillClock) Now() time.Time { return c.now }
func (c *stillClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.slept += d
	return nil
}

// A daily or hourly rate is an allowance, not a pace: the pacer holds no request back for it
// (fmp's 250/day was one request every 5m45s; tiingo's 50/hour one every 72 s).
func TestPacerDoesNotSpaceAnAllowance(t *testing.T) {
	for _, r := range []string{"250/day", "50/h"} {
		rate, err := sources.ParseRate(r)
		if err != nil {
			t.Fatal(err)
		}
		stuck := &stillClock{now: time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)}
		p := newPacer(nil, stuck, rate)
		for range 3 {
			if err := p.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if stuck.slept != 0 {
			t.Errorf("%s: three requests waited %s, want none", r, stuck.slept)
		}
	}
}
