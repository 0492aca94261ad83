package market

// The US equity calendar (NYSE and Nasdaq keep the same one) as published by the NYSE Group
// holiday and early-closings releases, 2020–2028. Source and cross-checks:
// shared/research/market-facts.md §1.2. These tables are the authority for the years they
// cover; rules.go only cross-checks them (in tests) and estimates years outside them.

// FirstTabulatedYear and LastTabulatedYear bound the years the tables below cover. Dates outside
// are estimated from the rules (DayInfo.Estimated).
const (
	FirstTabulatedYear = 2020
	LastTabulatedYear  = 2028
)

// FirstYear is the first year the calendar answers for; the commands and the reconciler refuse a
// minute before it. Before 1883-11-18 New York kept local mean time (UTC−4:56:02), so session
// bounds there are not whole UTC minutes, and the standing rules the estimates apply (and any
// source's 1-minute history) are far younger still. 1970 is also where unix seconds begin.
const FirstYear = 1970

// Holiday names, as DayInfo.Holiday reports them.
const (
	NewYearsDay         = "New Year's Day"
	MLKDay              = "Martin Luther King Jr. Day"
	WashingtonsBirthday = "Washington's Birthday"
	GoodFriday          = "Good Friday"
	MemorialDay         = "Memorial Day"
	Juneteenth          = "Juneteenth National Independence Day"
	IndependenceDay     = "Independence Day"
	LaborDay            = "Labor Day"
	Thanksgiving        = "Thanksgiving Day"
	Christmas           = "Christmas Day"
)

// closureRows are the weekdays of 2020–2028 with no session at all (and so no overnight session
// the evening before). A holiday on a weekend shows here on the weekday it is observed;
// New Year's Day on a Saturday (2022, 2028) is not observed at all (NYSE Rule 7.2).
var closureRows = []struct{ date, name string }{
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

	{"2025-01-01", NewYearsDay}, {"2025-01-20", MLKDay}, {"2025-02-17", WashingtonsBirthday},
	{"2025-04-18", GoodFriday}, {"2025-05-26", MemorialDay}, {"2025-06-19", Juneteenth},
	{"2025-07-04", IndependenceDay}, {"2025-09-01", LaborDay}, {"2025-11-27", Thanksgiving},
	{"2025-12-25", Christmas},

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

// specialRows are unscheduled full closures (national days of mourning, disasters). They apply in
// every year, tabulated or estimated, since no rule can predict them. The ones before 2020 make
// the estimates for those years right.
var specialRows = []struct{ date, name string }{
	{"2001-09-11", "September 11 attacks"}, {"2001-09-12", "September 11 attacks"},
	{"2001-09-13", "September 11 attacks"}, {"2001-09-14", "September 11 attacks"},
	{"2004-06-11", "Ronald Reagan national day of mourning"},
	{"2007-01-02", "Gerald Ford national day of mourning"},
	{"2012-10-29", "Hurricane Sandy"}, {"2012-10-30", "Hurricane Sandy"},
	{"2018-12-05", "George H. W. Bush national day of mourning"},
	{"2025-01-09", "Jimmy Carter national day of mourning"},
}

// earlyCloseRows are the days the regular session ends at 13:00 ET and the post session at
// 17:00 ET: the day before Independence Day (when July 3 is a Monday–Thursday), the day after
// Thanksgiving, and Christmas Eve (when December 24 is a Monday–Thursday).
var earlyCloseRows = []string{
	"2020-11-27", "2020-12-24",
	"2021-11-26",
	"2022-11-25",
	"2023-07-03", "2023-11-24",
	"2024-07-03", "2024-11-29", "2024-12-24",
	"2025-07-03", "2025-11-28", "2025-12-24",
	"2026-11-27", "2026-12-24",
	"2027-11-26",
	"2028-07-03", "2028-11-24",
}
