package main

import (
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds/backfill"
)

// TestBackfillSummaryOneCountAColumn is issue 37's backfill summary: every count has its own
// column under its own heading (the minutes by status were one a/b/c/d/e/f cell), and the time
// waited is rounded for a person.
func TestBackfillSummaryOneCountAColumn(t *testing.T) {
	src := backfill.SourceSummary{Source: "massive", Windows: 3, Failed: 1, Requests: 4, MinRequests: 3, Waited: 83*time.Second + 417*time.Millisecond, Bars: 2880}
	src.Minutes.OK, src.Minutes.Carried, src.Minutes.NoData, src.Minutes.Outlier, src.Minutes.NotCovered, src.Minutes.Unknown = 900, 41, 7, 2, 9, 1
	var b strings.Builder
	printSummary(&b, &backfill.Summary{Symbols: []string{"NVDA"}, Sources: []backfill.SourceSummary{src}}, "prices.db")
	var head, row []string
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "SOURCE") {
			head = strings.Split(strings.Join(strings.Fields(strings.ReplaceAll(strings.ReplaceAll(line, "NO DATA", "NO_DATA"), "NOT COVERED", "NOT_COVERED")), " "), " ")
		}
		if strings.HasPrefix(line, "massive") {
			row = strings.Fields(line)
		}
	}
	want := map[string]string{"WINDOWS": "3", "FAILED": "1", "REQUESTS": "4", "MINIMUM": "3", "WAITED": "1m23s", "BARS": "2880",
		"OK": "900", "CARRIED": "41", "NO_DATA": "7", "OUTLIER": "2", "NOT_COVERED": "9", "UNKNOWN": "1"}
	if len(head) != len(row) {
		t.Fatalf("%d headings, %d cells:\n%s", len(head), len(row), b.String())
	}
	for i, h := range head {
		if w, ok := want[h]; ok && row[i] != w {
			t.Errorf("%s: %s, want %s\n%s", h, row[i], w, b.String())
		}
		delete(want, h)
	}
	if len(want) != 0 {
		t.Errorf("no column for %v:\n%s", want, b.String())
	}
}
