package history

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/pricerig/pricerig/market"
)

// Span is a half-open stretch of time [From, To), UTC.
type Span struct{ From, To time.Time }

// Empty reports whether the span holds no instant.
func (s Span) Empty() bool { return !s.From.Before(s.To) }

// Duration is the span's length.
func (s Span) Duration() time.Duration { return s.To.Sub(s.From) }

// sessionSpan is one session of one day clipped to a range.
type sessionSpan struct {
	From, To time.Time
	Session  market.Session
}

// calendarDays counts the days walkSessions has looked at: the planner's work, which a test holds
// to a small multiple of the days planned.
var calendarDays atomic.Int64

// walkSessions calls fn, in time order, for every session of sessions that overlaps [a, b),
// clipped to it, until fn returns false. It steps through each New York day's session bounds, so
// a year costs a few hundred calendar lookups rather than half a million minute lookups.
func walkSessions(a, b time.Time, sessions []market.Session, fn func(sessionSpan) bool) {
	if !a.Before(b) || len(sessions) == 0 {
		return
	}
	// the overnight session dated day D opens at 20:00 the evening before, so look one day on
	first := nyDate(a)
	last := nyDate(b).AddDate(0, 0, 1)
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		calendarDays.Add(1)
		info := market.Day(d.Year(), d.Month(), d.Day())
		if !info.Trading {
			continue
		}
		for _, s := range market.AllSessions { // in the order of the day
			if !slices.Contains(sessions, s) {
				continue
			}
			from, to, _ := info.Bounds(s)
			if from.Before(a) {
				from = a
			}
			if to.After(b) {
				to = b
			}
			if from.Before(to) && !fn(sessionSpan{from, to, s}) {
				return
			}
		}
	}
}

// nyDate is the New York calendar date of t, as a UTC midnight (a plain date to step with
// AddDate, immune to DST).
func nyDate(t time.Time) time.Time {
	y, m, d := t.In(market.NewYork).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// nyMidnight is the instant New York's date d (a UTC-midnight date) begins.
func nyMidnight(d time.Time) time.Time {
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, market.NewYork).UTC()
}

// trimToSessions narrows [a, b) to [first minute in sessions, end of the last minute in
// sessions); ok is false when no minute of the sessions lies in it.
func trimToSessions(a, b time.Time, sessions []market.Session) (Span, bool) {
	var out Span
	found := false
	walkSessions(a, b, sessions, func(s sessionSpan) bool {
		if !found {
			out.From, found = s.From, true
		}
		out.To = s.To
		return true
	})
	return out, found
}

// firstSessionMinute is the start of the first minute of sessions in [a, b); ok is false when
// there is none. It stops at the first session it meets.
func firstSessionMinute(a, b time.Time, sessions []market.Session) (time.Time, bool) {
	var first time.Time
	found := false
	walkSessions(a, b, sessions, func(s sessionSpan) bool {
		first, found = s.From, true
		return false
	})
	return first, found
}

// sessionMinutes counts the minutes of sessions in [a, b): an upper bound on the bars one symbol
// can have there, which the planner uses to keep a batched request within one page.
func sessionMinutes(a, b time.Time, sessions []market.Session) int {
	n := 0
	walkSessions(a, b, sessions, func(s sessionSpan) bool {
		n += int(s.To.Sub(s.From) / time.Minute)
		return true
	})
	return n
}

// hasSessionMinute reports whether [a, b) holds a minute of sessions.
func hasSessionMinute(a, b time.Time, sessions []market.Session) bool {
	found := false
	walkSessions(a, b, sessions, func(sessionSpan) bool { found = true; return false })
	return found
}

// intersectSessions lists the sessions in both lists, in the order of the day.
func intersectSessions(a, b []market.Session) []market.Session {
	var out []market.Session
	for _, s := range market.AllSessions {
		if slices.Contains(a, s) && slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func ceilMinute(t time.Time) time.Time {
	m := t.Truncate(time.Minute)
	if m.Before(t) {
		m = m.Add(time.Minute)
	}
	return m
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
