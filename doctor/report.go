package doctor

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText writes the report for a person: a headline, then one line per check (the verdict,
// what was checked, what was found and, after an arrow, the fix), failures first seen by their
// capitals.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "pricerig doctor at %s: %d fail, %d warn, %d ok\n", r.At.Format(time.RFC3339), r.Count(Fail), r.Count(Warn), r.Count(OK))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, c := range r.Checks {
		verdict := string(c.Verdict)
		if c.Verdict == Fail {
			verdict = "FAIL"
		}
		detail := c.Detail
		if c.Problem != "" {
			detail = c.Problem + ": " + detail
		}
		if c.Fix != "" {
			detail += " → " + c.Fix
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", verdict, c.Check, c.Subject, detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Kept != "" {
		fmt.Fprintln(&b, r.Kept)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
