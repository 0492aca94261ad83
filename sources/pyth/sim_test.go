package pyth_test

import (
	"testing"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	_ "github.com/pricerig/pricerig/sources/pyth"
	"github.com/pricerig/pricerig/sources/sim"
)

var config = adaptertest.Config{Type: "pyth", Seed: 7, Now: adaptertest.MarchNow, Settings: sources.Settings{Retries: -1}}

// TestSimRoundTrip reads the simulator's Pyth emulation over the shared March windows: the
// adapter's bars are the tape's raw bars. Pyth's volume is 0 (aggregate prices, not trades), so
// only starts and closes are compared.
func TestSimRoundTrip(t *testing.T) {
	adaptertest.RoundTrip(t, adaptertest.Case{Config: config, Windows: adaptertest.MarchWindows, SkipVolume: true})
}

// TestSimFaults injects the simulator's faults a Pyth body can show.
func TestSimFaults(t *testing.T) {
	adaptertest.Faults(t, adaptertest.FaultCase{Config: config, Window: adaptertest.MarchHour, Faults: []adaptertest.Fault{
		{Fault: sim.FaultTruncated, Kind: sources.ErrBadResponse},
		{Fault: sim.FaultErrorIn200, Kind: sources.ErrBadResponse},
		{Fault: sim.FaultUnauthorized, Kind: sources.ErrUnauthorized},
		{Fault: sim.FaultNotEntitled, Kind: sources.ErrUnauthorized},
		{Fault: sim.Fault5xx, Kind: sources.ErrUnavailable},
	}})
}

// TestSimRateLimit lets the simulator serve one request a minute: the second is a 429 the
// adapter reports as rate limited, with the provider's retry-after.
func TestSimRateLimit(t *testing.T) {
	adaptertest.RateLimit(t, config, adaptertest.MarchHour, adaptertest.MarchNextHour)
}
