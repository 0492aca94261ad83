package yahoo_test

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/sim"
	"github.com/pricerig/pricerig/sources/yahoo"
)

func config(seed int64) adaptertest.Config {
	return adaptertest.Config{Type: yahoo.Type, Seed: seed, Now: adaptertest.SeptemberNow}
}

// TestSimRoundTrip reads the simulator's Yahoo emulation and checks the bars against the tape.
// Yahoo is split-adjusted; the windows lie in the last 29 days, where the tape has no split, so
// adjusted and raw are the same numbers.
func TestSimRoundTrip(t *testing.T) {
	c := adaptertest.Case{Config: config(11), Symbols: adaptertest.Symbols, EveryWindowTrades: true, Windows: []adaptertest.Window{
		adaptertest.TheOpen, adaptertest.PreMarket,
		{Name: "the close, post, and the future", From: time.Date(2026, 9, 18, 19, 50, 0, 0, time.UTC), To: adaptertest.SeptemberNow.Add(time.Hour)},
		{Name: "12 days: two requests, a weekend and Labor Day", From: time.Date(2026, 9, 4, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 9, 16, 0, 0, 0, 0, time.UTC)},
	}}
	s, src := adaptertest.Start(t, c.Config)
	for _, sym := range c.Symbols {
		for _, split := range s.Tape().Splits(sym) {
			if split.Effective.After(c.Now.Add(-yahoo.Lookback)) {
				t.Fatalf("%s split %s inside the lookback: compare adjusted prices", sym, split.Date)
			}
		}
	}
	adaptertest.Compare(t, s, src, c)
}

// TestSimFaults injects each of the simulator's faults; an error in a 200 body is chart.error
// "Will be right back" here.
func TestSimFaults(t *testing.T) {
	adaptertest.Faults(t, adaptertest.FaultCase{Config: config(5), Window: adaptertest.TheOpen.For("NVDA"), Faults: []adaptertest.Fault{
		{Fault: sim.Fault5xx, Kind: sources.ErrUnavailable},
		{Fault: sim.FaultTruncated, Kind: sources.ErrBadResponse},
		{Fault: sim.FaultErrorIn200, Kind: sources.ErrUnavailable},
		{Fault: sim.FaultWrongSymbol, Kind: sources.ErrBadResponse},
		{Fault: sim.FaultUnauthorized, Kind: sources.ErrUnauthorized},
		{Fault: sim.FaultTimeout, Kind: sources.ErrUnavailable},
	}})
}

// TestSimRateLimit lets the simulator serve one request a minute: the second is a 429 the
// adapter reports as rate limited, with the provider's retry-after.
func TestSimRateLimit(t *testing.T) {
	adaptertest.RateLimit(t, config(5), adaptertest.TheOpen.For("NVDA"), adaptertest.TheOpen.For("TSLA"))
}
