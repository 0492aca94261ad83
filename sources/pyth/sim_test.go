package pyth_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	_ "github.com/pricerig/pricerig/sources/pyth"
	"github.com/pricerig/pricerig/sources/sim"
)

// simNow is the simulator's clock and the source's: every window below has closed by then.
var simNow = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

func startSim(t *testing.T) (*sim.Server, sources.Source) {
	t.Helper()
	clock := func() time.Time { return simNow }
	s := sim.New(sim.Options{Seed: 7, Now: clock})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close) // runs first: releases held requests so the listener can close
	f, ok := sources.Lookup("pyth")
	if !ok {
		t.Fatal("pyth is not registered")
	}
	src, err := f.New(sources.Settings{Name: "pyth", Type: "pyth", BaseURL: s.BaseURL(srv.URL, "pyth"), Key: sim.Key,
		Retries: -1, Rate: sources.Rate{N: 1000, Per: time.Second}}, sources.Deps{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return s, src
}

// tapeBars is what the source must return: the tape's raw bars of the minutes in [from, to)
// that lie in the source's sessions.
func tapeBars(tape *sim.Tape, symbol string, from, to time.Time, sessions []market.Session) []sources.Bar {
	out := []sources.Bar{}
	for m := from.Truncate(time.Minute); m.Before(to); m = m.Add(time.Minute) {
		if m.Before(from) || !market.InSessions(m, sessions) {
			continue
		}
		if b, ok := tape.Bar(symbol, m); ok {
			out = append(out, b)
		}
	}
	return out
}

func TestSimRoundTrip(t *testing.T) {
	s, src := startSim(t)
	if !slices.Equal(src.Coverage().Sessions, sim.Sessions("pyth")) {
		t.Fatalf("coverage sessions %v, the simulator serves %v", src.Coverage().Sessions, sim.Sessions("pyth"))
	}
	windows := []struct {
		name, symbol string
		from, to     time.Time
	}{
		{"pre into regular", "NVDA", time.Date(2026, 3, 16, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 16, 14, 30, 0, 0, time.UTC)},
		{"post into overnight", "TSLA", time.Date(2026, 3, 16, 23, 30, 0, 0, time.UTC), time.Date(2026, 3, 17, 0, 30, 0, 0, time.UTC)},
		{"overnight", "SPY", time.Date(2026, 3, 17, 3, 0, 0, 0, time.UTC), time.Date(2026, 3, 17, 4, 0, 0, 0, time.UTC)},
		{"weekend", "NVDA", time.Date(2026, 3, 14, 14, 0, 0, 0, time.UTC), time.Date(2026, 3, 15, 14, 0, 0, 0, time.UTC)},
		{"sub-minute bounds", "TSLA", time.Date(2026, 3, 16, 14, 0, 30, 0, time.UTC), time.Date(2026, 3, 16, 14, 5, 30, 0, time.UTC)},
		{"ten days across DST", "SPY", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC)},
	}
	total := 0
	for _, w := range windows {
		got, err := src.Bars(context.Background(), sim.ProviderSymbol("pyth", w.symbol), w.from, w.to)
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		want := tapeBars(s.Tape(), w.symbol, w.from, w.to, src.Coverage().Sessions)
		if len(got) != len(want) {
			t.Fatalf("%s: %d bars, the tape has %d", w.name, len(got), len(want))
		}
		for i := range want {
			g, x := got[i], want[i]
			if !g.Start.Equal(x.Start) || g.Close != x.Close || (false && g.Volume != x.Volume) {
				t.Fatalf("%s: bar %d = %+v, the tape has %+v", w.name, i, g, x)
			}
		}
		total += len(want)
	}
	t.Logf("%d bars compared", total)
	if total == 0 {
		t.Fatal("no bars in any window: the comparison proved nothing")
	}
}

func TestSimFaults(t *testing.T) {
	tests := []struct {
		fault sim.Fault
		kind  error
	}{
		{sim.FaultTruncated, sources.ErrBadResponse},
		{sim.FaultErrorIn200, sources.ErrBadResponse},
		{sim.FaultUnauthorized, sources.ErrUnauthorized},
		{sim.Fault5xx, sources.ErrUnavailable},
	}
	from := time.Date(2026, 3, 16, 14, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		s, src := startSim(t)
		s.SetFault("pyth", tt.fault)
		_, err := src.Bars(context.Background(), sim.ProviderSymbol("pyth", "NVDA"), from, from.Add(time.Hour))
		var e *sources.Error
		if !errors.As(err, &e) || !errors.Is(err, tt.kind) || e.Source != "pyth" {
			t.Errorf("%v: err = %v, want %v", tt.fault, err, tt.kind)
		}
	}
	s, src := startSim(t)
	s.SetRateLimit("pyth", 1)
	if _, err := src.Bars(context.Background(), sim.ProviderSymbol("pyth", "NVDA"), from, from.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	_, err := src.Bars(context.Background(), sim.ProviderSymbol("pyth", "NVDA"), from.Add(time.Hour), from.Add(2*time.Hour))
	var e *sources.Error
	if !errors.As(err, &e) || !errors.Is(err, sources.ErrRateLimited) || e.RetryAfter <= 0 {
		t.Fatalf("over the limit: err = %#v, want ErrRateLimited with a Retry-After", err)
	}
}
