package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources/sim"
)

func TestBarsOverTheSimulator(t *testing.T) {
	noEnv(t)
	from := time.Date(2026, 11, 24, 6, 50, 0, 0, time.UTC) // Tuesday 01:50 EST: overnight, which pyth serves
	srv, url := startSim(t, from.Add(48*time.Hour))
	tests := []struct {
		source string
		from   time.Time
	}{
		{"pyth", from},                      // Equity.US.NVDA/USD, overnight bars
		{"alpaca", from.Add(9 * time.Hour)}, // regular
	}
	for _, tc := range tests {
		t.Run(tc.source, func(t *testing.T) {
			to := tc.from.Add(10 * time.Minute)
			code, out, stderr := runCLI(t, "bars", "--sim", url, "--source", tc.source, "NVDA", tc.from.Format(time.RFC3339), to.Format(time.RFC3339))
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var want []string
			for m := tc.from; m.Before(to); m = m.Add(time.Minute) {
				if b, ok := srv.Tape().Bar("NVDA", m); ok {
					want = append(want, m.Format(time.RFC3339)+" "+b.Close.String())
				}
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var b barOutput
				if err := json.Unmarshal([]byte(line), &b); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				p, err := numeric.ParsePrice(b.Close)
				if err != nil || int64(p) != b.Scaled {
					t.Errorf("close %s and close_e8 %d disagree", b.Close, b.Scaled)
				}
				got = append(got, b.T+" "+b.Close)
			}
			if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("bars:\n%s\nwant the tape's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestBarsErrors(t *testing.T) {
	noEnv(t)
	from := time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC)
	srv, url := startSim(t, from.Add(48*time.Hour))
	tests := []struct {
		name   string
		args   []string
		setup  func()
		code   int
		stderr string
	}{
		{"unknown source", []string{"--sim", url, "--source", "stooq", "NVDA", "2026-11-24T15:00Z", "2026-11-24T15:10Z"}, nil, exitBadInput, `no source "stooq" in the spec (it has yahoo, alpaca`},
		{"no --source", []string{"--sim", url, "NVDA", "2026-11-24T15:00Z", "2026-11-24T15:10Z"}, nil, exitBadInput, "required flag"},
		{"a source without its keys", []string{"--source", "alpaca", "NVDA", "2026-11-24T15:00Z", "2026-11-24T15:10Z"}, nil, exitBadInput, "source alpaca is skipped: ALPACA_API_KEY_ID and ALPACA_API_SECRET_KEY are not set"},
		{"TO before FROM", []string{"--sim", url, "--source", "alpaca", "NVDA", "2026-11-24T15:10Z", "2026-11-24T15:00Z"}, nil, exitBadInput, "must be after FROM"},
		{"bad FROM", []string{"--sim", url, "--source", "alpaca", "NVDA", "noon", "2026-11-24T15:00Z"}, nil, exitBadInput, "FROM: not a time"},
		{"the source fails", []string{"--sim", url, "--source", "massive", "NVDA", "2026-11-24T15:00Z", "2026-11-24T15:10Z"},
			func() { srv.SetFault("massive", sim.FaultUnauthorized) }, exitFailure, "massive: unauthorized"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			code, out, stderr := runCLI(t, append([]string{"bars"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) || out != "" {
				t.Errorf("exit %d stdout %q stderr %q, want %d and %q", code, out, stderr, tc.code, tc.stderr)
			}
		})
	}
}
