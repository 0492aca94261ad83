package audit

import (
	"fmt"
	"slices"
	"time"

	"github.com/pricerig/pricerig/market"
)

// Defaults of the window.
const (
	DefaultMinutes = 5
	// DefaultMaxMinutes caps the minutes a --since window audits: each minute is one reconcile
	// per symbol, and an hour of minutes says nothing five do not.
	DefaultMaxMinutes = 60
	// searchBack bounds how far back the last session minutes are looked for: longer than any
	// closure the calendar knows (a holiday weekend is four days).
	searchBack = 14 * 24 * time.Hour
)

// Window is what one run audits: the sources at Minutes, the journal and the history over
// [From, To).
type Window struct {
	From, To time.Time
	// Minutes are closed minutes inside the spec's sessions, oldest first.
	Minutes []time.Time
	// Note explains a window that is not what was asked: a --since window with no session
	// minute, or more minutes than the cap.
	Note string
}

// SelectWindow picks the minutes a run audits at now. With since > 0 they are the session
// minutes that closed in [now − since, now), the latest maxMinutes of them, and the window is
// that span; when it holds no session minute (a weekend) the sources are audited at the last
// closed session minute before it, so a source check always runs. Otherwise they are the last
// n closed session minutes (on a Saturday, Friday's last), and the window reaches back to the
// oldest of them.
func SelectWindow(now time.Time, sessions []market.Session, n int, since time.Duration, maxMinutes int) Window {
	now = now.UTC()
	if n <= 0 {
		n = DefaultMinutes
	}
	if maxMinutes <= 0 {
		maxMinutes = DefaultMaxMinutes
	}
	w := Window{To: now}
	// A minute m has closed when m + 1m ≤ now: PrevSessionMinute looks strictly before its
	// argument, so start from the minute now is in.
	cursor := now.Truncate(time.Minute)
	if since > 0 {
		w.From = now.Add(-since)
		// the window's minutes are counted a day at a time; only the latest maxMinutes are walked
		total := market.SessionMinutes(w.From, cursor, sessions)
		for len(w.Minutes) < maxMinutes {
			m, ok := market.PrevSessionMinute(cursor, sessions, cursor.Sub(w.From))
			if !ok {
				break
			}
			m = m.UTC()
			w.Minutes = append(w.Minutes, m)
			cursor = m
		}
		if total > len(w.Minutes) {
			w.Note = fmt.Sprintf("the window holds %d session minutes; the sources were audited at the latest %d", total, len(w.Minutes))
		}
		if len(w.Minutes) == 0 {
			if m, ok := market.PrevSessionMinute(now.Truncate(time.Minute), sessions, searchBack); ok {
				w.Minutes = []time.Time{m.UTC()}
				w.Note = fmt.Sprintf("no session minute closed in the window; the sources were audited at the last one, %s", m.Format(time.RFC3339))
			}
		}
		slices.Reverse(w.Minutes)
		return w
	}
	for len(w.Minutes) < n {
		m, ok := market.PrevSessionMinute(cursor, sessions, searchBack)
		if !ok {
			break
		}
		m = m.UTC()
		w.Minutes = append(w.Minutes, m)
		cursor = m
	}
	slices.Reverse(w.Minutes)
	w.From = now
	if len(w.Minutes) > 0 {
		w.From = w.Minutes[0]
	}
	return w
}
