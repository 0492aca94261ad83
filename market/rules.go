package market

import "time"

// The NYSE holiday rules (market-facts.md §1.1). They do two jobs: tests check the tables of
// calendar_data.go against them year by year, and they estimate years the tables do not cover.
// They know nothing of unscheduled closures (specialRows) — no rule could.

// civil is a calendar date with no time zone.
type civil struct {
	y int
	m time.Month
	d int
}

// civilOf is the calendar date of t in t's own location.
func civilOf(t time.Time) civil {
	y, m, d := t.Date()
	return civil{y, m, d}
}

// add moves by whole days, normalizing like time.Date (UTC, so no zone lookup is needed).
func (c civil) add(days int) civil {
	return civilOf(time.Date(c.y, c.m, c.d+days, 0, 0, 0, 0, time.UTC))
}

func (c civil) weekday() time.Weekday {
	return time.Date(c.y, c.m, c.d, 0, 0, 0, 0, time.UTC).Weekday()
}

func (c civil) String() string {
	return time.Date(c.y, c.m, c.d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// ruleCalendar is one year of closures (date → holiday name) and early closes by the rules.
type ruleCalendar struct {
	closures map[civil]string
	early    map[civil]bool
}

// rulesFor applies the standing NYSE rules to one year.
func rulesFor(year int) ruleCalendar {
	rc := ruleCalendar{closures: map[civil]string{}, early: map[civil]bool{}}
	fixed := func(m time.Month, d int, name string) {
		c := civil{year, m, d}
		// NYSE Rule 7.2: Saturday → the Friday before, Sunday → the Monday after; but a Friday
		// that closes a year (New Year's Day on a Saturday) stays open.
		switch c.weekday() {
		case time.Saturday:
			if m == time.January && d == 1 {
				return
			}
			c = c.add(-1)
		case time.Sunday:
			c = c.add(1)
		}
		rc.closures[c] = name
	}
	fixed(time.January, 1, NewYearsDay)
	rc.closures[nthWeekday(year, time.January, time.Monday, 3)] = MLKDay
	rc.closures[nthWeekday(year, time.February, time.Monday, 3)] = WashingtonsBirthday
	rc.closures[easter(year).add(-2)] = GoodFriday
	rc.closures[nthWeekday(year, time.May, time.Monday, -1)] = MemorialDay
	if year >= 2022 {
		fixed(time.June, 19, Juneteenth)
	}
	fixed(time.July, 4, IndependenceDay)
	rc.closures[nthWeekday(year, time.September, time.Monday, 1)] = LaborDay
	thanksgiving := nthWeekday(year, time.November, time.Thursday, 4)
	rc.closures[thanksgiving] = Thanksgiving
	fixed(time.December, 25, Christmas)

	// Early closes: July 3 and December 24 when they fall Monday–Thursday (on a Friday they are
	// either the observed holiday or, for July 3 with July 4 on a Saturday, a closure anyway),
	// and always the day after Thanksgiving.
	for _, c := range []civil{{year, time.July, 3}, {year, time.December, 24}} {
		if wd := c.weekday(); wd >= time.Monday && wd <= time.Thursday {
			rc.early[c] = true
		}
	}
	rc.early[thanksgiving.add(1)] = true
	return rc
}

// nthWeekday is the n-th given weekday of a month (n ≥ 1), or the last one for n = -1.
func nthWeekday(year int, m time.Month, wd time.Weekday, n int) civil {
	if n < 0 {
		last := civil{year, m + 1, 1}.add(-1)
		return last.add(-int((last.weekday() - wd + 7) % 7))
	}
	first := civil{year, m, 1}
	return first.add(int((wd-first.weekday()+7)%7) + 7*(n-1))
}

// easter is Easter Sunday of the Gregorian calendar (the anonymous Gregorian computus).
func easter(year int) civil {
	a := year % 19
	b, c := year/100, year%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return civil{year, time.Month(month), day}
}
