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

// TestSimLabelEvidenceWins reads the simulator, which labels by start as Alpha Vantage does
// today, with label: end. Its month bodies hold 04:00:00 keys, which only a START-labelled series
// can have, so the adapter reads them by start whatever the option says: the bars are the tape's,
// not a minute early.
func TestSimLabelEvidenceWins(t *testing.T) {
	c := config(11)
	c.Settings = sources.Settings{Name: "av", Options: map[string]string{"label": "end"}}
	s, src := adaptertest.Start(t, c)
	w := adaptertest.TheOpen
	got, err := src.Bars(context.Background(), "SPY", w.From, w.To)
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameBars(t, "SPY read with label: end", got, adaptertest.TapeBars(s.Tape(), "SPY", w.From, w.To, src.Coverage().Sessions))
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
		{Fault: sim.FaultNotEntitled, Kind: sources.ErrUnauthorized},
		{Fault: sim.FaultTimeout, Kind: sources.ErrUnavailable},
	}})
}

// TestSimRateLimit lets the simulator serve one request a minute: the second is a 429 the
// adapter reports as rate limited, with the provider's retry-after.
func TestSimRateLimit(t *testing.T) {
	adaptertest.RateLimit(t, config(5), adaptertest.TheOpen.For("NVDA"), adaptertest.TheOpen.For("TSLA"))
}
