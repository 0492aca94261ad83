package alphavantage_test

import (
	"context"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/alphavantage"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/sim"
)

func config(seed int64) adaptertest.Config {
	return adaptertest.Config{Type: alphavantage.Type, Seed: seed, Now: adaptertest.SeptemberNow}
}

// TestSimRoundTrip reads the simulator's Alpha Vantage emulation and checks that the adapter's
// raw bars are the tape's as-traded bars, minute for minute. Besides the shared windows, two
// weeks that span two calendar months (one request each).
func TestSimRoundTrip(t *testing.T) {
	adaptertest.RoundTrip(t, adaptertest.Case{Config: config(11), Symbols: adaptertest.Symbols, EveryWindowTrades: true, Windows: []adaptertest.Window{
		adaptertest.TheOpen, adaptertest.PreMarket, adaptertest.CloseIntoFuture,
		{Name: "August into September", From: time.Date(2026, 8, 25, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 9, 9, 0, 0, 0, 0, time.UTC)},
		adaptertest.SplitDays,
	}})
}

// TestSimLabelMatters reads the simulator, which labels by start as Alpha Vantage does today,
// with label: end: every bar comes out one minute early, so the option is not a no-op and the
// default is the one that agrees.
func TestSimLabelMatters(t *testing.T) {
	c := config(11)
	c.Settings = sources.Settings{Name: "av", Options: map[string]string{"label": "end"}}
	s, src := adaptertest.Start(t, c)
	w := adaptertest.TheOpen
	got, err := src.Bars(context.Background(), "SPY", w.From.Add(-time.Minute), w.To)
	if err != nil {
		t.Fatal(err)
	}
	// [from−1m, to) read as end labels holds the tape's bars of [from, to+1m), a minute early
	want := adaptertest.TapeBars(s.Tape(), "SPY", w.From, w.To.Add(time.Minute), src.Coverage().Sessions)
	shifted := make([]sources.Bar, len(want))
	for i, b := range want {
		b.Start = b.Start.Add(-time.Minute)
		shifted[i] = b
	}
	adaptertest.SameBars(t, "SPY read with label: end", got, shifted)
}

// TestSimFaults injects each of the simulator's faults; an error in a 200 body is the
// daily-limit "Information" here.
func TestSimFaults(t *testing.T) {
	adaptertest.Faults(t, adaptertest.FaultCase{Config: config(5), Window: adaptertest.TheOpen.For("NVDA"), Faults: []adaptertest.Fault{
		{Fault: sim.Fault5xx, Kind: sources.ErrUnavailable},
		{Fault: sim.FaultTruncated, Kind: sources.ErrBadResponse},
		{Fault: sim.FaultErrorIn200, Kind: sources.ErrRateLimited},
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
