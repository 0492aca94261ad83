package market

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// et is a New York wall-clock instant.
func et(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, NewYork)
}

func date(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func utc(t *testing.T, s string) time.Time {
	t.Helper()
	u, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func dayOf(t *testing.T, s string) DayInfo {
	t.Helper()
	d := date(t, s)
	return Day(d.Year(), d.Month(), d.Day())
}

// Full-day closures, transcribed from market-facts.md §1.2 (2023–2027 and the 2028 look-ahead)
// and from the NYSE calendars of 2020–2022.
var researchClosures = []struct{ date, name string }{
	{"2020-01-01", NewYearsDay}, {"2020-01-20", MLKDay}, {"2020-02-17", WashingtonsBirthday},
	{"2020-04-10", GoodFriday}, {"2020-05-25", MemorialDay}, {"2020-07-03", IndependenceDay},
	{"2020-09-07", LaborDay}, {"2020-11-26", Thanksgiving}, {"2020-12-25", Christmas},
	{"2021-01-01", NewYearsDay}, {"2021-01-18", MLKDay}, {"2021-02-15", WashingtonsBirthday},
	{"2021-04-02", GoodFriday}, {"2021-05-31", MemorialDay}, {"2021-07-05", IndependenceDay},
	{"2021-09-06", LaborDay}, {"2021-11-25", Thanksgiving}, {"2021-12-24", Christmas},
	{"2022-01-17", MLKDay}, {"2022-02-21", WashingtonsBirthday}, {"2022-04-15", GoodFriday},
	{"2022-05-30", MemorialDay}, {"2022-06-20", Juneteenth}, {"2022-07-04", IndependenceDay},
	{"2022-09-05", LaborDay}, {"2022-11-24", Thanksgiving}, {"2022-12-26", Christmas},
	{"2023-01-02", NewYearsDay}, {"2023-01-16", MLKDay}, {"2023-02-20", WashingtonsBirthday},
	{"2023-04-07", GoodFriday}, {"2023-05-29", MemorialDay}, {"2023-06-19", Juneteenth},
	{"2023-07-04", IndependenceDay}, {"2023-09-04", LaborDay}, {"2023-11-23", Thanksgiving},
	{"2023-12-25", Christmas},
	{"2024-01-01", NewYearsDay}, {"2024-01-15", MLKDay}, {"2024-02-19", WashingtonsBirthday},
	{"2024-03-29", GoodFriday}, {"2024-05-27", MemorialDay}, {"2024-06-19", Juneteenth},
	{"2024-07-04", IndependenceDay}, {"2024-09-02", LaborDay}, {"2024-11-28", Thanksgiving},
	{"2024-12-25", Christmas},
	{"2025-01-01", NewYearsDay}, {"2025-01-09", "Jimmy Carter national day of mourning"},
	{"2025-01-20", MLKDay}, {"2025-02-17", WashingtonsBirthday}, {"2025-04-18", GoodFriday},
	{"2025-05-26", MemorialDay}, {"2025-06-19", Juneteenth}, {"2025-07-04", IndependenceDay},
	{"2025-09-01", LaborDay}, {"2025-11-27", Thanksgiving}, {"2025-12-25", Christmas},
	{"2026-01-01", NewYearsDay}, {"2026-01-19", MLKDay}, {"2026-02-16", WashingtonsBirthday},
	{"2026-04-03", GoodFriday}, {"2026-05-25", MemorialDay}, {"2026-06-19", Juneteenth},
	{"2026-07-03", IndependenceDay}, {"2026-09-07", LaborDay}, {"2026-11-26", Thanksgiving},
	{"2026-12-25", Christmas},
	{"2027-01-01", NewYearsDay}, {"2027-01-18", MLKDay}, {"2027-02-15", WashingtonsBirthday},
	{"2027-03-26", GoodFriday}, {"2027-05-31", MemorialDay}, {"2027-06-18", Juneteenth},
	{"2027-07-05", IndependenceDay}, {"2027-09-06", LaborDay}, {"2027-11-25", Thanksgiving},
	{"2027-12-24", Christmas},
	{"2028-01-17", MLKDay}, {"2028-02-21", WashingtonsBirthday}, {"2028-04-14", GoodFriday},
	{"2028-05-29", MemorialDay}, {"2028-06-19", Juneteenth}, {"2028-07-04", IndependenceDay},
	{"2028-09-04", LaborDay}, {"2028-11-23", Thanksgiving}, {"2028-12-25", Christmas},
}

func TestClosures(t *testing.T) {
	for _, tc := range researchClosures {
		t.Run(tc.date, func(t *testing.T) {
			d := dayOf(t, tc.date)
			if d.Trading || d.Holiday != tc.name || d.EarlyClose || d.Estimated {
				t.Fatalf("Day = %+v, want a closure named %q", d, tc.name)
			}
			if !d.Open.IsZero() || !d.Close.IsZero() || !d.PostEnd.IsZero() {
				t.Errorf("closed day has session times: %+v", d)
			}
			if wd := d.Date.Weekday(); wd == time.Saturday || wd == time.Sunday {
				t.Errorf("closure on a %v", wd)
			}
			y, m, dd := d.Date.Date()
			for _, hm := range [][2]int{{0, 0}, {3, 59}, {4, 0}, {9, 30}, {12, 0}, {16, 0}, {19, 59}} {
				if s, ok := SessionAt(et(y, m, dd, hm[0], hm[1])); ok {
					t.Errorf("%02d:%02d ET: session %q on a closure", hm[0], hm[1], s)
				}
			}
			// No overnight session leads into a closure: the evening before is quiet.
			if s, ok := SessionAt(et(y, m, dd-1, 20, 0)); ok {
				t.Errorf("20:00 ET the evening before: session %q", s)
			}
			if _, _, ok := d.Bounds(Regular); ok {
				t.Error("Bounds(Regular) ok on a closure")
			}
		})
	}
}

// Early closes with their UTC close and post end from market-facts.md §1.2, plus 2020–2022.
var researchEarlyCloses = []struct{ date, closeUTC, postEndUTC string }{
	{"2020-11-27", "2020-11-27T18:00:00Z", "2020-11-27T22:00:00Z"},
	{"2020-12-24", "2020-12-24T18:00:00Z", "2020-12-24T22:00:00Z"},
	{"2021-11-26", "2021-11-26T18:00:00Z", "2021-11-26T22:00:00Z"},
	{"2022-11-25", "2022-11-25T18:00:00Z", "2022-11-25T22:00:00Z"},
	{"2023-07-03", "2023-07-03T17:00:00Z", "2023-07-03T21:00:00Z"},
	{"2023-11-24", "2023-11-24T18:00:00Z", "2023-11-24T22:00:00Z"},
	{"2024-07-03", "2024-07-03T17:00:00Z", "2024-07-03T21:00:00Z"},
	{"2024-11-29", "2024-11-29T18:00:00Z", "2024-11-29T22:00:00Z"},
	{"2024-12-24", "2024-12-24T18:00:00Z", "2024-12-24T22:00:00Z"},
	{"2025-07-03", "2025-07-03T17:00:00Z", "2025-07-03T21:00:00Z"},
	{"2025-11-28", "2025-11-28T18:00:00Z", "2025-11-28T22:00:00Z"},
	{"2025-12-24", "2025-12-24T18:00:00Z", "2025-12-24T22:00:00Z"},
	{"2026-11-27", "2026-11-27T18:00:00Z", "2026-11-27T22:00:00Z"},
	{"2026-12-24", "2026-12-24T18:00:00Z", "2026-12-24T22:00:00Z"},
	{"2027-11-26", "2027-11-26T18:00:00Z", "2027-11-26T22:00:00Z"},
	{"2028-07-03", "2028-07-03T17:00:00Z", "2028-07-03T21:00:00Z"},
	{"2028-11-24", "2028-11-24T18:00:00Z", "2028-11-24T22:00:00Z"},
}

func TestEarlyCloses(t *testing.T) {
	for _, tc := range researchEarlyCloses {
		t.Run(tc.date, func(t *testing.T) {
			d := dayOf(t, tc.date)
			closeAt, postEnd := utc(t, tc.closeUTC), utc(t, tc.postEndUTC)
			if !d.Trading || !d.EarlyClose || d.Holiday != "" {
				t.Fatalf("Day = %+v, want an early close", d)
			}
			if !d.Close.Equal(closeAt) || !d.PostEnd.Equal(postEnd) || d.Close.Location() != time.UTC {
				t.Errorf("Close, PostEnd = %v, %v; want %v, %v", d.Close, d.PostEnd, closeAt, postEnd)
			}
			if got := d.Close.Sub(d.Open); got != 3*time.Hour+30*time.Minute {
				t.Errorf("regular session lasts %v", got)
			}
			checks := []struct {
				at   time.Time
				want Session
			}{
				{closeAt.Add(-time.Minute), Regular},
				{closeAt, Post},
				{postEnd.Add(-time.Minute), Post},
				{postEnd, ""},
				{d.Date.Add(17*time.Hour + 30*time.Minute), ""}, // when post would run on a full day
				{d.Date.Add(19*time.Hour + 59*time.Minute), ""},
			}
			for _, c := range checks {
				if s, ok := SessionAt(c.at); s != c.want || ok != (c.want != "") {
					t.Errorf("SessionAt(%v) = %q, %v; want %q", c.at, s, ok, c.want)
				}
			}
		})
	}
}

// Trading days that a wrong rule would close or shorten.
func TestFullTradingDays(t *testing.T) {
	for _, tc := range []struct{ date, openUTC, closeUTC, why string }{
		{"2027-12-31", "2027-12-31T14:30:00Z", "2027-12-31T21:00:00Z", "New Year's Day 2028 on a Saturday is not observed"},
		{"2021-12-31", "2021-12-31T14:30:00Z", "2021-12-31T21:00:00Z", "New Year's Day 2022 on a Saturday is not observed"},
		{"2026-07-02", "2026-07-02T13:30:00Z", "2026-07-02T20:00:00Z", "July 3 is the observed holiday; no early close"},
		{"2020-07-02", "2020-07-02T13:30:00Z", "2020-07-02T20:00:00Z", "July 3 is the observed holiday; no early close"},
		{"2021-07-02", "2021-07-02T13:30:00Z", "2021-07-02T20:00:00Z", "July 3 is a Saturday"},
		{"2027-07-02", "2027-07-02T13:30:00Z", "2027-07-02T20:00:00Z", "July 3 is a Saturday"},
		{"2027-12-23", "2027-12-23T14:30:00Z", "2027-12-23T21:00:00Z", "Christmas observed on Dec 24"},
		{"2021-12-23", "2021-12-23T14:30:00Z", "2021-12-23T21:00:00Z", "Christmas observed on Dec 24"},
		{"2022-12-23", "2022-12-23T14:30:00Z", "2022-12-23T21:00:00Z", "Dec 24 is a Saturday"},
		{"2021-06-18", "2021-06-18T13:30:00Z", "2021-06-18T20:00:00Z", "Juneteenth is a holiday only from 2022"},
		{"2025-01-08", "2025-01-08T14:30:00Z", "2025-01-08T21:00:00Z", "the day before the Carter closure"},
		{"2025-01-10", "2025-01-10T14:30:00Z", "2025-01-10T21:00:00Z", "the day after the Carter closure"},
		{"2025-11-26", "2025-11-26T14:30:00Z", "2025-11-26T21:00:00Z", "the day before Thanksgiving"},
		{"2026-12-31", "2026-12-31T14:30:00Z", "2026-12-31T21:00:00Z", "New Year's Eve"},
	} {
		t.Run(tc.date, func(t *testing.T) {
			d := dayOf(t, tc.date)
			if !d.Trading || d.EarlyClose || d.Holiday != "" {
				t.Fatalf("Day = %+v, want a full trading day (%s)", d, tc.why)
			}
			if !d.Open.Equal(utc(t, tc.openUTC)) || !d.Close.Equal(utc(t, tc.closeUTC)) {
				t.Errorf("Open, Close = %v, %v; want %s, %s", d.Open, d.Close, tc.openUTC, tc.closeUTC)
			}
			if got := d.PostEnd.Sub(d.Close); got != 4*time.Hour {
				t.Errorf("post lasts %v", got)
			}
		})
	}
}

// DST switch instants from market-facts.md §1.3: the Monday after each switch opens an hour
// apart in UTC from the Friday before it.
func TestDST(t *testing.T) {
	for _, tc := range []struct{ edt, est string }{
		{"2023-03-12T07:00:00Z", "2023-11-05T06:00:00Z"},
		{"2024-03-10T07:00:00Z", "2024-11-03T06:00:00Z"},
		{"2025-03-09T07:00:00Z", "2025-11-02T06:00:00Z"},
		{"2026-03-08T07:00:00Z", "2026-11-01T06:00:00Z"},
		{"2027-03-14T07:00:00Z", "2027-11-07T06:00:00Z"},
		{"2028-03-12T07:00:00Z", "2028-11-05T06:00:00Z"},
	} {
		edt, est := utc(t, tc.edt), utc(t, tc.est)
		t.Run(tc.edt[:4], func(t *testing.T) {
			for _, sw := range []struct {
				at             time.Time
				before, after  int // UTC offsets in hours
				friOpen, monOp int // UTC hour of 09:30 ET (minute 30) on the Friday before and Monday after
			}{
				{edt, -5, -4, 14, 13},
				{est, -4, -5, 13, 14},
			} {
				if _, off := sw.at.Add(-time.Second).In(NewYork).Zone(); off != sw.before*3600 {
					t.Errorf("offset just before %v = %d s", sw.at, off)
				}
				if _, off := sw.at.In(NewYork).Zone(); off != sw.after*3600 {
					t.Errorf("offset at %v = %d s", sw.at, off)
				}
				sunday := sw.at.Truncate(24 * time.Hour)
				if sunday.Weekday() != time.Sunday {
					t.Fatalf("switch %v is not on a Sunday", sw.at)
				}
				monday, friday := sunday.AddDate(0, 0, 1), sunday.AddDate(0, 0, -2)
				mon, fri := DayOf(monday.Add(12*time.Hour)), DayOf(friday.Add(12*time.Hour))
				wantMon := monday.Add(time.Duration(sw.monOp)*time.Hour + 30*time.Minute)
				wantFri := friday.Add(time.Duration(sw.friOpen)*time.Hour + 30*time.Minute)
				if !mon.Open.Equal(wantMon) || !fri.Open.Equal(wantFri) {
					t.Errorf("opens: Friday %v (want %v), Monday %v (want %v)", fri.Open, wantFri, mon.Open, wantMon)
				}
				// Sunday 20:00 ET opens the week's overnight session: 20:00 ET = 20 − offset UTC.
				weekOpen := sunday.Add(time.Duration(20-sw.after) * time.Hour)
				if start, _, ok := mon.Bounds(Overnight); !ok || !start.Equal(weekOpen) {
					t.Errorf("Monday's overnight starts %v, want %v", start, weekOpen)
				}
				if s, ok := SessionAt(weekOpen); !ok || s != Overnight {
					t.Errorf("SessionAt(%v) = %q, want overnight", weekOpen, s)
				}
				if s, ok := SessionAt(weekOpen.Add(-time.Minute)); ok {
					t.Errorf("SessionAt(%v) = %q before the week opens", weekOpen.Add(-time.Minute), s)
				}
				// Pre opens at 04:00 ET on the Monday.
				pre := monday.Add(time.Duration(4-sw.after) * time.Hour)
				if s, _ := SessionAt(pre); s != Pre {
					t.Errorf("SessionAt(%v) = %q, want pre", pre, s)
				}
				if s, _ := SessionAt(pre.Add(-time.Minute)); s != Overnight {
					t.Errorf("SessionAt(%v) = %q, want overnight", pre.Add(-time.Minute), s)
				}
			}
		})
	}
}

func TestSessionAt(t *testing.T) {
	const none Session = ""
	for _, tc := range []struct {
		at   time.Time
		want Session
		why  string
	}{
		{et(2025, 6, 16, 3, 59), Overnight, "Monday before pre"},
		{et(2025, 6, 16, 4, 0), Pre, "pre opens"},
		{et(2025, 6, 16, 9, 29), Pre, "last pre minute"},
		{et(2025, 6, 16, 9, 30), Regular, "open"},
		{et(2025, 6, 16, 15, 59), Regular, "last regular minute"},
		{et(2025, 6, 16, 16, 0), Post, "close"},
		{et(2025, 6, 16, 19, 59), Post, "last post minute"},
		{et(2025, 6, 16, 20, 0), Overnight, "Monday night"},
		{et(2025, 6, 16, 23, 59), Overnight, "Monday night before midnight"},
		{et(2025, 6, 17, 0, 0), Overnight, "midnight"},

		{et(2025, 6, 13, 19, 59), Post, "Friday's last minute"},
		{et(2025, 6, 13, 20, 0), none, "Friday night: no overnight"},
		{et(2025, 6, 14, 0, 0), none, "Saturday"},
		{et(2025, 6, 14, 12, 0), none, "Saturday"},
		{et(2025, 6, 14, 20, 0), none, "Saturday night"},
		{et(2025, 6, 15, 4, 0), none, "Sunday morning"},
		{et(2025, 6, 15, 19, 59), none, "Sunday before the week opens"},
		{et(2025, 6, 15, 20, 0), Overnight, "Sunday 20:00 opens the week"},

		{et(2025, 11, 26, 19, 59), Post, "Wednesday before Thanksgiving"},
		{et(2025, 11, 26, 20, 0), none, "Wednesday night before Thanksgiving"},
		{et(2025, 11, 27, 3, 0), none, "Thanksgiving small hours"},
		{et(2025, 11, 27, 20, 0), Overnight, "Thanksgiving evening, before the early close"},
		{et(2025, 11, 28, 3, 59), Overnight, "Black Friday small hours"},
		{et(2025, 11, 28, 4, 0), Pre, "Black Friday pre"},
		{et(2025, 11, 28, 12, 59), Regular, "Black Friday last regular minute"},
		{et(2025, 11, 28, 13, 0), Post, "Black Friday post"},
		{et(2025, 11, 28, 16, 59), Post, "Black Friday last post minute"},
		{et(2025, 11, 28, 17, 0), none, "after the early close's post"},
		{et(2025, 11, 28, 20, 0), none, "Friday night"},

		{et(2025, 1, 8, 20, 0), none, "night before the Carter closure"},
		{et(2025, 1, 9, 12, 0), none, "Carter closure"},
		{et(2025, 1, 9, 20, 0), Overnight, "evening of the closure, before a trading day"},
		{et(2025, 1, 19, 20, 0), none, "Sunday night before MLK Day"},
		{et(2025, 1, 20, 20, 0), Overnight, "MLK Day evening"},
		{et(2026, 7, 2, 19, 59), Post, "Thursday before the observed July 3"},
		{et(2026, 7, 2, 20, 0), none, "night before the observed July 3"},
		{et(2026, 7, 5, 20, 0), Overnight, "Sunday after July 4th"},
		{et(2025, 12, 23, 20, 0), Overnight, "night before the Christmas Eve early close"},
		{et(2025, 12, 24, 20, 0), none, "Christmas Eve night"},
		{et(2025, 12, 25, 20, 0), Overnight, "Christmas evening, Friday trades"},
		{et(2027, 12, 30, 20, 0), Overnight, "night before Dec 31 2027, a trading day"},
		{et(2027, 12, 31, 20, 0), none, "New Year's Eve 2027 night: Saturday next"},
		{et(2021, 12, 23, 20, 0), none, "night before Christmas observed 2021"},
		{et(2022, 6, 17, 16, 0), Post, "Friday before Juneteenth observed 2022"},
		{et(2022, 6, 19, 20, 0), none, "Sunday night before Juneteenth observed 2022"},
		{et(2022, 6, 20, 20, 0), Overnight, "Juneteenth observed 2022 evening"},
	} {
		s, ok := SessionAt(tc.at)
		if s != tc.want || ok != (tc.want != none) {
			t.Errorf("SessionAt(%v) = %q, %v; want %q (%s)", tc.at, s, ok, tc.want, tc.why)
		}
		// The UTC form of the instant reads the same.
		if s2, _ := SessionAt(tc.at.UTC()); s2 != s {
			t.Errorf("SessionAt(%v) in UTC = %q, in ET %q", tc.at, s2, s)
		}
	}
}

// The tables agree with the NYSE rules in every tabulated year; the only difference is the
// unscheduled Carter closure.
func TestTablesMatchRules(t *testing.T) {
	for year := FirstTabulatedYear; year <= LastTabulatedYear; year++ {
		rc := rulesFor(year)
		for c, name := range closures {
			if c.y == year && rc.closures[c] != name {
				t.Errorf("table closes %v (%s); rules say %q", c, name, rc.closures[c])
			}
		}
		for c, name := range rc.closures {
			if closures[c] != name {
				t.Errorf("rules close %v (%s); table says %q", c, name, closures[c])
			}
		}
		for c := range earlyCloses {
			if c.y == year && !rc.early[c] {
				t.Errorf("table closes early on %v; rules do not", c)
			}
		}
		for c := range rc.early {
			if !earlyCloses[c] {
				t.Errorf("rules close early on %v; table does not", c)
			}
		}
	}
	var inRange []string
	for c := range specials {
		if c.y >= FirstTabulatedYear && c.y <= LastTabulatedYear {
			inRange = append(inRange, c.String())
		}
	}
	if !slices.Equal(inRange, []string{"2025-01-09"}) {
		t.Errorf("special closures 2020–2028 = %v, want only 2025-01-09", inRange)
	}
}

func TestTableRows(t *testing.T) {
	check := func(kind, d string, seen map[string]bool) {
		c := mustCivil(d)
		if c.String() != d {
			t.Errorf("%s %s reads back as %v", kind, d, c)
		}
		if wd := c.weekday(); wd == time.Saturday || wd == time.Sunday {
			t.Errorf("%s %s is a %v", kind, d, wd)
		}
		if seen[d] {
			t.Errorf("%s %s listed twice", kind, d)
		}
		seen[d] = true
	}
	seen := map[string]bool{}
	for _, r := range closureRows {
		check("closure", r.date, seen)
		if y := mustCivil(r.date).y; y < FirstTabulatedYear || y > LastTabulatedYear {
			t.Errorf("closure %s outside the tabulated years", r.date)
		}
	}
	for _, r := range specialRows {
		check("special closure", r.date, seen)
	}
	for _, d := range earlyCloseRows {
		check("early close", d, seen) // also catches a day both closed and early
	}
	if len(closureRows) != len(researchClosures)-1 || len(earlyCloseRows) != len(researchEarlyCloses) {
		t.Errorf("tables have %d closures and %d early closes; the research lists %d (one special) and %d",
			len(closureRows), len(earlyCloseRows), len(researchClosures), len(researchEarlyCloses))
	}
}

// Outside the tables, days are estimated from the rules plus the known unscheduled closures.
func TestEstimatedYears(t *testing.T) {
	for _, tc := range []struct {
		date, holiday string
		early         bool
	}{
		{"2019-01-01", NewYearsDay, false},
		{"2019-04-19", GoodFriday, false},
		{"2019-07-03", "", true},
		{"2019-07-04", IndependenceDay, false},
		{"2019-11-29", "", true},
		{"2019-12-24", "", true},
		{"2019-06-19", "", false}, // no Juneteenth before 2022
		{"2018-12-05", "George H. W. Bush national day of mourning", false},
		{"2012-10-29", "Hurricane Sandy", false},
		{"2029-01-01", NewYearsDay, false},
		{"2029-03-30", GoodFriday, false},
		{"2029-07-03", "", true},
		{"2029-11-23", "", true},
		{"2029-12-24", "", true},
		{"2033-12-30", "", false}, // New Year's Day 2034 is a Sunday → Monday Jan 2
		{"2034-01-02", NewYearsDay, false},
	} {
		d := dayOf(t, tc.date)
		if !d.Estimated || d.Holiday != tc.holiday || d.Trading != (tc.holiday == "") || d.EarlyClose != tc.early {
			t.Errorf("Day(%s) = %+v; want estimated, holiday %q, early %v", tc.date, d, tc.holiday, tc.early)
		}
	}
	if d := Day(2020, 1, 2); d.Estimated {
		t.Errorf("Day(2020-01-02) estimated")
	}
	if d := Day(2028, 12, 29); d.Estimated || !d.Trading {
		t.Errorf("Day(2028-12-29) = %+v", d)
	}
}

// Any instant gets an answer without a panic, however far from the tables.
func TestExtremeInstants(t *testing.T) {
	for _, at := range []time.Time{{}, time.Unix(0, 0), time.Date(-500, 3, 1, 12, 0, 0, 0, time.UTC),
		time.Date(300000, 6, 5, 15, 0, 0, 0, time.UTC), time.Date(2200, 12, 31, 23, 59, 0, 0, time.UTC)} {
		SessionAt(at)
		if d := DayOf(at); !d.Estimated {
			t.Errorf("DayOf(%v) not estimated", at)
		}
		PrevSessionMinute(at, AllSessions, 200*time.Hour)
	}
}

func TestEaster(t *testing.T) {
	// Western Easter Sundays, from published tables.
	for _, d := range []string{"2000-04-23", "2008-03-23", "2011-04-24", "2019-04-21", "2020-04-12",
		"2021-04-04", "2022-04-17", "2024-03-31", "2025-04-20", "2038-04-25", "2285-03-22"} {
		c := mustCivil(d)
		if got := easter(c.y); got != c {
			t.Errorf("easter(%d) = %v, want %s", c.y, got, d)
		}
	}
}

func TestDayAndDayOf(t *testing.T) {
	// After-hours instants are the next UTC day but the same ET date.
	d := DayOf(utc(t, "2025-11-29T00:30:00Z"))
	if got := d.Date.Format(time.DateOnly); got != "2025-11-28" || d.Date.Location() != NewYork {
		t.Errorf("DayOf = %s in %v", got, d.Date.Location())
	}
	if h, m, s := d.Date.Clock(); h+m+s != 0 {
		t.Errorf("Date is not midnight: %v", d.Date)
	}
	if a, b := Day(2026, 2, 30), Day(2026, 3, 2); a != b {
		t.Errorf("Day(2026-02-30) = %+v, Day(2026-03-02) = %+v", a, b)
	}
	if d := Day(2025, 6, 14); d.Trading || d.Holiday != "" {
		t.Errorf("Saturday = %+v", d)
	}
	if d := Day(2022, 1, 1); d.Trading || d.Holiday != "" {
		t.Errorf("Saturday New Year's Day 2022 = %+v, want a plain weekend day", d)
	}
}

// span is one run of a session, from DayInfo.Bounds.
type span struct {
	start, end time.Time
	s          Session
}

func boundsSpans(t *testing.T, from, to time.Time) []span {
	var out []span
	for day := from; day.Before(to); day = day.AddDate(0, 0, 1) {
		d := Day(day.Date())
		for _, s := range AllSessions {
			if start, end, ok := d.Bounds(s); ok {
				if !start.Before(end) {
					t.Fatalf("%v %s: empty span %v–%v", day, s, start, end)
				}
				out = append(out, span{start, end, s})
			}
		}
	}
	return out
}

// SessionAt and DayInfo.Bounds compute sessions two ways; they must agree everywhere. The sweep
// steps 15 minutes across 2019–2029; every span's first and last minute and the minute before it
// are checked exactly.
func TestSessionAtMatchesBounds(t *testing.T) {
	from, to := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	spans := boundsSpans(t, from, to)
	for i := 1; i < len(spans); i++ {
		if spans[i].start.Before(spans[i-1].end) {
			t.Fatalf("spans overlap: %+v then %+v", spans[i-1], spans[i])
		}
	}
	for _, sp := range spans {
		for _, at := range []time.Time{sp.start, sp.end.Add(-time.Minute)} {
			if s, ok := SessionAt(at); !ok || s != sp.s {
				t.Fatalf("SessionAt(%v) = %q, want %q", at, s, sp.s)
			}
		}
		if s, _ := SessionAt(sp.start.Add(-time.Minute)); s == sp.s {
			t.Fatalf("SessionAt(%v) = %q: span %+v does not start where Bounds says", sp.start.Add(-time.Minute), s, sp)
		}
	}
	i := 0
	for at := spans[0].start; at.Before(spans[len(spans)-1].end); at = at.Add(15 * time.Minute) {
		for spans[i].end.Compare(at) <= 0 {
			i++
		}
		var want Session
		if !at.Before(spans[i].start) {
			want = spans[i].s
		}
		if s, ok := SessionAt(at); s != want || ok != (want != "") {
			t.Fatalf("SessionAt(%v) = %q, %v; Bounds say %q", at, s, ok, want)
		}
	}
}

func TestPrevSessionMinute(t *testing.T) {
	regPost := []Session{Regular, Post}
	for _, tc := range []struct {
		at       time.Time
		sessions []Session
		limit    time.Duration
		want     time.Time // zero: none
	}{
		{et(2025, 6, 14, 12, 0), regPost, 96 * time.Hour, et(2025, 6, 13, 19, 59)},
		{et(2025, 6, 14, 12, 0), []Session{Regular}, 96 * time.Hour, et(2025, 6, 13, 15, 59)},
		{et(2025, 6, 14, 12, 0), []Session{Overnight}, 96 * time.Hour, et(2025, 6, 13, 3, 59)},
		{et(2025, 6, 14, 12, 0), regPost, 16*time.Hour + time.Minute, et(2025, 6, 13, 19, 59)}, // limit reaches exactly
		{et(2025, 6, 14, 12, 0), regPost, 16 * time.Hour, time.Time{}},
		{et(2025, 6, 14, 12, 0), regPost, 0, time.Time{}},
		{et(2025, 6, 14, 12, 0), nil, 96 * time.Hour, time.Time{}},
		{et(2025, 6, 16, 10, 0), []Session{Regular}, time.Hour, et(2025, 6, 16, 9, 59)}, // t itself is excluded
		{et(2025, 6, 16, 10, 1), []Session{Regular}, time.Hour, et(2025, 6, 16, 10, 0)},
		{et(2025, 6, 16, 10, 0).Add(30 * time.Second), []Session{Regular}, time.Hour, et(2025, 6, 16, 10, 0)},
		{et(2025, 6, 16, 9, 30), []Session{Regular}, 96 * time.Hour, et(2025, 6, 13, 15, 59)},
		// Over Thanksgiving and its early close: Saturday looks back to Black Friday's post.
		{et(2025, 11, 29, 9, 0), regPost, 96 * time.Hour, et(2025, 11, 28, 16, 59)},
		{et(2025, 11, 29, 9, 0), []Session{Regular}, 96 * time.Hour, et(2025, 11, 28, 12, 59)},
		// Tuesday small hours after MLK Day: regular last ran the Friday before.
		{et(2025, 1, 21, 3, 0), []Session{Regular}, 96 * time.Hour, et(2025, 1, 17, 15, 59)},
		{et(2025, 1, 21, 3, 0), []Session{Overnight}, 96 * time.Hour, et(2025, 1, 21, 2, 59)},
	} {
		got, ok := PrevSessionMinute(tc.at, tc.sessions, tc.limit)
		if ok != !tc.want.IsZero() || !got.Equal(tc.want) {
			t.Errorf("PrevSessionMinute(%v, %v, %v) = %v, %v; want %v", tc.at, tc.sessions, tc.limit, got, ok, tc.want)
		}
	}
}

// PrevSessionMinute jumps over spans; walking back minute by minute with InSessions must find
// the same minute.
func TestPrevSessionMinuteMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sets := [][]Session{{Regular}, {Regular, Post}, {Pre, Regular, Post}, {Overnight}, AllSessions}
	base := time.Date(2019, 12, 20, 0, 0, 0, 0, time.UTC)
	for range 300 {
		at := base.Add(time.Duration(rng.Int64N(int64(10 * 365 * 24 * time.Hour))))
		sessions := sets[rng.IntN(len(sets))]
		limit := time.Duration(rng.Int64N(int64(100 * time.Hour)))
		var want time.Time
		for m := at.Truncate(time.Minute); !m.Before(at.Add(-limit)); m = m.Add(-time.Minute) {
			if m.Before(at) && InSessions(m, sessions) {
				want = m
				break
			}
		}
		got, ok := PrevSessionMinute(at, sessions, limit)
		if ok != !want.IsZero() || !got.Equal(want) {
			t.Fatalf("PrevSessionMinute(%v, %v, %v) = %v, %v; scan finds %v", at, sessions, limit, got, ok, want)
		}
	}
}

func TestInSessions(t *testing.T) {
	at := et(2025, 6, 16, 9, 29).Add(59 * time.Second) // inside the last pre minute
	if !InSessions(at, []Session{Pre}) || InSessions(at, []Session{Regular}) || InSessions(at, nil) {
		t.Error("InSessions misplaces the minute 09:29 ET")
	}
	if InSessions(et(2025, 6, 14, 12, 0), AllSessions) {
		t.Error("InSessions true on a Saturday")
	}
}

func TestParseSessions(t *testing.T) {
	for _, s := range AllSessions {
		got, err := ParseSession(string(s))
		if err != nil || got != s {
			t.Errorf("ParseSession(%q) = %q, %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "Regular", " pre", "after-hours", "extended"} {
		_, err := ParseSession(bad)
		if err == nil || !strings.Contains(err.Error(), "want one of overnight, pre, regular, post") {
			t.Errorf("ParseSession(%q) error = %v", bad, err)
		}
	}
	got, err := ParseSessions([]string{"pre", "regular", "post"})
	if err != nil || !slices.Equal(got, []Session{Pre, Regular, Post}) {
		t.Errorf("ParseSessions = %v, %v", got, err)
	}
	if _, err := ParseSessions([]string{"pre", "regualr"}); err == nil || !strings.Contains(err.Error(), `"regualr"`) {
		t.Errorf("ParseSessions with a typo: %v", err)
	}
	if _, err := ParseSessions([]string{"post", "post"}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("ParseSessions with a repeat: %v", err)
	}
}

func FuzzParseSession(f *testing.F) {
	for _, s := range []string{"pre", "regular", "post", "overnight", "", "PRE", "pre\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		s, err := ParseSession(name)
		if err != nil {
			if s != "" || !strings.Contains(err.Error(), "unknown session") {
				t.Fatalf("ParseSession(%q) = %q, %v", name, s, err)
			}
			return
		}
		if string(s) != name || !slices.Contains(AllSessions, s) {
			t.Fatalf("ParseSession(%q) = %q", name, s)
		}
	})
}

func BenchmarkSessionAt(b *testing.B) {
	at := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	for i := 0; b.Loop(); i++ {
		SessionAt(at.Add(time.Duration(i%10000) * time.Minute))
	}
}

func BenchmarkSessionAtEstimated(b *testing.B) {
	at := time.Date(2031, 11, 27, 15, 30, 0, 0, time.UTC)
	for i := 0; b.Loop(); i++ {
		SessionAt(at.Add(time.Duration(i%10000) * time.Minute))
	}
}

func BenchmarkPrevSessionMinute(b *testing.B) {
	at := time.Date(2025, 11, 29, 14, 0, 0, 0, time.UTC) // Saturday after Thanksgiving
	for b.Loop() {
		PrevSessionMinute(at, []Session{Regular}, 96*time.Hour)
	}
}

// SessionMinutes counts what a scan of every minute in the window finds, for windows that start
// and end anywhere (inside a minute too), across DST changes, holidays and early closes.
func TestSessionMinutesMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets := [][]Session{{Regular}, {Regular, Post}, {Pre, Regular, Post}, {Overnight}, AllSessions}
	base := time.Date(2019, 12, 20, 0, 0, 0, 0, time.UTC)
	for range 300 {
		from := base.Add(time.Duration(rng.Int64N(int64(10 * 365 * 24 * time.Hour))))
		to := from.Add(time.Duration(rng.Int64N(int64(10 * 24 * time.Hour))))
		sessions := sets[rng.IntN(len(sets))]
		want := 0
		for m := from.Truncate(time.Minute); m.Before(to); m = m.Add(time.Minute) {
			if !m.Before(from) && InSessions(m, sessions) {
				want++
			}
		}
		if got := SessionMinutes(from, to, sessions); got != want {
			t.Fatalf("SessionMinutes(%v, %v, %v) = %d; the scan counts %d", from, to, sessions, got, want)
		}
	}
	if got := SessionMinutes(base, base, AllSessions); got != 0 {
		t.Fatalf("an empty window holds %d minutes", got)
	}
}
