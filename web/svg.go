package web

import (
	"fmt"
	"html"
	"html/template"
	"strings"

	"github.com/pricerig/pricerig/feeds"
)

// The page draws with inline SVG and presentation attributes only: no style attribute, so the
// page's Content-Security-Policy can forbid inline styles, and the report needs no asset.
const (
	colorDone = "#2e7d32"
	colorTodo = "#d0d7de"
	colorOK   = "#2e7d32"
	colorWarn = "#d98e04"
	colorBad  = "#c62828"
	// colorMuted is a status that is no failure (not asked after an early quorum, pending, not
	// covered).
	colorMuted = "#57606a"
)

func levelColor(level string) string {
	switch level {
	case "bad":
		return colorBad
	case "warn":
		return colorWarn
	}
	return colorOK
}

// stepBar draws ordered → drawn → committed → revealed → settled with the steps up to done
// filled; a task that ended short of settling has its next step red.
func stepBar(done int, short bool, state string) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="steps" width="104" height="12" viewBox="0 0 104 12" role="img" aria-label="%s">`, html.EscapeString(state))
	fmt.Fprintf(&b, `<title>%s</title>`, html.EscapeString(strings.Join(steps, " → ")+": "+state))
	for i := range steps {
		fill := colorTodo
		switch {
		case i <= done:
			fill = colorDone
		case short && i == done+1:
			fill = colorBad
		}
		fmt.Fprintf(&b, `<rect x="%d" y="2" width="19" height="8" rx="2" fill="%s"/>`, i*21, fill)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// distanceBar draws a distance against the tolerance: the bar's scale is one and a half
// tolerances, with a mark at the self-check share and one at the tolerance.
func distanceBar(centi int64, l limits) template.HTML {
	const width = 120
	full := int64(l.toleranceBps) * 150
	if full <= 0 {
		full = max(centi, 100)
	}
	w := min(centi, full) * width / full
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="dist" width="%d" height="12" viewBox="0 0 %d 12" role="img" aria-label="%s bps">`, width, width, feeds.FormatCentiBps(centi))
	fmt.Fprintf(&b, `<rect x="0" y="3" width="%d" height="6" fill="%s"/>`, width, colorTodo)
	fmt.Fprintf(&b, `<rect x="0" y="3" width="%d" height="6" fill="%s"/>`, w, levelColor(l.level(centi)))
	if l.toleranceBps > 0 {
		share := int64(l.toleranceBps) * int64(l.sharePercent) * width / full
		tol := int64(l.toleranceBps) * 100 * width / full
		fmt.Fprintf(&b, `<rect x="%d" y="0" width="1" height="12" fill="%s"/>`, share, colorWarn)
		fmt.Fprintf(&b, `<rect x="%d" y="0" width="1" height="12" fill="%s"/>`, tol, colorBad)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// sourceChart draws one minute's sources: a row per source, its distance to the answer as a bar
// (scaled to the farthest source, and at least to the tolerance), a failed or dropped source in
// red with its status instead.
func sourceChart(srcs []SourceView, l limits) template.HTML {
	const (
		row    = 16
		nameW  = 96
		barW   = 170
		width  = nameW + barW + 74
		barTop = 4
	)
	full := int64(l.toleranceBps) * 100
	for _, s := range srcs {
		full = max(full, s.centi)
	}
	if full <= 0 {
		full = 100
	}
	height := max(len(srcs), 1) * row
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="distance of each source to the answer">`, width, height, width, height)
	for i, s := range srcs {
		y := i * row
		fmt.Fprintf(&b, `<text x="0" y="%d" font-size="11" fill="#24292f">%s</text>`, y+12, html.EscapeString(clip(s.Name, 15)))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="8" fill="#eef1f4"/>`, nameW, y+barTop, barW)
		if s.Distance != "" {
			color := levelColor(l.level(s.centi))
			if s.Bad {
				color = colorBad
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="8" fill="%s"/>`, nameW, y+barTop, max(s.centi*barW/full, 1), color)
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" fill="#24292f">%s bps</text>`, nameW+barW+4, y+12, s.Distance)
		} else {
			color := colorMuted
			if s.Bad {
				color = colorBad
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" fill="%s">%s</text>`, nameW+4, y+12, color, html.EscapeString(s.Status))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
