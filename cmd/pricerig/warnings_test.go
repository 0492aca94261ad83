package main

import (
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources/sim"
)

// The sources' warnings reach the user on stderr in every command that asks them: here the
// client's retries of a provider answering 503.
func TestSourceWarningsReachStderr(t *testing.T) {
	noEnv(t)
	m := time.Date(2026, 11, 24, 15, 30, 0, 0, time.UTC)
	srv, url := startSim(t, m.Add(48*time.Hour))
	srv.SetFault("alpaca", sim.Fault5xx)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"price", []string{"price", "--sim", url, "NVDA", "2026-11-24T15:30Z"}},
		{"bars", []string{"bars", "--sim", url, "--source", "alpaca", "NVDA", "2026-11-24T15:00Z", "2026-11-24T15:10Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, stderr := runCLI(t, tc.args...)
			if !strings.Contains(stderr, "retrying after HTTP status") || !strings.Contains(stderr, "source=alpaca") || !strings.Contains(stderr, "status=503") {
				t.Errorf("stderr has no warning of alpaca's retries:\n%s", stderr)
			}
		})
	}
}
