package web

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/sources"
)

// SymbolView is one symbol of an audit's HTML report: one screen however long the window (issue
// 37 item 5: 30 minutes drew 87 cards, 279 KB). A chart of every source's distance over the
// window, one summary table, and the minutes as one row each inside a collapsed <details>.
type SymbolView struct {
	Symbol  string
	Chart   template.HTML // "" when no source had a distance to draw
	Legend  []LegendEntry
	Sources []string // the sources' names, the minute table's columns
	Summary []SummaryRow
	Minutes []MinuteRow // newest first
}

// LegendEntry names the colour of one source's line.
type LegendEntry struct{ Name, Color string }

// SummaryRow is one source over the window for one symbol.
type SummaryRow struct {
	Source  string
	Status  string // the worst status seen
	Bad     bool
	Priced  int // minutes with a price
	Waiting int // minutes skipped: not final yet, not covered, not asked
	Failed  int
	Median  string // bps, "" without a price
	Max     string
	Latency string
}

// MinuteRow is one audited minute: a cell per source, and what was not final yet.
type MinuteRow struct {
	Minute   string
	Cells    []MinuteCell
	NotFinal []string // sources whose bar was not final when the audit read the minute
}

// MinuteCell is one source at one minute: its distance, or its status when it has none.
type MinuteCell struct {
	Text  string
	Title string // the reason, for a source without a price
	Bad   bool
}

// seriesColors tell the sources' lines apart; none is red, which marks the tolerance.
var seriesColors = []string{"#0969da", "#8250df", "#1a7f37", "#bf8700", "#cf222e", "#57606a", "#e16f24", "#0a3069"}

// auditSymbolViews groups an audit's observations by symbol, in the report's order.
func auditSymbolViews(rep audit.Report, l limits) []SymbolView {
	var out []SymbolView
	index := map[string]int{}
	obs := map[string][]audit.Observation{}
	for _, o := range rep.Sources.Observations {
		if _, ok := index[o.Symbol]; !ok {
			index[o.Symbol] = len(out)
			out = append(out, SymbolView{Symbol: o.Symbol})
		}
		obs[o.Symbol] = append(obs[o.Symbol], o)
	}
	for i := range out {
		out[i] = symbolView(out[i].Symbol, obs[out[i].Symbol], rep.Sources.Summaries, l)
	}
	return out
}

func symbolView(symbol string, obs []audit.Observation, summaries []audit.Summary, l limits) SymbolView {
	v := SymbolView{Symbol: symbol}
	var minutes []time.Time
	at := map[time.Time]map[string]audit.Observation{}
	for _, o := range obs {
		if !slices.Contains(v.Sources, o.Source) {
			v.Sources = append(v.Sources, o.Source)
		}
		if _, ok := at[o.Minute]; !ok {
			at[o.Minute] = map[string]audit.Observation{}
			minutes = append(minutes, o.Minute)
		}
		at[o.Minute][o.Source] = o
	}
	slices.SortFunc(minutes, func(a, b time.Time) int { return a.Compare(b) })

	for _, s := range summaries {
		if s.Symbol != symbol {
			continue
		}
		r := SummaryRow{Source: s.Source, Status: string(s.Status), Bad: s.Status.Failed() || s.Status == audit.StatusOutlier,
			Waiting: s.Statuses[audit.StatusSkipped]}
		for st, n := range s.Statuses {
			switch {
			case st == audit.StatusOK || st == audit.StatusStale || st == audit.StatusOutlier:
				r.Priced += n
			case st.Failed() || st == audit.StatusNoData:
				r.Failed += n
			}
		}
		if s.MedianDistanceCentiBps >= 0 {
			r.Median = feeds.FormatCentiBps(s.MedianDistanceCentiBps)
		}
		if s.MaxDistanceCentiBps >= 0 {
			r.Max = feeds.FormatCentiBps(s.MaxDistanceCentiBps)
		}
		if s.Latency > 0 {
			r.Latency = fmt.Sprintf("%d ms", s.Latency.Milliseconds())
		}
		v.Summary = append(v.Summary, r)
	}

	for i := len(minutes) - 1; i >= 0; i-- {
		row := MinuteRow{Minute: minutes[i].UTC().Format("2006-01-02 15:04")}
		for _, src := range v.Sources {
			o, ok := at[minutes[i]][src]
			switch {
			case !ok:
				row.Cells = append(row.Cells, MinuteCell{Text: "—"})
			case o.DistanceCentiBps >= 0:
				row.Cells = append(row.Cells, MinuteCell{Text: feeds.FormatCentiBps(o.DistanceCentiBps), Bad: o.Status == audit.StatusOutlier})
			default:
				text := string(o.Status)
				if o.Kind == sources.KindNotFinal {
					text = "not final"
					row.NotFinal = append(row.NotFinal, src)
				}
				row.Cells = append(row.Cells, MinuteCell{Text: text, Title: redact.String(o.Err), Bad: o.Status.Failed()})
			}
		}
		v.Minutes = append(v.Minutes, row)
	}
	v.Chart, v.Legend = distanceOverTime(v.Sources, minutes, at, l)
	return v
}

