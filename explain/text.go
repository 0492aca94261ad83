package explain

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
)

// WriteText writes the report for a person: the answer, each source's quote and why, its bars
// around the minute, the task's rigs, and the revisions.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %s", r.Symbol, r.Minute.Format(time.RFC3339))
	if !r.Effective.Equal(r.Minute) {
		fmt.Fprintf(&b, " (read at %s, the last minute of the %s session)", r.Effective.Format(time.RFC3339), r.Session)
	}
	b.WriteString(", derived again from the bar ledger alone\n")
	if r.Agreed {
		fmt.Fprintf(&b, "answer %s (× 10^8: %d): the lower median of %d sources within %d bps of the lower median %s of every price (min_sources %d)",
			r.Answer, int64(r.Answer), r.Survivors, r.OutlierBps, r.Median, r.MinSources)
		if r.Provisional {
			b.WriteString(", counting bars not final yet (the rig's last resort)")
		}
		b.WriteString("\n")
	} else {
		fmt.Fprintf(&b, "no answer: %s\n", r.Reason)
	}
	if t := r.Task; t != nil {
		verdict := "equals the answer committed"
		if !t.Rederived {
			verdict = "DIFFERS from the answer committed"
		}
		fmt.Fprintf(&b, "task %d: committed %s (× 10^8: %d); derived again %s", t.ID, t.Committed, int64(t.Committed), verdict)
		if !t.AnsweredAt.IsZero() {
			fmt.Fprintf(&b, "; answered at %s", t.AnsweredAt.Format(time.RFC3339))
		}
		if !t.Evidence {
			b.WriteString("; the ledger keeps no evidence of it (bars older than its retention may be gone)")
		}
		b.WriteString("\n")
		if t.EvidenceDiffers != "" {
			fmt.Fprintf(&b, "the evidence is NOT the answer given: %s\n", t.EvidenceDiffers)
		}
		switch {
		case len(t.Counted) > 0:
			fmt.Fprintf(&b, "counted, as when it was answered: %s (the others' bars reached the ledger after the answer, or never)\n", strings.Join(t.Counted, ", "))
		case t.Evidence:
			b.WriteString("its evidence does not say which sources it counted (kept before the ledger's schema 6): every source the ledger holds counts\n")
		}
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, s := range r.Sources {
		mark := " "
		if s.Used {
			mark = "*"
		}
		price := "-"
		if s.Price > 0 {
			price = s.Price.String()
		}
		dist := ""
		if s.DistanceCentiBps >= 0 {
			dist = s.DistanceBpsText() + " bps"
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t%s\n", mark, s.Source, s.Status, price, dist, s.Why)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("(* counted in the answer)\n")
	if err := r.writeBars(&b); err != nil {
		return err
	}
	r.writeRigs(&b)
	r.writeRevisions(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeBars writes each source's bars around the minute as the ledger holds them.
func (r Report) writeBars(b *strings.Builder) error {
	for _, s := range r.Sources {
		if len(s.Bars) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s's bars in the ledger around the minute:\n", s.Source)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  time\tclose\tvolume\tfetched at\t")
		for _, bar := range s.Bars {
			state := "provisional"
			if bar.Final {
				state = "final"
			}
			if bar.Used {
				state += "  ← used"
			}
			fetched := "before the ledger kept fetch times"
			if !bar.FetchedAt.IsZero() {
				fetched = bar.FetchedAt.UTC().Format("2006-01-02 15:04:05")
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\n", bar.Time.UTC().Format("2006-01-02 15:04"), bar.Close, bar.Volume, fetched, state)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// writeRigs writes our rigs' answers (the journal) and, with a chain, every drawn rig's reveal.
func (r Report) writeRigs(b *strings.Builder) {
	if t := r.Task; t != nil && len(t.Rigs) > 0 {
		b.WriteString("\nour rigs (the journal):\n")
		for _, rig := range t.Rigs {
			fmt.Fprintf(b, "  rig %d %s: committed %s", rig.Rig, rig.State, rig.Committed)
			if rig.Revealed != nil {
				fmt.Fprintf(b, ", revealed %s", *rig.Revealed)
			}
			if rig.StoredMedian != nil {
				fmt.Fprintf(b, ", stored median %s, distance %s bps", *rig.StoredMedian, fmtCenti(rig.DistanceCentiBps))
			}
			b.WriteString("\n")
		}
	}
	if t := r.Task; t != nil && t.Reveals != nil {
		b.WriteString("\nevery drawn rig (on chain)")
		if t.StoredMedian != nil {
			fmt.Fprintf(b, ", stored median %s, agreed %v", *t.StoredMedian, *t.Agreed)
		}
		b.WriteString(":\n")
		for _, rv := range t.Reveals {
			if rv.Revealed == nil {
				fmt.Fprintf(b, "  rig %d: no reveal\n", rv.Rig)
				continue
			}
			fmt.Fprintf(b, "  rig %d: revealed %s", rv.Rig, *rv.Revealed)
			if rv.DistanceCentiBps >= 0 {
				fmt.Fprintf(b, ", %s bps from the stored median", fmtCenti(rv.DistanceCentiBps))
			}
			b.WriteString("\n")
		}
	}
}

// writeRevisions writes the bars a later fetch revised.
func (r Report) writeRevisions(b *strings.Builder) {
	if len(r.Revisions) > 0 {
		b.WriteString("\nbars revised by a later fetch:\n")
		for _, v := range r.Revisions {
			note := ""
			if v.Used {
				note += " (the bar used)"
			}
			if v.AfterAnswer {
				note += " (after the answer)"
			}
			fmt.Fprintf(b, "  %s %s: %s → %s, seen %s%s\n", v.Source, v.Minute.UTC().Format("2006-01-02 15:04"), orNoBar(v.Old), orNoBar(v.New), v.Seen.UTC().Format(time.RFC3339), note)
		}
	}
}

// DistanceBpsText is the distance to the answer (or median) in bps with two decimals.
func (s Source) DistanceBpsText() string { return fmtCenti(s.DistanceCentiBps) }

func fmtCenti(c int64) string {
	if c < 0 {
		return ""
	}
	return feeds.FormatCentiBps(c)
}

// orNoBar is a revision's close as text, "no bar" for none.
func orNoBar(c numeric.Scaled) string {
	if c == 0 {
		return "no bar"
	}
	return c.String()
}
