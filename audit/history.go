package audit

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/sources"
)

// History is what the history check reads of a price history.
type History interface {
	// Answered returns the stored answers of symbol in [from, to), in minute order.
	Answered(ctx context.Context, symbol string, from, to time.Time) ([]Stored, error)
}

// Stored is a stored answer as the history check reads it: its minute, and the sources whose
// request for it failed.
type Stored struct {
	Minute time.Time
	Failed []FailedQuote
}

// FailedQuote is a source whose request failed, and the failure's kind: "" when the store did
// not keep it (answers stored before kinds were).
type FailedQuote struct {
	Source string
	Kind   sources.ErrorKind
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

// CheckHistoryFailures reports, per symbol, source and kind of failure, the stored minutes whose
// quote from the source is a failed request: the backfill could not fetch them, and what to do
// about it depends on the kind (a refused key will fail again until it is fixed; an outage or a
// rate limit is worth another backfill of the window). stored holds each symbol's answers.
func CheckHistoryFailures(symbols []string, stored map[string][]Stored) []Finding {
	type key struct {
		source string
		kind   sources.ErrorKind
	}
	var out []Finding
	for _, sym := range symbols {
		answers := stored[sym]
		found := map[key]*Finding{}
		var order []key
		for _, s := range answers {
			for _, q := range s.Failed {
				k := key{q.Source, q.Kind}
				f, ok := found[k]
				if !ok {
					f = &Finding{Check: CheckHistoryName, Name: HistoryFailed, Severity: Warn, Source: q.Source, Symbol: sym,
						ErrorKind: q.Kind, Of: len(answers), First: s.Minute}
					found[k] = f
					order = append(order, k)
				}
				f.Count++
				f.Last = s.Minute
			}
		}
		for _, k := range order {
			f := found[k]
			head := fmt.Sprintf("%s: %d of %s have no quote from %s", sym, f.Count, plural(f.Of, "stored minute"), k.source)
			switch k.kind {
			case sources.KindUnauthorized:
				f.Message = head + ", which refused the key when they were backfilled (unauthorized): fix the key, then backfill them again"
			case sources.KindNoKey:
				f.Message = head + ", whose key was missing when they were backfilled (no_key): set it, then backfill them again"
			case sources.KindRateLimited:
				f.Message = head + ", which was rate-limiting when they were backfilled (rate_limited): backfill them again"
			case sources.KindUnavailable:
				f.Message = head + ", which was down when they were backfilled (unavailable): backfill them again"
			case "":
				f.Message = head + ": its request failed (of a kind not stored: they were backfilled before kinds were kept)"
			default:
				f.Message = head + fmt.Sprintf(": its request failed (%s)", k.kind)
			}
			out = append(out, *f)
		}
	}
	return out
}

func (a *Auditor) history(ctx context.Context, w Window) (CheckResult, []Finding) {
	c := CheckResult{Name: CheckHistoryName}
	if a.cfg.History == nil {
		c.State, c.Detail = CheckSkipped, "no history store (--db)"
		return c, nil
	}
	answered, stored := map[string][]time.Time{}, map[string][]Stored{}
	for _, sym := range a.symbols {
		ss, err := a.cfg.History.Answered(ctx, sym, w.From, w.To)
		if err != nil {
			c.State, c.Detail = CheckError, fmt.Sprintf("reading the history of %s: %s", sym, redact.Error(err))
			return c, nil
		}
		stored[sym] = ss
		for _, s := range ss {
			answered[sym] = append(answered[sym], s.Minute)
		}
	}
	sessions := a.cfg.Spec.Rules.Sessions
	c.Detail = fmt.Sprintf("%s × %s from %s", plural(len(a.symbols), "symbol"), plural(len(SessionMinutes(w.From, w.To, sessions)), "session minute"), w.From.Format(time.RFC3339))
	return c, append(CheckHistory(a.symbols, w.From, w.To, sessions, answered), CheckHistoryFailures(a.symbols, stored)...)
}
