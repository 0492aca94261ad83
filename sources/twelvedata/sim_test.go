package twelvedata_test

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/sim"
	"github.com/pricerig/pricerig/sources/twelvedata"
)

func config(seed int64) adaptertest.Config {
	return adaptertest.Config{Type: twelvedata.Type, Seed: seed, Now: adaptertest.SeptemberNow}
}

// windows add to the shared ones three weeks over weekends and a holiday: three 7-day requests.
var windows = []adaptertest.Window{
	adaptertest.TheOpen, adaptertest.PreMarket, adaptertest.CloseIntoFuture,
	{Name: "three weeks", From: time.Date(2026, 8, 20, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 9, 9, 0, 0, 0, 0, time.UTC)},
	adaptertest.SplitDays,
}

// TestSimRoundTrip reads the simulator's Twelve Data emulation and checks that the adapter's raw
// bars are the tape's as-traded bars, minute for minute.
func TestSimRoundTrip(t *testing.T) {
	adaptertest.RoundTrip(t, adaptertest.Case{Config: config(11), Symbols: adaptertest.Symbols, Windows: windows, EveryWindowTrades: true})
}

// TestSimRoundTripExchangeTime reads the same tape in the exchange's wall clock: the long span
// crosses weekends, the split days a DST-free Monday.
func TestSimRoundTripExchangeTime(t *testing.T) {
	c := config(12)
	c.Settings = sources.Settings{Name: "td", Options: map[string]string{"timezone": "exchange"}}
	adaptertest.RoundTrip(t, adaptertest.Case{Config: c, Symbols: []string{"NVDA"}, Windows: windows[3:], EveryWindowTrades: true})
}

// TestSimFaults injects each of the simulator's faults; an error in a 200 body is code 500 here.
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
