package audit

import (
	"fmt"
	"slices"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/journal"
)

// The revisions check: an answer given from a bar its source later changed. A source's bar is
// final in the ledger once its final_after has passed, and no fetch asks for it again; a
// provider that changes it after that (a late trade, a correction) is seen only when something
// reads the bar again: the audit does, for the minutes of its window (feeds.Reconciler.Reread),
// and so does any fetch that reaches the bar once more (the rig reading a provisional bar final,
// a provider answering a whole day). The ledger keeps both closes (history.Revision); this check
// finds the answers that used the old one and re-derives them with the new.

// Answered is an answer the check looks for revised bars under.
type Answered struct {
	// TaskID names a rig's answer (0: an answer of the ledger at Minute, as `pricerig price`
	// and the backfill give it).
	TaskID uint64
	Symbol string
	Minute time.Time
	// Price is the answer given; 0 when it was not recorded (`pricerig price` keeps its bars,
	// not its answers): it is then re-derived from the ledger's bars with the old close.
	Price numeric.Scaled
	// By is the latest the answer can have been taken: when the rig answered, as its evidence
	// in the ledger keeps it, else the task's commit deadline. A revision seen after it, of a
	// close fetched by it, came after the answer.
	By time.Time
	// Used are the sources' quotes the answer was taken from, when they were recorded (the
	// rig's mark of an answer taken before its sources were final, a stored answer's quotes):
	// the answer used a revised bar when its quote holds the old close.
	Used []feeds.Quote
	// Counted names the sources a rig's answer was reconciled from, from its evidence in the
	// ledger (nil when none is kept, or kept before it said): the answer is re-derived from
	// those alone. An early quorum answers before the slower sources, whose bars reach the
	// ledger afterwards; counting them would move the re-derived answer with no revision at all,
	// and a revision of a source the answer did not count is no finding.
	Counted []string
}

// answeredOf lists the rig's answers among journal entries, one per task (its rigs share the
// answer), with the quotes of its mark when it has one.
func answeredOf(entries []journal.Entry, marks []journal.UnsettledMark) []Answered {
	byTask := map[uint64]journal.UnsettledMark{}
	for _, m := range marks {
		byTask[m.TaskID] = m
	}
	var out []Answered
	seen := map[uint64]bool{}
	for _, e := range dedupe(entries) {
		if e.Price <= 0 || e.Refusal != "" || seen[e.TaskID] {
			continue
		}
		seen[e.TaskID] = true
		a := Answered{TaskID: e.TaskID, Symbol: e.Symbol, Minute: e.Minute.UTC(), Price: e.Price, By: e.CommitDeadline}
		if m, ok := byTask[e.TaskID]; ok {
			for _, s := range m.Sources {
				a.Used = append(a.Used, feeds.Quote{Source: s.Name, Status: feeds.Status(s.Status), Price: s.Price,
					BarTime: s.BarTime, Final: s.Final, FetchedAt: s.FetchedAt, DistanceCentiBps: -1})
			}
		}
		out = append(out, a)
	}
	return out
}

// storedAnswered is a stored answer (the backfill's) as the check reads it: its quotes say which
// bar of each source it used.
func storedAnswered(a history.Answer) Answered {
	out := Answered{Symbol: a.Symbol, Minute: a.Minute.UTC()}
	if a.Agreed {
		out.Price = a.Price
	}
	for _, q := range a.Quotes {
		out.Used = append(out.Used, feeds.Quote{Source: q.Source, Status: q.Status, Price: q.Price, BarTime: q.BarTime,
			Final: q.Status.Priced(), DistanceCentiBps: -1})
	}
	return out
}

// MinuteKey keys a symbol's minute (CheckRevised's re-derived answers).
type MinuteKey struct {
	Symbol string
	Unix   int64 // the minute's start
}

// KeyOf is the key of a symbol's minute.
func KeyOf(symbol string, m time.Time) MinuteKey { return MinuteKey{symbol, m.Unix()} }

