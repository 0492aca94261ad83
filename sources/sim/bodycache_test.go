package sim

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// With CacheFor, a request asked again is answered with the body rendered the first time — the
// same bytes — for CacheFor of the server's clock, then rendered anew; a provider with a fault,
// a drift or an unrecorded split is never answered from the cache; and a cached answer still
// counts as a request and against the rate limit.
func TestCacheServesTheBodyItRenderedForItsTime(t *testing.T) {
	now := tuesday.Truncate(time.Minute).Add(10 * time.Second)
	for _, p := range Providers() {
		t.Run(p, func(t *testing.T) {
			f := newFixture(t, now, Options{CacheFor: 5 * time.Minute})
			plain := newFixture(t, now, Options{})
			// a window reaching the present: every minute that closes adds a bar to it
			from, to := now.Add(-30*time.Minute).Truncate(time.Minute), now.Add(30*time.Minute).Truncate(time.Minute)
			first := f.rawBars(p, "SPY", from, to)
			if first.status != http.StatusOK {
				t.Fatalf("HTTP %d %s", first.status, first.body)
			}
			f.now, plain.now = now.Add(2*time.Minute), now.Add(2*time.Minute) // two more minutes closed
			again := f.rawBars(p, "SPY", from, to)
			if !bytes.Equal(again.body, first.body) {
				t.Fatalf("within CacheFor the body changed (%d bytes, was %d)", len(again.body), len(first.body))
			}
			if len(f.barsAny(p, "SPY", from, to)) == len(plain.barsAny(p, "SPY", from, to)) {
				t.Fatal("the uncached server has as many bars two minutes later: the test cannot tell a cached body")
			}
			if ct := again.header.Get("Content-Type"); ct != first.header.Get("Content-Type") || ct == "" {
				t.Fatalf("cached answer's Content-Type %q, first %q", ct, first.header.Get("Content-Type"))
			}
			if n := f.s.Requests(p); n != 3 {
				t.Fatalf("%d requests counted, want 3: a cached answer is still a request", n)
			}
			f.s.SetDriftBps(p, 40)
			if d := f.rawBars(p, "SPY", from, to); bytes.Equal(d.body, first.body) {
				t.Fatal("a drifting provider was answered from the cache")
			}
			f.s.SetDriftBps(p, 0)
			f.s.SetFault(p, FaultTruncated)
			if d := f.rawBars(p, "SPY", from, to); len(d.body) >= len(first.body) {
				t.Fatal("a provider with a fault was answered from the cache")
			}
			f.s.SetFault(p, FaultNone)
			f.now = now.Add(5 * time.Minute) // CacheFor has passed: rendered anew, as the uncached server renders it
			plain.now = f.now
			late, want := f.rawBars(p, "SPY", from, to), plain.rawBars(p, "SPY", from, to)
			if bytes.Equal(late.body, first.body) || len(f.barsAny(p, "SPY", from, to)) != len(plain.barsAny(p, "SPY", from, to)) {
				t.Fatalf("after CacheFor: %d bytes, first %d, uncached %d", len(late.body), len(first.body), len(want.body))
			}
		})
	}
}

func TestCacheStillRateLimits(t *testing.T) {
	now := tuesday.Truncate(time.Minute).Add(45 * time.Second)
	f := newFixture(t, now, Options{CacheFor: time.Hour, RateLimit: 2})
	from, to := now.Add(-time.Hour), now
	for i := range 3 {
		r := f.rawBars("massive", "NVDA", from, to)
		if want := map[bool]int{true: http.StatusTooManyRequests, false: http.StatusOK}[i == 2]; r.status != want {
			t.Fatalf("request %d: HTTP %d, want %d", i+1, r.status, want)
		}
	}
}

// The cache keeps at most its bytes, dropping the oldest bodies first, and keeps only 200s.
func TestCacheDropsTheOldestPastItsBytes(t *testing.T) {
	c := newBodyCache(time.Hour, 10)
	at := tuesday
	body := func(n int) Reply {
		return Reply{Status: http.StatusOK, Header: http.Header{"X": {strconv.Itoa(n)}}, Body: bytes.Repeat([]byte{'a'}, n)}
	}
	c.put("a", body(4), at)
	c.put("b", body(4), at)
	c.put("c", body(4), at) // 12 bytes: a goes
	if _, ok := c.get("a", at); ok {
		t.Fatal("the oldest body was kept past the bound")
	}
	for _, k := range []string{"b", "c"} {
		if r, ok := c.get(k, at); !ok || len(r.Body) != 4 {
			t.Fatalf("%s: %v %d bytes", k, ok, len(r.Body))
		}
	}
	c.put("big", body(11), at)
	if _, ok := c.get("big", at); ok {
		t.Fatal("a body over the whole bound was kept")
	}
	c.put("e", Reply{Status: http.StatusTooManyRequests, Header: http.Header{}, Body: []byte("x")}, at)
	if _, ok := c.get("e", at); ok {
		t.Fatal("a 429 was cached")
	}
	r, _ := c.get("b", at)
	r.Header.Set("X", "changed")
	if r2, _ := c.get("b", at); r2.Header.Get("X") != "4" {
		t.Fatal("a caller's header change reached the cached answer")
	}
	if c.bytes != 8 || len(c.order) != 2 {
		t.Fatalf("%d bytes in %d entries, want 8 in 2", c.bytes, len(c.order))
	}
}
