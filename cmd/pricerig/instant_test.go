package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pricerig/pricerig"
)

// instantSpec writes the shipped sources.yaml with final_after: 0 on every source: the spec of a
// rig process attached to a simulator that serves every bar final the moment its minute ends
// (devnet.Options.Instant, sim.Options.Instant). Such a test orders the last closed minute and is
// about something else than finality, and says so by reading this spec.
func instantSpec(t testing.TB) string {
	t.Helper()
	typeLine := regexp.MustCompile(`(?m)^(    type: \w+)$`)
	spec := typeLine.ReplaceAllString(string(pricerig.DefaultSpec), "$1\n    final_after: 0")
	if n := strings.Count(spec, "final_after: 0"); n != 9 {
		t.Fatalf("the shipped spec has %d sources to make instant, want 9", n)
	}
	file := filepath.Join(t.TempDir(), "sources.yaml")
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}
