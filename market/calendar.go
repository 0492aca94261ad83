package market

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // America/New_York must load on bare CI images and scratch containers
)

// NewYork is the America/New_York location: every session boundary is New York wall-clock time.
var NewYork = mustLoad("America/New_York")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic("market: " + err.Error()) // cannot happen: tzdata is embedded
	}
	return loc
}

// Session boundaries in minutes after midnight ET. Every boundary is a whole minute (and, in UTC,
// too, since New York's offsets are whole hours), and none falls in 01:00–03:00 where DST
// switches, so wall-clock minutes compare safely.
const (
	preStart       = 4 * 60    // pre 04:00–09:30
	regularStart   = 9*60 + 30 // regular 09:30–16:00
	regularEnd     = 16 * 60
	earlyEnd       = 13 * 60 // regular ends 13:00 on early-close days
	postEnd        = 20 * 60 // post 16:00–20:00
	earlyPostEnd   = 17 * 60 // post ends 17:00 on early-close days
	overnightStart = 20 * 60 // overnight 20:00 → 04:00 the next day
)

// DayInfo describes one New York calendar date.
type DayInfo struct {
	Date       time.Time // midnight ET of the date
	Trading    bool      // the regular session runs
	Holiday    string    // the name of the weekday closure, "" if none (weekends have none)
	EarlyClose bool      // regular ends 13:00 ET and post 17:00 ET
	// Estimated is true for a date outside FirstTabulatedYear–LastTabulatedYear: its holidays
	// and early closes come from the standing NYSE rules (and the known unscheduled closures),
	// not from a published NYSE calendar.
	Estimated bool
	// Open and Close bound the regular session, PostEnd ends the post session; all in UTC and
	// zero when the day does not trade.
	Open, Close, PostEnd time.Time
}

// Day describes the New York date y-m-d. Out-of-range months and days normalize as in time.Date
// (2026-02-30 is 2026-03-02).
func Day(year int, month time.Month, day int) DayInfo {
	c := civilOf(time.Date(year, month, day, 0, 0, 0, 0, time.UTC))
	st := status(c)
	info := DayInfo{
		Date:       time.Date(c.y, c.m, c.d, 0, 0, 0, 0, NewYork),
		Trading:    st.trading,
		Holiday:    st.holiday,
		EarlyClose: st.early,
		Estimated:  st.estimated,
	}
	if st.trading {
		at := func(min int) time.Time { return time.Date(c.y, c.m, c.d, 0, min, 0, 0, NewYork).UTC() }
		info.Open = at(regularStart)
		info.Close = at(st.closeMin())
		info.PostEnd = at(st.postEndMin())
	}
	return info
}

// DayOf describes the New York date of the instant t.
func DayOf(t time.Time) DayInfo {
	y, m, d := t.In(NewYork).Date()
	return Day(y, m, d)
}

// Bounds is the UTC span [start, end) of session s that belongs to the day: for Overnight, the
// one that ends at 04:00 ET of the day (it starts 20:00 ET the evening before, and — like Blue
// Ocean ATS — is dated by the day it closes on). ok is false when the day does not trade.
func (d DayInfo) Bounds(s Session) (start, end time.Time, ok bool) {
	if !d.Trading {
		return time.Time{}, time.Time{}, false
	}
	y, m, dd := d.Date.Date()
	at := func(days, min int) time.Time { return time.Date(y, m, dd+days, 0, min, 0, 0, NewYork).UTC() }
	switch s {
	case Overnight:
		return at(-1, overnightStart), at(0, preStart), true
	case Pre:
		return at(0, preStart), d.Open, true
	case Regular:
		return d.Open, d.Close, true
	case Post:
		return d.Close, d.PostEnd, true
	}
	return time.Time{}, time.Time{}, false
}

// SessionAt tells which session the instant t falls in. ok is false when none runs: weekends,
// closures, the gap after an early close's post session, and the overnight session of a night
// whose next day does not trade (it runs on Sunday–Thursday nights, including the evening of a
// holiday that is followed by a trading day, and the night before an early close).
// The sessions are today's; the calendar does not know when a venue began to offer one (Blue
// Ocean's overnight session, for one, is younger than 2020): which sessions a source has is its
// Coverage's business.
func SessionAt(t time.Time) (s Session, ok bool) {
	_, _, s, ok = locate(t)
	return s, ok
}

// InSessions reports whether the minute starting at t (t is truncated to its minute) lies in one
// of the sessions. Every session boundary is a whole minute, so a minute lies wholly in one.
func InSessions(t time.Time, sessions []Session) bool {
	s, ok := SessionAt(t.Truncate(time.Minute))
	return ok && slices.Contains(sessions, s)
}

// PrevSessionMinute returns the latest minute start m < t (strictly) whose minute lies in one of
// the sessions, looking back no further than t-limit (m ≥ t-limit); ok is false if there is none.
// Note that for t inside a minute (10:00:30) that minute's own start (10:00) qualifies. It skips
// closed stretches in whole spans, so a long limit costs a few steps, not one per minute.
func PrevSessionMinute(t time.Time, sessions []Session, limit time.Duration) (time.Time, bool) {
	floor := t.Add(-limit)
	m := t.Truncate(time.Minute)
	if !m.Before(t) {
		m = m.Add(-time.Minute)
	}
	for !m.Before(floor) {
		start, _, s, ok := locate(m)
		if ok && slices.Contains(sessions, s) {
			return m, true
		}
		m = start.Add(-time.Minute) // the last minute of the span before
	}
	return time.Time{}, false
}