// CheckRevised reports every answer that used a bar its source later revised: the rig's answers
// and the stored ones in answers, and, for a bar the ledger held final that a source changed
// with its minute in [from, to), the answer the ledger gave at that minute (`pricerig price`'s,
// which is not recorded) when no recorded answer is reported for that bar already and no answer
// is stored at that minute. current holds each
// answer's minute re-derived from the ledger as it is now (new closes); revs the ledger's
// revisions. The finding is a warning while the re-derived answer stays within the tolerance of
// the answer given, an alert past it (an answer settled on the final bars would now be slashed).
func CheckRevised(answers []Answered, revs []history.Revision, current map[MinuteKey]feeds.Result, from, to time.Time, rules feeds.Rules, toleranceBps uint32) []Finding {
	var out []Finding
	type revKey struct {
		source, symbol string
		minute         int64
	}
	covered := map[revKey]bool{}
	stored := map[MinuteKey]bool{} // minutes with a stored answer: it, not the ledger, is the record
	reported := map[[2]any]bool{}  // (the answer, the revised bar) reported once
	for _, a := range answers {
		if a.TaskID == 0 {
			stored[KeyOf(a.Symbol, a.Minute)] = true
		}
	}
	for _, a := range answers {
		cur := countedOnly(current[KeyOf(a.Symbol, a.Minute)], a.Counted, rules)
		for _, r := range revs {
			if r.Symbol != a.Symbol || r.Minute.After(a.Minute) || r.Minute.Before(a.Minute.Add(-rules.MaxCarry)) || !usedOld(a, r, cur) {
				continue
			}
			k := revKey{r.Source, r.Symbol, r.Minute.Unix()}
			ak := [2]any{answerKey(a), k}
			if reported[ak] {
				continue
			}
			reported[ak], covered[k] = true, true
			out = append(out, revisedFinding(a, r, cur, rules, toleranceBps))
		}
	}
	for _, r := range revs {
		k := revKey{r.Source, r.Symbol, r.Minute.Unix()}
		if !r.OldFinal || covered[k] || stored[KeyOf(r.Symbol, r.Minute)] || r.Minute.Before(from) || !r.Minute.Before(to) {
			continue
		}
		a := Answered{Symbol: r.Symbol, Minute: r.Minute}
		cur := current[KeyOf(a.Symbol, a.Minute)]
		if !usedOld(a, r, cur) {
			continue
		}
		a.Price = answeredThen(a, revs, cur, rules)
		covered[k] = true // the earliest revision seen of the bar: its old close is the one answered from
		out = append(out, revisedFinding(a, r, cur, rules, toleranceBps))
	}
	return out
}

// countedOnly is cur reconciled again from the sources counted names alone (an answer's, from
// its evidence); cur itself when counted is not known.
func countedOnly(cur feeds.Result, counted []string, rules feeds.Rules) feeds.Result {
	if len(counted) == 0 || len(cur.Quotes) == 0 {
		return cur
	}
	qs := slices.Clone(cur.Quotes)
	feeds.LeaveUncounted(qs, counted)
	res := feeds.ReconcileOwned(qs, rules)
	res.Symbol, res.Minute, res.Effective, res.Session = cur.Symbol, cur.Minute, cur.Effective, cur.Session
	return res
}

func answerKey(a Answered) any {
	if a.TaskID != 0 {
		return a.TaskID
	}
	return KeyOf(a.Symbol, a.Minute)
}

// quoteOf is the quote of a source among quotes.
func quoteOf(quotes []feeds.Quote, source string) (feeds.Quote, bool) {
	i := slices.IndexFunc(quotes, func(q feeds.Quote) bool { return q.Source == source })
	if i < 0 {
		return feeds.Quote{}, false
	}
	return quotes[i], true
}

// usedOld says whether answer a was taken from r's old close. With the quotes it was taken from,
// when its source's quote holds that close at that bar. Without them, the bar must be the one
// the price-at-minute rule picks for the answer's minute from the source (cur, the ledger now),
// and the old close must have been final (an answer without recorded quotes counted only final
// bars); a rig's answer must also have been taken while the ledger held the old close: fetched
// by the commit deadline and revised after it.
func usedOld(a Answered, r history.Revision, cur feeds.Result) bool {
	if a.Used != nil {
		q, ok := quoteOf(a.Used, r.Source)
		if r.Old == 0 {
			// a bar that appeared at a minute the answer carried an earlier bar over
			return ok && q.Status.Priced() && q.BarTime.Before(r.Minute) && !r.Minute.After(a.Minute)
		}
		return ok && q.Price == r.Old && q.BarTime.Equal(r.Minute)
	}
	q, ok := quoteOf(cur.Quotes, r.Source)
	if !ok || !q.Status.Priced() || !q.BarTime.Equal(r.Minute) || !r.OldFinal {
		return false
	}
	if a.TaskID != 0 {
		return !a.By.IsZero() && !r.OldFetched.After(a.By) && r.Seen.After(a.By)
	}
	return true
}

