package backfill

import (
	"time"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
)

// trimToSessions narrows [a, b) to [first minute in sessions, end of the last minute in
// sessions); ok is false when no minute of the sessions lies in it.
func trimToSessions(a, b time.Time, sessions []market.Session) (history.Span, bool) {
	from, to, ok := market.TrimToSessions(a, b, sessions)
	return history.Span{From: from, To: to}, ok
}

// sessionMinutes counts the minutes of sessions in [a, b): an upper bound on the bars one symbol
// can have there, which the planner uses to keep a batched request within one page.
func sessionMinutes(a, b time.Time, sessions []market.Session) int {
	n := 0
	market.WalkSessions(a, b, sessions, func(s market.SessionSpan) bool {
		n += int(s.To.Sub(s.From) / time.Minute)
		return true
	})
	return n
}

func ceilMinute(t time.Time) time.Time {
	m := t.Truncate(time.Minute)
	if m.Before(t) {
		m = m.Add(time.Minute)
	}
	return m
}
