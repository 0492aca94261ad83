package jsonsrc_test

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	_ "github.com/pricerig/pricerig/sources/fmp" // the emulations this test reads register with their adapters
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	_ "github.com/pricerig/pricerig/sources/jsonsrc"
	"github.com/pricerig/pricerig/sources/sim"
	_ "github.com/pricerig/pricerig/sources/tiingo"
)

// specs describe two of the simulator's providers as a user would in sources.yaml, to show the
// json type reading formats it has no code for.
var specs = map[string]map[string]string{
	"fmp": { // New York wall clock, newest first, whole dates
		"url":         "/stable/historical-chart/1min?symbol={symbol}&from={from}&to={to}&nonadjusted=true&apikey={key}",
		"from_format": "date", "to_format": "date",
		"time_path": "date", "time_format": "et", "price_path": "close", "volume_path": "volume",
		"error_path": "Error Message", "sessions": "regular", "max_window": "7d",
	},
	"tiingo": { // ISO UTC, the key in a header
		"url":         "/iex/{symbol}/prices?startDate={from}&endDate={to}&resampleFreq=1min&afterHours=true&columns=close,volume",
		"from_format": "date", "to_format": "date",
		"time_path": "date", "time_format": "rfc3339", "price_path": "close", "volume_path": "volume",
		"error_path": "detail", "sessions": "pre,regular,post", "max_window": "3d",
		"auth_header": "Authorization", "auth_scheme": "Token",
	},
}

// config is a json source reading one provider of the simulator.
func config(provider string) adaptertest.Config {
	return adaptertest.Config{Type: "json", Provider: provider, Seed: 11, Now: adaptertest.MarchNow,
		Settings: sources.Settings{Name: "j-" + provider, Retries: -1, Options: specs[provider]}}
}

func TestSimRoundTrip(t *testing.T) {
	windows := []adaptertest.Window{
		adaptertest.MarchWindows[0],
		{Name: "post into overnight", Symbol: "TSLA", From: time.Date(2026, 3, 16, 19, 30, 0, 0, time.UTC), To: time.Date(2026, 3, 17, 0, 30, 0, 0, time.UTC)},
		adaptertest.MarchWindows[3], // weekend
		adaptertest.MarchWindows[5], // ten days across DST
	}
	for provider := range specs {
		t.Run(provider, func(t *testing.T) {
			adaptertest.RoundTrip(t, adaptertest.Case{Config: config(provider), Windows: windows})
		})
	}
}

func TestSimFaults(t *testing.T) {
	for provider, faults := range map[string][]adaptertest.Fault{
		"fmp": {
			{Fault: sim.FaultTruncated, Kind: sources.ErrBadResponse},
			{Fault: sim.FaultErrorIn200, Kind: sources.ErrRateLimited}, // "Limit Reach" at error_path
			{Fault: sim.FaultUnauthorized, Kind: sources.ErrUnauthorized},
		},
		"tiingo": {
			{Fault: sim.FaultErrorIn200, Kind: sources.ErrBadResponse},
			{Fault: sim.Fault5xx, Kind: sources.ErrUnavailable},
		},
	} {
		t.Run(provider, func(t *testing.T) {
			adaptertest.Faults(t, adaptertest.FaultCase{Config: config(provider), Window: adaptertest.MarchHour, Faults: faults})
		})
	}
}
