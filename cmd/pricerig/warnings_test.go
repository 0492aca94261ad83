package main

import (
	"os"
	"path/filepath"
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
	// price waits for every source (early_quorum: all): on the default majority quorum the other
	// sources could answer and cancel alpaca's request before its first 503 came back, and then
	// there is no retry to warn of.
	spec, err := os.ReadFile("../../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	waitAll := strings.Replace(string(spec), "early_quorum: 0 ", "early_quorum: all ", 1)
	if waitAll == string(spec) {
		t.Fatal("sources.yaml has no early_quorum: 0 line to change")
	}
	config := filepath.Join(t.TempDir(), "sources.yaml")
	if err := os.WriteFile(config, []byte(waitAll), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"price", []string{"price", "--config", config, "--sim", url, "NVDA", "2026-11-24T15:30Z"}},
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
