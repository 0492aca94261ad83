package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOneDefaultStore is issue 37's one default store: with no --db anywhere, backfill fills the
// per-user store, and price answers a minute it stored from there with no request sent, explain
// derives it again from the same bars, and backfill export writes its answers. Before, backfill
// and export defaulted to ./prices.db and price to the per-user cache: price asked the sources
// again. A ./prices.db left by the old default is named on stderr, neither read nor moved.
func TestOneDefaultStore(t *testing.T) {
	srv, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	store := filepath.Join(t.TempDir(), "pricerig", cacheFile)
	old := userCache
	userCache = func() (string, error) { return store, nil }
	t.Cleanup(func() { userCache = old })
	work := t.TempDir()
	t.Chdir(work)
	if err := os.WriteFile(filepath.Join(work, oldDefaultStore), []byte("an old history"), 0o600); err != nil {
		t.Fatal(err)
	}

	code, _, stderr := runCLI(t, "backfill", "--config", config, "--sim", url, "--from", "2025-11-03", "--to", "2025-11-03",
		"--symbols", "TSLA", "--progress", "off")
	if code != exitOK {
		t.Fatalf("backfill: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(store); err != nil {
		t.Fatalf("backfill made no store at the per-user path %s: %v", store, err)
	}
	if !strings.Contains(stderr, "./prices.db (the old default store) is not read") {
		t.Errorf("backfill did not name the old ./prices.db:\n%s", stderr)
	}
	if body, _ := os.ReadFile(filepath.Join(work, oldDefaultStore)); string(body) != "an old history" {
		t.Errorf("./prices.db was changed: %q", body)
	}

	before := simRequests(srv)
	code, out, stderr := runCLI(t, "price", "--config", config, "--sim", url, "TSLA", "2025-11-03T14:30Z")
	if code != exitOK {
		t.Fatalf("price: exit %d: %s", code, stderr)
	}
	if n := simRequests(srv) - before; n != 0 {
		t.Errorf("price of a backfilled minute sent %d requests", n)
	}
	if !strings.Contains(out, "from the store "+store) {
		t.Errorf("price did not answer from the default store %s:\n%s", store, out)
	}

	code, out, stderr = runCLI(t, "explain", "--config", config, "TSLA", "2025-11-03T14:30Z")
	if code != exitOK {
		t.Errorf("explain from the default store: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "backfill", "export", "--format", "csv", "--symbols", "TSLA")
	if code != exitOK || len(strings.Split(strings.TrimSpace(out), "\n")) != 1+960 {
		t.Errorf("export from the default store: exit %d, %d lines\n%s", code, strings.Count(out, "\n"), stderr)
	}
	if n := simRequests(srv) - before; n != 0 {
		t.Errorf("explain and export sent %d requests", n)
	}
}
