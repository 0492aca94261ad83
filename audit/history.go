package audit

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
)

// History is what the history check reads of a price history.
type History interface {
	// Answered returns the minutes in [from, to) that have a stored answer for symbol.
	Answered(ctx context.Context, symbol string, from, to time.Time) ([]time.Time, error)
}

// SessionMinutes lists the minutes of the sessions that start in [from, to) and have closed by
// to, in order.
func SessionMinutes(from, to time.Time, sessions []market.Session) []time.Time {
	var out []time.Time
	m := from.UTC().Truncate(time.Minute)
	if m.Before(from) {
		m = m.Add(time.Minute)
	}
	for ; !m.Add(time.Minute).After(to); m = m.Add(time.Minute) {
		if market.InSessions(m, sessions) {
			out = append(out, m)
		}
	}
	return out
}

// CheckHistory reports, per symbol, the session minutes in [from, to) with no stored answer:
// holes `pricerig price --db` cannot answer from. answered holds each symbol's stored minutes.
func CheckHistory(symbols []string, from, to time.Time, sessions []market.Session, answered map[string][]time.Time) []Finding {
	want := SessionMinutes(from, to, sessions)
	if len(want) == 0 {
		return nil
	}
	var out []Finding
	for _, sym := range symbols {
		have := map[int64]bool{}
		for _, m := range answered[sym] {
			have[m.Unix()] = true
		}
		// gaps are runs of missing minutes, consecutive in the session calendar
		var gaps [][2]time.Time
		missing := 0
		prevMissing := false
		for _, m := range want {
			if have[m.Unix()] {
				prevMissing = false
				continue
			}
			missing++
			if prevMissing {
				gaps[len(gaps)-1][1] = m
			} else {
				gaps = append(gaps, [2]time.Time{m, m})
			}
			prevMissing = true
		}
		if missing == 0 {
			continue
		}
		var parts []string
		for i, g := range gaps {
			if i == 3 {
				parts = append(parts, fmt.Sprintf("and %d more", len(gaps)-3))
				break
			}
			if g[0].Equal(g[1]) {
				parts = append(parts, g[0].Format(time.RFC3339))
			} else {
				parts = append(parts, g[0].Format(time.RFC3339)+" – "+g[1].Format(time.RFC3339))
			}
		}
		out = append(out, Finding{
			Check: CheckHistoryName, Name: HistoryGap, Severity: Warn, Symbol: sym,
			Count: missing, Of: len(want), First: gaps[0][0], Last: gaps[len(gaps)-1][1],
			Message: fmt.Sprintf("%s: %d of %s in the window have no stored answer: %s",
				sym, missing, plural(len(want), "session minute"), strings.Join(parts, ", ")),
		})
	}
	return out
}

func (a *Auditor) history(ctx context.Context, w Window) (CheckResult, []Finding) {
	c := CheckResult{Name: CheckHistoryName}
	if a.cfg.History == nil {
		c.State, c.Detail = CheckSkipped, "no history store (--db)"
		return c, nil
	}
	answered := map[string][]time.Time{}
	for _, sym := range a.symbols {
		ms, err := a.cfg.History.Answered(ctx, sym, w.From, w.To)
		if err != nil {
			c.State, c.Detail = CheckError, fmt.Sprintf("reading the history of %s: %v", sym, err)
			return c, nil
		}
		answered[sym] = ms
	}
	sessions := a.cfg.Spec.Rules.Sessions
	c.Detail = fmt.Sprintf("%s × %s from %s", plural(len(a.symbols), "symbol"), plural(len(SessionMinutes(w.From, w.To, sessions)), "session minute"), w.From.Format(time.RFC3339))
	return c, CheckHistory(a.symbols, w.From, w.To, sessions, answered)
}
