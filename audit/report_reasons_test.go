package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
)

// TestTextSaysWhyASourceHadNoPrice is issue 37's reasons in words: the text report's table says
// "skipped" or "not_final", and a line below says why (the reason --json gives as the quote's
// error), once per source, status and reason, with the symbols; a priced source has no line.
// Before, the reason was in --json alone.
func TestTextSaysWhyASourceHadNoPrice(t *testing.T) {
	m := time.Date(2026, 11, 24, 15, 30, 0, 0, time.UTC)
	skip := "not covered: massive publishes a minute 15m after it (delay)"
	rep := Report{At: m.Add(time.Hour), Symbols: []string{"NVDA", "SPY"}, Sources: SourcesReport{
		Summaries: []Summary{{Source: "massive", Symbol: "NVDA", Status: StatusSkipped, MaxDistanceCentiBps: -1},
			{Source: "yahoo", Symbol: "NVDA", Status: StatusOK}},
		Observations: []Observation{
			{Source: "massive", Symbol: "NVDA", Minute: m, Status: StatusSkipped, Err: skip, DistanceCentiBps: -1},
			{Source: "massive", Symbol: "SPY", Minute: m, Status: StatusSkipped, Err: skip, DistanceCentiBps: -1},
			{Source: "yahoo", Symbol: "NVDA", Minute: m, Status: StatusOK, Price: numeric.MustPrice("180.00")},
		}}}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, skip) != 1 || !strings.Contains(out, "NVDA,SPY") {
		t.Errorf("the skip's reason not said once with its symbols:\n%s", out)
	}
	if _, reasons, _ := strings.Cut(out, "\nwhy"); strings.Contains(reasons, "yahoo") {
		t.Errorf("a priced source has a reason line:\n%s", out)
	}
}
