package all_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pricerig/pricerig/sources"
)

// A body a hostile provider sends: every adapter's body reader must stop at the cap of the
// window it asked for, say so as ErrBodyTooLarge and not ask again; a body cut short must be a
// bad response. The prefix looks like the start of a real answer of any of the formats.
const hostilePrefix = `{"s":"ok","status":"OK","bars":[],"t":[1,2,3],"c":["`

var (
	bombOnce sync.Once
	bomb     []byte // 64 MiB of a JSON string's letters, gzipped to well under 1 MiB
)

func gzipBomb(t *testing.T) []byte {
	bombOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write([]byte(hostilePrefix))
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for range 64 {
			_, _ = zw.Write(chunk)
		}
		_ = zw.Close()
		bomb = buf.Bytes()
	})
	return bomb
}

// TestHostileBodies serves each hostile body to every adapter (with its real key placement)
// for a one-hour window.
func TestHostileBodies(t *testing.T) {
	// made before any server answers: compressing it (slow under -race) must not count against
	// a request's timeout, which would be a transient failure the client rightly retries
	gzipBomb(t)
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	cases := []struct {
		name  string
		serve func(w http.ResponseWriter, written *atomic.Int64)
		large bool // the error must be ErrBodyTooLarge
	}{
		{"endless", func(w http.ResponseWriter, written *atomic.Int64) {
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(hostilePrefix))
			for {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}, true},
		{"announced-huge", func(w http.ResponseWriter, written *atomic.Int64) {
			w.Header().Set("Content-Length", strconv.Itoa(1<<30))
			w.WriteHeader(http.StatusOK)
			for written.Load() < 1<<30 {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}, true},
		{"gzip-bomb", func(w http.ResponseWriter, written *atomic.Int64) {
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusOK)
			n, _ := w.Write(gzipBomb(t))
			written.Add(int64(n))
		}, true},
		{"truncated", func(w http.ResponseWriter, written *atomic.Int64) {
			w.WriteHeader(http.StatusOK)
			n, _ := w.Write([]byte(hostilePrefix + "187.2"))
			written.Add(int64(n))
		}, false},
		{"endless-5xx", func(w http.ResponseWriter, written *atomic.Int64) {
			w.WriteHeader(http.StatusServiceUnavailable)
			for {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}, true},
	}
	for _, v := range variants() {
		for _, tc := range cases {
			t.Run(v.name+"/"+tc.name, func(t *testing.T) {
				var written atomic.Int64
				var hits atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					hits.Add(1)
					tc.serve(w, &written)
				}))
				defer srv.Close()
				src := build(t, v, srv.URL, 0) // default retries: none may be spent on these
				_, err := src.Bars(context.Background(), symbolFor(v), redirFrom, redirTo)
				var e *sources.Error
				if !errors.As(err, &e) || e.Source != v.name || !errors.Is(err, sources.ErrBadResponse) {
					t.Fatalf("error %v, want a bad response of %s", err, v.name)
				}
				if tc.large != errors.Is(err, sources.ErrBodyTooLarge) {
					t.Fatalf("error %v: ErrBodyTooLarge %v, want %v", err, !tc.large, tc.large)
				}
				if n := hits.Load(); n != 1 {
					t.Errorf("%d requests, want 1: a hostile body is the provider's fault, not a transient one", n)
				}
				// What the server managed to write before the client hung up: the window's cap
				// plus what loopback socket buffers hold, far under the 64 MiB a body could
				// once cost (three times, with the retries).
				if got := written.Load(); got > 48<<20 {
					t.Errorf("the server wrote %d MiB before the client stopped reading", got>>20)
				}
				if strings.Contains(err.Error(), redirKey) {
					t.Errorf("error %q holds the key", err)
				}
			})
		}
	}
}
