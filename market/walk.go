package market

import (
	"slices"
	"sync/atomic"
	"time"
)

// SessionSpan is one session of one day, clipped to the range WalkSessions walks.
type SessionSpan struct {
	From, To time.Time
	Session  Session
}

// CalendarDays counts the days WalkSessions has looked at: the work of what walks the calendar
// (the backfill's planner), which a test holds to a small multiple of the days it plans.
var CalendarDays atomic.Int64

// WalkSessions calls fn, in time order, for every session of sessions that overlaps [a, b),
// clipped to it, until fn returns false. It steps through each New York day's session bounds, so
// a year costs a few hundred calendar lookups rather than half a million minute lookups.
func WalkSessions(a, b time.Time, sessions []Session, fn func(SessionSpan) bool) {
	if !a.Before(b) || len(sessions) == 0 {
		return
	}
	// the overnight session dated day D opens at 20:00 the evening before, so look one day on
	first := NYDate(a)
	last := NYDate(b).AddDate(0, 0, 1)
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		CalendarDays.Add(1)
		info := Day(d.Year(), d.Month(), d.Day())
		if !info.Trading {
			continue
		}
		for _, s := range AllSessions { // in the order of the day
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
			if from.Before(to) && !fn(SessionSpan{from, to, s}) {
				return
			}
		}
	}
}

// NYDate is the New York calendar date of t, as a UTC midnight (a plain date to step with
// AddDate, immune to DST).
func NYDate(t time.Time) time.Time {
	y, m, d := t.In(NewYork).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// NYMidnight is the instant New York's date d (a UTC-midnight date, as NYDate gives) begins.
func NYMidnight(d time.Time) time.Time {
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, NewYork).UTC()
}

// TrimToSessions narrows [a, b) to [the first minute in sessions, the end of the last minute in
// sessions); ok is false when no minute of the sessions lies in it.
func TrimToSessions(a, b time.Time, sessions []Session) (from, to time.Time, ok bool) {
	WalkSessions(a, b, sessions, func(s SessionSpan) bool {
		if !ok {
			from, ok = s.From, true
		}
		to = s.To
		return true
	})
	return from, to, ok
}

// FirstSessionMinute is the start of the first minute of sessions in [a, b); ok is false when
// there is none. It stops at the first session it meets.
func FirstSessionMinute(a, b time.Time, sessions []Session) (first time.Time, ok bool) {
	WalkSessions(a, b, sessions, func(s SessionSpan) bool {
		first, ok = s.From, true
		return false
	})
	return first, ok
}

// HasSessionMinute reports whether [a, b) holds a minute of sessions.
func HasSessionMinute(a, b time.Time, sessions []Session) bool {
	_, ok := FirstSessionMinute(a, b, sessions)
	return ok
}

// IntersectSessions lists the sessions in both lists, in the order of the day.
func IntersectSessions(a, b []Session) []Session {
	var out []Session
	for _, s := range AllSessions {
		if slices.Contains(a, s) && slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
