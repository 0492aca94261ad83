package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/human"
	"github.com/pricerig/pricerig/sources"
)

// jsonReport is the one JSON object `pricerig audit --json` prints. Prices and distances are
// decimal text, never floats.
type jsonReport struct {
	At       time.Time     `json:"at"`
	Healthy  bool          `json:"healthy"`
	Exit     int           `json:"exit"`
	TookMS   int64         `json:"took_ms"`
	Window   jsonWindow    `json:"window"`
	Symbols  []string      `json:"symbols"`
	Checks   []CheckResult `json:"checks"`
	Findings []Finding     `json:"findings"`
	Sources  []jsonSummary `json:"sources"`
	Quotes   []jsonQuote   `json:"quotes"`
	Balances []jsonBalance `json:"balances,omitempty"`
}

type jsonWindow struct {
	From    time.Time   `json:"from"`
	To      time.Time   `json:"to"`
	Minutes []time.Time `json:"minutes"`
	Note    string      `json:"note,omitempty"`
}

type jsonSummary struct {
	Source            string         `json:"source"`
	Symbol            string         `json:"symbol"`
	Status            Status         `json:"status"`
	Up                *bool          `json:"up,omitempty"` // absent when never asked
	Statuses          map[Status]int `json:"statuses"`
	MaxDistanceBps    string         `json:"max_distance_bps,omitempty"`
	MedianDistanceBps string         `json:"median_distance_bps,omitempty"`
	LatencyMS         int64          `json:"latency_ms"`
}

type jsonQuote struct {
	Source      string    `json:"source"`
	Symbol      string    `json:"symbol"`
	Minute      time.Time `json:"minute"`
	Status      Status    `json:"status"`
	Price       string    `json:"price,omitempty"`
	Bar         time.Time `json:"bar_time,omitzero"`
	DistanceBps string    `json:"distance_bps,omitempty"`
	LatencyMS   int64     `json:"latency_ms"`
	Error       string    `json:"error,omitempty"`
	// ErrorKind is a failed request's kind (rate_limited, unauthorized, body_too_large…).
	ErrorKind sources.ErrorKind `json:"error_kind,omitempty"`
}

type jsonBalance struct {
	Address string `json:"address"`
	ETH     string `json:"eth"`
}

func distOrEmpty(c int64) string {
	if c < 0 {
		return ""
	}
	return feeds.FormatCentiBps(c)
}

// MarshalJSON writes the report as `pricerig audit --json` prints it.
func (r Report) MarshalJSON() ([]byte, error) {
	j := jsonReport{
		At: r.At, Healthy: r.Healthy(), Exit: r.ExitCode(), TookMS: r.Took.Milliseconds(),
		Window:   jsonWindow{From: r.Window.From, To: r.Window.To, Minutes: nonNil(r.Window.Minutes), Note: r.Window.Note},
		Symbols:  nonNil(r.Symbols),
		Checks:   nonNil(r.Checks),
		Findings: nonNil(r.Findings),
		Sources:  []jsonSummary{},
		Quotes:   []jsonQuote{},
	}
	for _, s := range r.Sources.Summaries {
		js := jsonSummary{
			Source: s.Source, Symbol: s.Symbol, Status: s.Status, Statuses: s.Statuses,
			MaxDistanceBps: distOrEmpty(s.MaxDistanceCentiBps), MedianDistanceBps: distOrEmpty(s.MedianDistanceCentiBps),
			LatencyMS: s.Latency.Milliseconds(),
		}
		if up, ok := s.Up(); ok {
			js.Up = &up
		}
		j.Sources = append(j.Sources, js)
	}
	for _, o := range r.Sources.Observations {
		q := jsonQuote{
			Source: o.Source, Symbol: o.Symbol, Minute: o.Minute, Status: o.Status, Bar: o.BarTime,
			DistanceBps: distOrEmpty(o.DistanceCentiBps), LatencyMS: o.Latency.Milliseconds(), Error: o.Err, ErrorKind: o.Kind,
		}
		if o.Price > 0 {
			q.Price = o.Price.String()
		}
		j.Quotes = append(j.Quotes, q)
	}
	for _, b := range r.Balances {
		j.Balances = append(j.Balances, jsonBalance{Address: b.Address.Hex(), ETH: FormatETH(b.Wei)})
	}
	return json.Marshal(j)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// writeReasons says in words why each source that was skipped, not final or failed at an
// audited minute was (the reason --json gives as a quote's error): one line per source, status
// and reason, with the symbols it held for, so the table's "skipped" is never left unexplained.
func writeReasons(b *strings.Builder, obs []Observation) {
	type key struct {
		source string
		status Status
		why    string
	}
	var order []key
	symbols := map[key][]string{}
	for _, o := range obs {
		if o.Err == "" || o.Price > 0 {
			continue
		}
		k := key{o.Source, o.Status, o.Err}
		if _, ok := symbols[k]; !ok {
			order = append(order, k)
		}
		if !slices.Contains(symbols[k], o.Symbol) {
			symbols[k] = append(symbols[k], o.Symbol)
		}
	}
	if len(order) == 0 {
		return
	}
	b.WriteString("\nwhy (sources without a price at an audited minute)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, k := range order {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", k.source, k.status, strings.Join(symbols[k], ","), k.why)
	}
	tw.Flush()
}

