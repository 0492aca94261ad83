package adaptertest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"context"
	"errors"
	"github.com/pricerig/pricerig/sources"
)

// Fast is a rate high enough that the client's limiter never paces a test in real time.
var Fast = sources.Rate{N: 1000, Per: time.Second}

// ReadFile reads a recorded body from the calling package's testdata directory.
func ReadFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// UTC parses an RFC 3339 time written in a test table; a typo there is the test's bug, so it
// panics rather than failing one case.
func UTC(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Live skips a test that asks a real provider unless PRICERIG_LIVE=1 and every named variable
// is set, and returns their values in order.
func Live(t testing.TB, provider string, env ...string) []string {
	t.Helper()
	vals := make([]string, len(env))
	ok := os.Getenv("PRICERIG_LIVE") == "1"
	for i, name := range env {
		vals[i] = os.Getenv(name)
		ok = ok && vals[i] != ""
	}
	if !ok {
		need := "PRICERIG_LIVE=1"
		for _, name := range env {
			need += ", " + name
		}
		t.Skipf("set %s to ask the real %s", need, provider)
	}
	return vals
}

// AskLive asks a real provider's source for symbol's bars in [from, to) and checks them: at
// least one, each starting in the window with a positive close, in strictly rising order. With
// mayLack set, a key whose plan has no access (ErrUnauthorized) skips the test: free keys often
// have no intraday history.
func AskLive(t testing.TB, src sources.Source, symbol string, from, to time.Time, mayLack bool) []sources.Bar {
	t.Helper()
	bars, err := src.Bars(context.Background(), symbol, from, to)
	if mayLack && errors.Is(err, sources.ErrUnauthorized) {
		t.Skipf("the plan has no access: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) == 0 {
		t.Fatalf("no %s bars in [%s, %s)", symbol, from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	for i, b := range bars {
		if b.Start.Before(from) || !b.Start.Before(to) || b.Close <= 0 || (i > 0 && !bars[i-1].Start.Before(b.Start)) {
			t.Fatalf("bar %d = %+v: out of the window or out of order", i, b)
		}
	}
	t.Logf("%d bars, last %s at %s", len(bars), bars[len(bars)-1].Close, bars[len(bars)-1].Start)
	return bars
}