// SessionMinutes counts the minute starts m in [from, to) whose minute lies in one of the
// sessions: the minutes PrevSessionMinute would step through from to back to from, counted a day
// at a time from each day's session bounds (a 20-year window is some 7,300 days, not millions of
// minutes).
func SessionMinutes(from, to time.Time, sessions []Session) int {
	lo := from.Truncate(time.Minute)
	if lo.Before(from) {
		lo = lo.Add(time.Minute) // a minute starting before from is not in [from, to)
	}
	hi := to.Truncate(time.Minute)
	if to.After(hi) {
		hi = hi.Add(time.Minute) // the minute holding to starts before it
	}
	if !lo.Before(hi) {
		return 0
	}
	total := 0
	// An overnight session belongs to the day it ends on, so a window's last day can hold the
	// evening it starts in; one day past each end is enough.
	first, last := DayOf(lo).Date.AddDate(0, 0, -1), DayOf(hi).Date.AddDate(0, 0, 1)
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		day := Day(d.Date())
		for _, s := range sessions {
			start, end, ok := day.Bounds(s)
			if !ok {
				continue
			}
			start, end = Later(start, lo), Earlier(end, hi)
			if start.Before(end) {
				total += int(end.Sub(start) / time.Minute)
			}
		}
	}
	return total
}

// Later is the later of two instants (a when they are equal), Earlier the earlier: the bounds of
// two spans' overlap, used wherever spans are cut to one another.
func Later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Earlier is the earlier of two instants (a when they are equal).
func Earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// locate finds the span of New York wall-clock time holding t — a session, or a stretch with no
// session — and returns its start (UTC) and its session.
func locate(t time.Time) (start time.Time, date civil, s Session, ok bool) {
	lt := t.In(NewYork)
	y, mo, d := lt.Date()
	date = civil{y, mo, d}
	h, mi, _ := lt.Clock()
	min := h*60 + mi

	spanStart := 0
	switch {
	case min < preStart: // the tail of the overnight session dated today
		s, ok = Overnight, status(date).trading
	case min >= overnightStart: // the head of the overnight session dated tomorrow
		spanStart, s, ok = overnightStart, Overnight, status(date.add(1)).trading
	default:
		st := status(date)
		switch {
		case !st.trading:
			spanStart = preStart
		case min < regularStart:
			spanStart, s, ok = preStart, Pre, true
		case min < st.closeMin():
			spanStart, s, ok = regularStart, Regular, true
		case min < st.postEndMin():
			spanStart, s, ok = st.closeMin(), Post, true
		default: // after an early close's post session, until 20:00
			spanStart = st.postEndMin()
		}
	}
	if !ok {
		s = ""
	}
	start = time.Date(y, mo, d, 0, spanStart, 0, 0, NewYork)
	return start, date, s, ok
}

// dayStatus is what the calendar knows of one date.
type dayStatus struct {
	trading, early, estimated bool
	holiday                   string
}

func (st dayStatus) closeMin() int {
	if st.early {
		return earlyEnd
	}
	return regularEnd
}

func (st dayStatus) postEndMin() int {
	if st.early {
		return earlyPostEnd
	}
	return postEnd
}

func status(c civil) dayStatus {
	estimated := c.y < FirstTabulatedYear || c.y > LastTabulatedYear
	if name, ok := specials[c]; ok {
		return dayStatus{holiday: name, estimated: estimated}
	}
	if wd := c.weekday(); wd == time.Saturday || wd == time.Sunday {
		return dayStatus{estimated: estimated}
	}
	if !estimated {
		if name, ok := closures[c]; ok {
			return dayStatus{holiday: name}
		}
		return dayStatus{trading: true, early: earlyCloses[c]}
	}
	rc := estimatedYear(c.y)
	if name, ok := rc.closures[c]; ok {
		return dayStatus{holiday: name, estimated: true}
	}
	return dayStatus{trading: true, early: rc.early[c], estimated: true}
}

// The tables of calendar_data.go, indexed by date.
var (
	closures    = indexRows(closureRows)
	specials    = indexRows(specialRows)
	earlyCloses = func() map[civil]bool {
		idx := map[civil]bool{}
		for _, d := range earlyCloseRows {
			idx[mustCivil(d)] = true
		}
		return idx
	}()
)

func indexRows(rows []struct{ date, name string }) map[civil]string {
	idx := make(map[civil]string, len(rows))
	for _, r := range rows {
		idx[mustCivil(r.date)] = r.name
	}
	return idx
}

func mustCivil(s string) civil {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic("market: bad date in calendar table: " + s)
	}
	return civilOf(t)
}

// estimates caches rulesFor by year for dates outside the tables. Only plausible years are
// cached, so odd inputs (year 1, year 300000) cannot grow it without bound.
var estimates sync.Map // int → ruleCalendar

func estimatedYear(year int) ruleCalendar {
	if year < 1900 || year > 2200 {
		return rulesFor(year)
	}
	if rc, ok := estimates.Load(year); ok {
		return rc.(ruleCalendar)
	}
	rc, _ := estimates.LoadOrStore(year, rulesFor(year))
	return rc.(ruleCalendar)
}

// ParseSession reads a session name as sources.yaml spells it: "overnight", "pre", "regular" or
// "post".
func ParseSession(name string) (Session, error) {
	for _, s := range AllSessions {
		if string(s) == name {
			return s, nil
		}
	}
	return "", fmt.Errorf("unknown session %q (want one of %s)", name, sessionNames())
}

// ParseSessions reads a list of session names; an unknown or repeated name is an error.
func ParseSessions(names []string) ([]Session, error) {
	out := make([]Session, 0, len(names))
	for _, n := range names {
		s, err := ParseSession(n)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, s) {
			return nil, fmt.Errorf("session %q listed twice", n)
		}
		out = append(out, s)
	}
	return out, nil
}

func sessionNames() string {
	names := make([]string, len(AllSessions))
	for i, s := range AllSessions {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}
