package sim

import (
	"net/http"
	"sync"
	"time"
)

// A backfill's bodies cost the simulator (walking the tape, writing each bar) about a third of
// the CPU of the two processes of `scripts/bench-backfill`, which share two cores: CPU that a
// real provider spends on its own machines, not on the client's. With Options.CacheFor the
// simulator answers a request it has answered before with the body it rendered then, as a cache
// in front of a real provider would: the same bytes, so the wire format is the emulation's own.
// Only a provider in its normal state is cached (no fault, drift or unrecorded split), only its
// 200 answers, and for CacheFor of the server's clock; the request still counts against the
// rate limit and the request counts, and its per-request headers are made anew.

// defaultCacheBytes bounds the cached bodies when Options.CacheBytes is 0: a year of three
// symbols from alpaca, massive and alphavantage is about 250 MB of bodies.
const defaultCacheBytes = 1 << 30

// bodyCache holds rendered answers by provider, path and query, oldest first out.
type bodyCache struct {
	ttl time.Duration
	max int64

	mu      sync.Mutex
	entries map[string]cachedReply
	order   []string // keys in the order put; a key is in it once
	bytes   int64
}

type cachedReply struct {
	rep Reply
	at  time.Time
}

func newBodyCache(ttl time.Duration, maxBytes int64) *bodyCache {
	if maxBytes <= 0 {
		maxBytes = defaultCacheBytes
	}
	return &bodyCache{ttl: ttl, max: maxBytes, entries: map[string]cachedReply{}}
}

// cacheKey names a request's answer: its provider, path and query byte for byte, and what
// else of the request an emulation's 200 reads (the host a next-page URL names, Yahoo's
// User-Agent check). Credentials are checked before the cache is asked.
func cacheKey(r *http.Request) string {
	return r.Host + "\x00" + r.URL.Path + "?" + r.URL.RawQuery + "\x00" + r.Header.Get("User-Agent")
}

// get returns the answer cached for key if it was rendered less than the cache's time before
// now, with a header map of its own (the caller adds to it).
func (c *bodyCache) get(key string, now time.Time) (Reply, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || now.Sub(e.at) >= c.ttl || now.Before(e.at) {
		return Reply{}, false
	}
	rep := e.rep
	rep.Header = e.rep.Header.Clone()
	return rep, true
}

// put keeps a 200 answer rendered at now, dropping the oldest bodies past the byte bound.
func (c *bodyCache) put(key string, rep Reply, now time.Time) {
	if rep.Status != http.StatusOK || int64(len(rep.Body)) > c.max {
		return
	}
	rep.Header = rep.Header.Clone() // the caller adds its per-request headers to its own
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.bytes -= int64(len(old.rep.Body))
	} else {
		c.order = append(c.order, key)
	}
	c.entries[key] = cachedReply{rep: rep, at: now}
	c.bytes += int64(len(rep.Body))
	for c.bytes > c.max && len(c.order) > 0 {
		oldest := c.order[0]
		c.order = c.order[1:]
		c.bytes -= int64(len(c.entries[oldest].rep.Body))
		delete(c.entries, oldest)
	}
}
