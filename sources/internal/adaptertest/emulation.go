package adaptertest

import (
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources/sim"
)

// RandomBars is n bars a minute apart from start with prices of 0 to 8 decimals and volumes from
// 0 up: the input of an emulation's render test, which holds its hand-written body writer to the
// body encoding/json writes, byte for byte.
func RandomBars(r *rand.Rand, start time.Time, n int) []sim.OHLCV {
	bars := make([]sim.OHLCV, n)
	for i := range bars {
		p := func() numeric.Scaled {
			pow := int64(1)
			for range r.IntN(9) {
				pow *= 10
			}
			return numeric.Scaled(r.Int64N(500_000)*pow + 1)
		}
		bars[i] = sim.OHLCV{Start: start.Add(time.Duration(i) * time.Minute), O: p(), H: p(), L: p(), C: p(), V: r.Int64N(1 << uint(r.IntN(40)))}
	}
	return bars
}

// Clip is a body cut to 300 bytes for a failure message.
func Clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// Emulation serves a fresh simulator whose clock stands at now on a loopback listener, closed
// when the test ends, and returns it with a get that asks one provider's emulation for
// path?query with the given headers: an emulation's own tests speak its wire format directly.
func Emulation(t testing.TB, provider string, now time.Time) (*sim.Server, func(path string, q url.Values, header http.Header) (int, []byte)) {
	t.Helper()
	s := sim.New(sim.Options{Now: func() time.Time { return now }, Instant: true}) // the tape as it is
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close) // runs first: releases held requests so the listener can close
	return s, func(path string, q url.Values, header http.Header) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, s.BaseURL(srv.URL, provider)+path+"?"+q.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header = header.Clone()
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
}