// WriteText writes the report for a person: the verdict, each check, the findings, and a table
// of every source's worst status and largest distance per symbol.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	verdict := "healthy"
	switch r.ExitCode() {
	case 1:
		verdict = plural(len(r.Findings), "finding")
	case 2:
		verdict = "could not run every check"
		if len(r.Findings) > 0 {
			verdict += ", " + plural(len(r.Findings), "finding")
		}
	}
	fmt.Fprintf(&b, "pricerig audit at %s: %s\n", r.At.Format(time.RFC3339), verdict)
	if n := len(r.Window.Minutes); n > 0 {
		fmt.Fprintf(&b, "window %s – %s; sources audited at %s (%s – %s) for %s\n",
			r.Window.From.Format(time.RFC3339), r.Window.To.Format(time.RFC3339), plural(n, "minute"),
			r.Window.Minutes[0].Format(time.RFC3339), r.Window.Minutes[n-1].Format(time.RFC3339), strings.Join(r.Symbols, ", "))
	}
	if r.Window.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", r.Window.Note)
	}

	b.WriteString("\nchecks\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, c := range r.Checks {
		state := string(c.State)
		if c.State == CheckFindings {
			state = plural(c.Findings, "finding")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Name, state, c.Detail)
	}
	tw.Flush()

	if len(r.Findings) > 0 {
		b.WriteString("\nfindings\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, f := range r.Findings {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Severity, f.Name, f.Message)
		}
		tw.Flush()
	}

	if len(r.Sources.Summaries) > 0 {
		b.WriteString("\nsources (worst status and largest distance to the answer, in bps, per symbol)\n")
		var names []string
		cells := map[[2]string]Summary{}
		latency := map[string]time.Duration{}
		for _, s := range r.Sources.Summaries {
			if !slices.Contains(names, s.Source) {
				names = append(names, s.Source)
			}
			cells[[2]string{s.Source, s.Symbol}] = s
			latency[s.Source] = max(latency[s.Source], s.Latency)
		}
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  source\t%s\tlatency\n", strings.Join(r.Symbols, "\t"))
		for _, n := range names {
			row := []string{n}
			for _, sym := range r.Symbols {
				s, ok := cells[[2]string{n, sym}]
				switch {
				case !ok:
					row = append(row, "-")
				case s.MaxDistanceCentiBps >= 0:
					row = append(row, fmt.Sprintf("%s %s", s.Status, feeds.FormatCentiBps(s.MaxDistanceCentiBps)))
				default:
					row = append(row, string(s.Status))
				}
			}
			lat := "-"
			if latency[n] > 0 {
				lat = human.Duration(latency[n])
			}
			fmt.Fprintf(tw, "  %s\t%s\n", strings.Join(row, "\t"), lat)
		}
		tw.Flush()
	}
	writeReasons(&b, r.Sources.Observations)
	if len(r.Balances) > 0 {
		b.WriteString("\nbalances\n")
		for _, bal := range r.Balances {
			fmt.Fprintf(&b, "  %s  %s ETH\n", bal.Address.Hex(), FormatETH(bal.Wei))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
