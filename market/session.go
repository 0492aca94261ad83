// Package market knows when US equities trade: the sessions of a trading day, NYSE/Nasdaq
// holidays, early closes and special closures 2020–2028, and the America/New_York clock with its
// DST switches. It is data plus a little code and depends on nothing else in pricerig, so both
// the sources (and their simulator) and the feeds can ask it.
package market

// Session is a part of the US equity trading day, in America/New_York time.
type Session string

// The sessions, as sources.yaml names them.
const (
	Overnight Session = "overnight" // 20:00–04:00 ET, Sunday to Thursday nights before a trading day
	Pre       Session = "pre"       // 04:00–09:30 ET
	Regular   Session = "regular"   // 09:30–16:00 ET (13:00 on early-close days)
	Post      Session = "post"      // 16:00–20:00 ET (17:00 on early-close days)
)

// AllSessions lists the sessions in the order of a trading day.
var AllSessions = []Session{Overnight, Pre, Regular, Post}

// SessionStrings is sessions as sources.yaml names them, in the order given.
func SessionStrings(sessions []Session) []string {
	out := make([]string, len(sessions))
	for i, s := range sessions {
		out[i] = string(s)
	}
	return out
}
