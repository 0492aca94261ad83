package massive_test

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/massive"
	"github.com/pricerig/pricerig/sources/sim"
)

func config(seed int64) adaptertest.Config {
	return adaptertest.Config{Type: massive.Type, Seed: seed, Now: adaptertest.SeptemberNow}
}

// TestSimRoundTrip reads the simulator's Massive emulation and checks that the adapter's raw
// bars are the tape's as-traded bars, minute for minute. Besides the shared windows, seven weeks:
// two 30-day requests, each paged. delay: 0s lets it read the minutes just closed.
func TestSimRoundTrip(t *testing.T) {
	c := config(11)
	c.Settings.Options = map[string]string{"delay": "0s"}
	adaptertest.RoundTrip(t, adaptertest.Case{Config: c, Symbols: adaptertest.Symbols, EveryWindowTrades: true, Windows: []adaptertest.Window{
		adaptertest.TheOpen, adaptertest.PreMarket, adaptertest.CloseIntoFuture,
		{Name: "seven weeks", From: time.Date(2026, 7, 20, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 9, 9, 0, 0, 0, 0, time.UTC)},
		adaptertest.SplitDays,
	}})
}

// TestSimFaults injects each of the simulator's faults; an error in a 200 body is status
// NOT_AUTHORIZED here.
func TestSimFaults(t *testing.T) {
	adaptertest.Faults(t, adaptertest.FaultCase{Config: config(5), Window: adaptertest.TheOpen.For("NVDA"), Faults: []adaptertest.Fault{
		{Fault: sim.Fault5xx, Kind: sources.ErrUnavailable},
		{Fault: sim.FaultTruncated, Kind: sources.ErrBadResponse},
		{Fault: sim.FaultErrorIn200, Kind: sources.ErrUnauthorized},
		{Fault: sim.FaultWrongSymbol, Kind: sources.ErrBadResponse},
		{Fault: sim.FaultUnauthorized, Kind: sources.ErrUnauthorized},
		{Fault: sim.FaultNotEntitled, Kind: sources.ErrUnauthorized},
		{Fault: sim.FaultTimeout, Kind: sources.ErrUnavailable},
	}})
}

// TestSimRateLimit lets the simulator serve one request a minute: the second is a 429 the
// adapter reports as rate limited, with the provider's retry-after.
func TestSimRateLimit(t *testing.T) {
	adaptertest.RateLimit(t, config(5), adaptertest.TheOpen.For("NVDA"), adaptertest.TheOpen.For("TSLA"))
}
