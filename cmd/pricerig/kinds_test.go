package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources/sim"
)

// A source that refused its key during a backfill left failed quotes in the store, and their
// kind reaches every reader: the JSON lines export (error_kind), `price --db` (why it asks the
// sources instead) and `audit --db --json` (a history_failed finding with its error_kind), on
// the store's SQLite file.
func TestStoredQuotesKeepTheirErrorKind(t *testing.T) {
	srv, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	db := filepath.Join(t.TempDir(), "prices.db")
	srv.SetFault("massive", sim.FaultUnauthorized)
	code, _, stderr := runCLI(t, "backfill", "--config", config, "--sim", url, "--from", "2025-11-20T14:00Z", "--to", "2025-11-20T16:50Z",
		"--symbols", "TSLA", "--db", db, "--json", "--progress", "off")
	if code != exitFailure || !strings.Contains(stderr, "windows failed") {
		t.Fatalf("backfill: exit %d (want 1, its windows failed): %s", code, stderr)
	}
	srv.SetFault("massive", sim.FaultNone)

	code, out, stderr := runCLI(t, "backfill", "export", "--db", db, "--format", "jsonl")
	if code != exitOK {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines {
		var line struct {
			Sources []struct {
				Source    string `json:"source"`
				Status    string `json:"status"`
				ErrorKind string `json:"error_kind"`
			} `json:"sources"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		for _, q := range line.Sources {
			if (q.Source == "massive") != (q.ErrorKind == "unauthorized") || (q.Source == "massive" && q.Status != "error") {
				t.Fatalf("quote %+v in %s", q, l)
			}
		}
	}
	if len(lines) != 170 {
		t.Fatalf("%d lines exported, want 170 minutes", len(lines))
	}

	code, out, stderr = runCLI(t, "price", "--config", config, "--sim", url, "--db", db, "--json", "TSLA", "2025-11-20T15:00Z")
	if code != exitOK || decodePrice(t, out).Store != "" || !strings.Contains(stderr, "incomplete") || !strings.Contains(stderr, "[massive: unauthorized]") {
		t.Errorf("price --db at a minute massive failed: exit %d, stderr %q", code, stderr)
	}

	code, out, stderr = runCLI(t, "audit", "--config", config, "--json", "--sim", url, "--since", "30m", "--symbols", "TSLA", "--db", db)
	if code != exitFailure {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	var rep struct {
		Findings []struct {
			Name      string `json:"name"`
			Source    string `json:"source"`
			Symbol    string `json:"symbol"`
			ErrorKind string `json:"error_kind"`
			Count     int    `json:"count"`
			Of        int    `json:"of"`
			Message   string `json:"message"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range rep.Findings {
		if f.Name == "history_failed" {
			found++
			if f.Source != "massive" || f.Symbol != "TSLA" || f.ErrorKind != "unauthorized" || f.Count == 0 || f.Count != f.Of ||
				!strings.Contains(f.Message, "fix the key") {
				t.Errorf("finding %+v", f)
			}
		}
	}
	if found != 1 {
		t.Errorf("%d history_failed findings in %s", found, out)
	}
}
