package udf_test

import (
	"testing"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/sim"
	_ "github.com/pricerig/pricerig/sources/udf"
)

var config = adaptertest.Config{Type: "udf", Seed: 7, Now: adaptertest.MarchNow, Settings: sources.Settings{Retries: -1,
	Options: map[string]string{"sessions": "pre,regular,post", "max_window": "7d"}}}

// TestSimRoundTrip reads the simulator's UDF emulation over the shared March windows: the
// adapter's bars are the tape's raw bars. A generic UDF source covers what sources.yaml says;
// config says what the simulator serves.
func TestSimRoundTrip(t *testing.T) {
	adaptertest.RoundTrip(t, adaptertest.Case{Config: config, Windows: adaptertest.MarchWindows})
}

// TestSimFaults injects the simulator's faults a UDF body can show.
func TestSimFaults(t *testing.T) {
	adaptertest.Faults(t, adaptertest.FaultCase{Config: config, Window: adaptertest.MarchHour, Faults: []adaptertest.Fault{
		{Fault: sim.FaultTruncated, Kind: sources.ErrBadResponse},
		{Fault: sim.FaultErrorIn200, Kind: sources.ErrBadResponse},
		{Fault: sim.FaultUnauthorized, Kind: sources.ErrUnauthorized},
		{Fault: sim.Fault5xx, Kind: sources.ErrUnavailable},
	}})
}

// TestSimRateLimit lets the simulator serve one request a minute: the second is a 429 the
// adapter reports as rate limited, with the provider's retry-after.
func TestSimRateLimit(t *testing.T) {
	adaptertest.RateLimit(t, config, adaptertest.MarchHour, adaptertest.MarchNextHour)
}