// answeredThen is the answer the ledger gave at a's minute before its sources revised the bars
// it was taken from: its quotes now, each source's bar with the close the ledger first held
// final (the old close of the earliest revision seen of it). 0 when they did not agree.
func answeredThen(a Answered, revs []history.Revision, cur feeds.Result, rules feeds.Rules) numeric.Scaled {
	then := slices.Clone(cur.Quotes)
	for i, q := range then {
		// revs are in order of when each was seen: the first of a bar is its earliest
		j := slices.IndexFunc(revs, func(r history.Revision) bool {
			return r.OldFinal && r.Old > 0 && r.Source == q.Source && r.Symbol == a.Symbol && r.Minute.Equal(q.BarTime)
		})
		if q.Status.Priced() && j >= 0 {
			then[i].Price = revs[j].Old
		}
	}
	if res := feeds.Reconcile(then, rules); res.Agreed {
		return res.Price
	}
	return 0
}

// revisedFinding describes answer a taken from r's old close: the revision (old and new close,
// its size), the answer, its re-derivation now (cur) and their distance against the tolerance.
func revisedFinding(a Answered, r history.Revision, cur feeds.Result, rules feeds.Rules, toleranceBps uint32) Finding {
	newClose := r.New
	if q, ok := quoteOf(cur.Quotes, r.Source); ok && q.Status.Priced() && q.BarTime.Equal(r.Minute) {
		newClose = q.Price // the ledger's latest word, past any later revision
	}
	answer := a.Price
	limit := int64(toleranceBps) * 100
	f := Finding{Check: CheckRevisionsName, Name: Revised, Severity: Warn, Source: r.Source, Symbol: a.Symbol, TaskID: a.TaskID,
		First: a.Minute, Last: a.Minute, BarTime: r.Minute, Seen: r.Seen, Count: 1, Of: 1,
		OldClose: r.Old.String(), NewClose: newClose.String(), Limit: feeds.FormatCentiBps(limit)}
	if answer > 0 {
		f.Answer = answer.String()
	}
	what := fmt.Sprintf("%s at %s", a.Symbol, minuteText(a.Minute))
	if a.TaskID != 0 {
		what = fmt.Sprintf("task %d (%s)", a.TaskID, what)
	}
	seen := "later"
	if !r.Seen.IsZero() {
		seen = "at " + r.Seen.UTC().Format(time.RFC3339)
	}
	// a bar that appeared or vanished has no old or no new close: the key is left out
	if r.Old == 0 {
		f.OldClose = ""
	}
	if newClose == 0 {
		f.NewClose = ""
	}
	var head string
	switch {
	case r.Old == 0:
		head = fmt.Sprintf("%s: %s published a %s bar (close %s) %s, after the answer %s carried an earlier bar over the minute",
			what, r.Source, r.Minute.UTC().Format("15:04"), newClose, seen, orDash(f.Answer))
	case newClose == 0:
		head = fmt.Sprintf("%s: %s no longer has its %s bar (close %s) %s, after the answer %s was taken from it",
			what, r.Source, r.Minute.UTC().Format("15:04"), r.Old, seen, orDash(f.Answer))
	default:
		head = fmt.Sprintf("%s: %s revised its %s close from %s to %s (%s bps) %s, after the answer %s was taken from it",
			what, r.Source, r.Minute.UTC().Format("15:04"), r.Old, newClose, feeds.FormatCentiBps(numeric.DistanceCentiBps(newClose, r.Old)), seen, orDash(f.Answer))
	}
	switch {
	case !cur.Agreed:
		f.Message = fmt.Sprintf("%s; the ledger gives no answer now (%s)", head, orDash(cur.Reason))
	case answer <= 0:
		f.Rederived = cur.Price.String()
		f.Message = fmt.Sprintf("%s; re-derived now: %s", head, cur.Price)
	default:
		f.Rederived = cur.Price.String()
		d := numeric.DistanceCentiBps(cur.Price, answer)
		f.Value = feeds.FormatCentiBps(d)
		switch {
		case d == 0:
			f.Message = fmt.Sprintf("%s; re-derived now the answer is the same", head)
		case d > limit:
			f.Severity = Alert
			f.Message = fmt.Sprintf("%s; re-derived now it is %s, %s bps from it: outside the %d bps tolerance", head, cur.Price, f.Value, toleranceBps)
		default:
			f.Message = fmt.Sprintf("%s; re-derived now it is %s, %s bps from it, inside the %d bps tolerance", head, cur.Price, f.Value, toleranceBps)
		}
	}
	return f
}