// distanceOverTime draws each source's distance to the answer across the window, one line per
// source broken where it had no price, with the tolerance as a red line. Nothing is drawn when
// no source had a distance: an empty chart says less than the table.
func distanceOverTime(names []string, minutes []time.Time, at map[time.Time]map[string]audit.Observation, l limits) (template.HTML, []LegendEntry) {
	const (
		width, height = 1000, 180
		left, right   = 48, 8
		top, bottom   = 8, 20
	)
	full := int64(l.toleranceBps) * 100
	drawn := false
	for _, m := range minutes {
		for _, o := range at[m] {
			if o.DistanceCentiBps >= 0 {
				drawn = true
				full = max(full, o.DistanceCentiBps)
			}
		}
	}
	if !drawn || len(minutes) == 0 {
		return "", nil
	}
	if full <= 0 {
		full = 100 // every distance 0: a scale of 1 bp keeps the line at the bottom, readable
	}
	plotW, plotH := int64(width-left-right), int64(height-top-bottom)
	x := func(i int) int64 {
		if len(minutes) == 1 {
			return left + plotW/2
		}
		return left + int64(i)*plotW/int64(len(minutes)-1)
	}
	y := func(centi int64) int64 { return top + plotH - centi*plotH/full }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="timeline" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="distance of each source to the answer over the window">`, width, height, width, height)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#f6f8fa"/>`, left, top, plotW, plotH)
	fmt.Fprintf(&b, `<text x="0" y="%d" font-size="11" fill="#57606a">%s bps</text>`, top+10, feeds.FormatCentiBps(full))
	fmt.Fprintf(&b, `<text x="0" y="%d" font-size="11" fill="#57606a">0</text>`, top+plotH)
	if l.toleranceBps > 0 {
		ty := y(int64(l.toleranceBps) * 100)
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-dasharray="4 3"><title>tolerance %d bps</title></line>`, left, ty, left+plotW, ty, colorBad, l.toleranceBps)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" fill="#57606a">%s</text>`, left, height-4, minutes[0].UTC().Format("15:04"))
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" fill="#57606a" text-anchor="end">%s UTC</text>`, left+plotW, height-4, minutes[len(minutes)-1].UTC().Format("15:04"))
	var legend []LegendEntry
	for si, name := range names {
		color := seriesColors[si%len(seriesColors)]
		legend = append(legend, LegendEntry{Name: name, Color: color})
		var run [][2]int64
		flush := func() {
			switch len(run) {
			case 0:
			case 1: // a lone priced minute is a dot, not a line of no length
				fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="2" fill="%s"/>`, run[0][0], run[0][1], color)
			default:
				b.WriteString(`<polyline points="`)
				for i, p := range run {
					if i > 0 {
						b.WriteByte(' ')
					}
					fmt.Fprintf(&b, "%d,%d", p[0], p[1])
				}
				fmt.Fprintf(&b, `" fill="none" stroke="%s" stroke-width="1.5"/>`, color)
			}
			run = run[:0]
		}
		for i, m := range minutes {
			o, ok := at[m][name]
			if !ok || o.DistanceCentiBps < 0 {
				flush()
				continue
			}
			run = append(run, [2]int64{x(i), y(o.DistanceCentiBps)})
		}
		flush()
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()), legend
}
