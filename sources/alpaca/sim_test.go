package alpaca_test

import (
	"context"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/alpaca"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/sim"
)

func config(seed int64) adaptertest.Config {
	return adaptertest.Config{Type: alpaca.Type, Seed: seed, Now: adaptertest.SeptemberNow}
}

// windows add to the shared ones three weeks over weekends and a holiday: three 7-day requests,
// each paged.
var windows = []adaptertest.Window{
	adaptertest.TheOpen, adaptertest.PreMarket, adaptertest.CloseIntoFuture,
	{Name: "three weeks", From: time.Date(2026, 8, 20, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 9, 9, 0, 0, 0, 0, time.UTC)},
	adaptertest.SplitDays,
}

// TestSimRoundTrip reads the simulator's Alpaca emulation and checks that the adapter's raw bars
// are the tape's as-traded bars, minute for minute.
func TestSimRoundTrip(t *testing.T) {
	adaptertest.RoundTrip(t, adaptertest.Case{Config: config(11), Symbols: adaptertest.Symbols, Windows: windows, EveryWindowTrades: true})
}

// TestSimRoundTripMulti pages the multi-symbol endpoint, whose limit counts across symbols.
func TestSimRoundTripMulti(t *testing.T) {
	s, src := adaptertest.Start(t, config(13))
	w := windows[3]
	got, err := src.(*alpaca.Source).BarsMulti(context.Background(), adaptertest.Symbols, w.From, w.To)
	if err != nil {
		t.Fatal(err)
	}
	for _, sym := range adaptertest.Symbols {
		adaptertest.SameBars(t, sym, got[sym], adaptertest.TapeBars(s.Tape(), sym, w.From, w.To, src.Coverage().Sessions))
	}
}

// TestSimFaults injects each of the simulator's faults; an error in a 200 body is code 50010000
// here.
func TestSimFaults(t *testing.T) {
	adaptertest.Faults(t, adaptertest.FaultCase{Config: config(5), Window: adaptertest.TheOpen.For("NVDA"), Faults: []adaptertest.Fault{
		{Fault: sim.Fault5xx, Kind: sources.ErrUnavailable},
		{Fault: sim.FaultTruncated, Kind: sources.ErrBadResponse},
		{Fault: sim.FaultErrorIn200, Kind: sources.ErrUnavailable},
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
