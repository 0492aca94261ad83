package main

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Two backfills on one store at once, as two processes: both finish, and the store holds what
// one run alone writes. The migration of the new file, the windows and the answers are all
// written by both; a writer waits for the other's transaction instead of failing.
func TestTwoBackfillProcessesOnOneStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three pricerig processes")
	}
	url, config := processSim(t)
	dir := t.TempDir()
	shared, alone := filepath.Join(dir, "shared.db"), filepath.Join(dir, "alone.db")
	args := func(db string) []string {
		return []string{"backfill", "--config", config, "--sim", url, "--from", "2026-10-05", "--to", "2026-10-09", "--db", db, "--progress", "off"}
	}
	var wg sync.WaitGroup
	procs := []*proc{startPricerig(t, args(shared)...), startPricerig(t, args(shared)...)}
	codes := make([]int, len(procs))
	for i, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); codes[i] = p.wait(t, 5*time.Minute) }()
	}
	wg.Wait()
	for i, p := range procs {
		if codes[i] != exitOK {
			t.Errorf("backfill %d: exit %d\n%s", i+1, codes[i], p.stderr.String())
		}
	}
	one := startPricerig(t, args(alone)...)
	if code := one.wait(t, 5*time.Minute); code != exitOK {
		t.Fatalf("the lone backfill: exit %d\n%s", code, one.stderr.String())
	}
	if t.Failed() {
		return
	}
	got, want := dumpStore(t, shared), dumpStore(t, alone)
	if got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("the shared store differs from the lone run's at row %d:\n got %s\nwant %s", i, gl[i], wl[i])
			}
		}
		t.Fatalf("the shared store has %d rows, the lone run's %d", len(gl), len(wl))
	}
}

// price --db and audit --db read a store while a backfill process writes it: neither waits for
// the writer's lock nor fails with "database is locked".
func TestReadersWhileABackfillWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a pricerig process")
	}
	url, config := processSim(t)
	db := filepath.Join(t.TempDir(), "prices.db")
	// a first small run makes the file, so the readers find a store from their first try
	if p := startPricerig(t, "backfill", "--config", config, "--sim", url, "--from", "2026-10-05", "--to", "2026-10-05", "--db", db, "--progress", "off"); p.wait(t, 5*time.Minute) != exitOK {
		t.Fatalf("first run: %s", p.stderr.String())
	}
	writer := startPricerig(t, "backfill", "--config", config, "--sim", url, "--from", "2026-09-21", "--to", "2026-10-02", "--db", db, "--progress", "off")
	reads := 0
	for running := true; running; reads++ {
		select {
		case <-writer.done:
			running = false // one more round after it ended
		default:
		}
		code, _, stderr := runCLI(t, "price", "--config", config, "--sim", url, "--db", db, "--json", "NVDA", "2026-10-05T14:30Z")
		if code != exitOK || strings.Contains(stderr, "locked") || strings.Contains(stderr, "busy") {
			t.Fatalf("price --db while a backfill writes: exit %d: %s", code, stderr)
		}
		code, _, stderr = runCLI(t, "audit", "--config", config, "--sim", url, "--db", db, "--minutes", "1")
		if code == exitBadInput || strings.Contains(stderr, "locked") || strings.Contains(stderr, "busy") {
			t.Fatalf("audit --db while a backfill writes: exit %d: %s", code, stderr)
		}
	}
	if code := writer.wait(t, 5*time.Minute); code != exitOK {
		t.Fatalf("the backfill: exit %d\n%s", code, writer.stderr.String())
	}
	t.Logf("%d rounds of reads while the backfill wrote", reads)
}
