package jsonsrc_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	_ "github.com/pricerig/pricerig/sources/jsonsrc"
	"github.com/pricerig/pricerig/sources/sim"
)

// simNow is the simulator's clock and the source's: every window below has closed by then.
var simNow = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

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

func startSim(t *testing.T, provider string) (*sim.Server, sources.Source) {
	t.Helper()
	clock := func() time.Time { return simNow }
	s := sim.New(sim.Options{Seed: 11, Now: clock})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close)
	f, ok := sources.Lookup("json")
	if !ok {
		t.Fatal("json is not registered")
	}
	src, err := f.New(sources.Settings{Name: "j-" + provider, Type: "json", BaseURL: s.BaseURL(srv.URL, provider), Key: sim.Key,
		Retries: -1, Options: specs[provider]}, sources.Deps{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return s, src
}

func TestSimRoundTrip(t *testing.T) {
	windows := []struct {
		name, symbol string
		from, to     time.Time
	}{
		{"pre into regular", "NVDA", time.Date(2026, 3, 16, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 16, 14, 30, 0, 0, time.UTC)},
		{"post into overnight", "TSLA", time.Date(2026, 3, 16, 19, 30, 0, 0, time.UTC), time.Date(2026, 3, 17, 0, 30, 0, 0, time.UTC)},
		{"weekend", "NVDA", time.Date(2026, 3, 14, 14, 0, 0, 0, time.UTC), time.Date(2026, 3, 15, 14, 0, 0, 0, time.UTC)},
		{"ten days across DST", "SPY", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC)},
	}
	for provider := range specs {
		t.Run(provider, func(t *testing.T) {
			s, src := startSim(t, provider)
			total := 0
			for _, w := range windows {
				got, err := src.Bars(context.Background(), w.symbol, w.from, w.to)
				if err != nil {
					t.Fatalf("%s: %v", w.name, err)
				}
				want := []sources.Bar{}
				for m := w.from; m.Before(w.to); m = m.Add(time.Minute) {
					if b, ok := s.Tape().Bar(w.symbol, m); ok && market.InSessions(m, src.Coverage().Sessions) {
						want = append(want, b)
					}
				}
				if len(got) != len(want) {
					t.Fatalf("%s: %d bars, the tape has %d", w.name, len(got), len(want))
				}
				for i := range want {
					if !got[i].Start.Equal(want[i].Start) || got[i].Close != want[i].Close || got[i].Volume != want[i].Volume {
						t.Fatalf("%s: bar %d = %+v, the tape has %+v", w.name, i, got[i], want[i])
					}
				}
				total += len(want)
			}
			t.Logf("%d bars compared", total)
			if total == 0 {
				t.Fatal("no bars in any window: the comparison proved nothing")
			}
		})
	}
}

func TestSimFaults(t *testing.T) {
	tests := []struct {
		provider string
		fault    sim.Fault
		kind     error
	}{
		{"fmp", sim.FaultTruncated, sources.ErrBadResponse},
		{"fmp", sim.FaultErrorIn200, sources.ErrRateLimited}, // "Limit Reach" at error_path
		{"fmp", sim.FaultUnauthorized, sources.ErrUnauthorized},
		{"tiingo", sim.FaultErrorIn200, sources.ErrBadResponse},
		{"tiingo", sim.Fault5xx, sources.ErrUnavailable},
	}
	from := time.Date(2026, 3, 16, 14, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		s, src := startSim(t, tt.provider)
		s.SetFault(tt.provider, tt.fault)
		_, err := src.Bars(context.Background(), "NVDA", from, from.Add(time.Hour))
		if !errors.Is(err, tt.kind) {
			t.Errorf("%s %v: err = %v, want %v", tt.provider, tt.fault, err, tt.kind)
		}
	}
}
