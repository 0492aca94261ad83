// Package market knows when US equities trade: the sessions of a trading day, NYSE/Nasdaq
// holidays, early closes and special closures 2020–2028, and the America/New_York clock with its
// DST switches. It is data plus a little code and depends on nothing else in pricerig, so both
// the sources (and their simulator) and the feeds can ask it.
//
// Files:
//   - session.go: Session (overnight, pre, regular, post) and AllSessions.
//   - calendar.go: NewYork, DayInfo and Day/DayOf (a date's sessions and their bounds), SessionAt
//     and InSessions; calendar_data.go: the listed holidays, early closes and special closures;
//     rules.go: the rules that derive a year's holidays (nth weekday, Easter) to check the list.
//   - walk.go: walking the session minutes between two instants (WalkSessions, TrimToSessions,
//     FirstSessionMinute) and New York dates (NYDate, NYMidnight).
//   - spans.go: Span and Spans, coverage arithmetic over session time (MergeSpans, Missing, Find).
package market
