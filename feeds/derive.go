package feeds

import (
	"fmt"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// A source's quote for a minute is derived from what the ledger holds of it, and from nothing
// else: the live reconciler fetches only to fill the ledger, then derives; a stored answer and a
// re-derivation from the ledger alone are the same computation.

// Derivation is what the ledger says of one source's price at a minute.
type Derivation struct {
	Bar   HeldBar // the bar the price-at-minute rule picked, when Found
	Found bool
	// Final says the source has said its last word on the minute: the bar picked is final, and
	// (when it is not at the effective minute) so is the absence of any bar after it up to the
	// effective minute.
	Final bool
	// Need is the latest minute at or before the effective one that the ledger does not know
	// final, which a fetch should ask for; zero when Final.
	Need time.Time
	// Fetched is when the bar picked (or, without one, the latest window over the effective
	// minute) was fetched.
	Fetched time.Time
}

// Derive applies the price-at-minute rule to what a ledger holds of one source over
// [floor, effective] and beyond: the bar at minute, else the latest earlier one within maxCarry,
// among the bars in sessions (the rules'); and says whether that is final. A bar is final as the
// ledger kept it (fetched after its final_after). The absence of bars between the bar picked (or
// floor, without one) and the effective minute is final only where a window was final when
// fetched (the source's final_after had passed since the minute ended): a later bar in the same
// answer does not settle it, since a late trade can still make the minute's bar until then
// (Massive's late-trade window, research/massive.md); absence is judged on the minutes of known,
// the source's sessions among the rules'.
func Derive(h Held, minute, effective, floor time.Time, maxCarry time.Duration, sessions, known []market.Session) Derivation {
	var d Derivation
	oldest := minute.Add(-maxCarry)
	for _, b := range h.Bars {
		if b.Start.After(minute) || b.Start.Before(oldest) || b.Start.Before(floor) || b.Close <= 0 || !market.InSessions(b.Start, sessions) {
			continue
		}
		if !d.Found || b.Start.After(d.Bar.Start) {
			d.Bar, d.Found = b, true
		}
	}
	if d.Found && d.Bar.Start.Equal(effective) {
		d.Final, d.Fetched = d.Bar.Final, d.Bar.Fetched
		if !d.Final {
			d.Need = effective
		}
		return d
	}
	from := floor
	if d.Found {
		from = d.Bar.Start.Add(time.Minute)
		d.Fetched = d.Bar.Fetched
	}
	gaps := market.MergeSpans(h.Final(), known).Missing(market.Span{From: from, To: effective.Add(time.Minute)}, known)
	if !d.Found {
		for _, w := range h.Windows {
			if !w.Span.From.After(effective) && w.Span.To.After(effective) && w.Fetched.After(d.Fetched) {
				d.Fetched = w.Fetched
			}
		}
	}
	switch {
	case len(gaps) > 0:
		d.Need = minTime(gaps[len(gaps)-1].To.Add(-time.Minute), effective)
	case d.Found && !d.Bar.Final:
		d.Need = d.Bar.Start
	default:
		d.Final = true
	}
	return d
}

// Quote is the source's quote the derivation gives, over q (which names the source): ok or
// carried when final; not_final, with a provisional bar at the effective minute as its price,
// when not; no_data when final without a bar.
func (d Derivation) Quote(q Quote, minute, effective time.Time, cov sources.Coverage, maxCarry time.Duration) Quote {
	q.FetchedAt, q.Final, q.Price, q.BarTime, q.Carried, q.Err, q.Kind = d.Fetched, false, 0, time.Time{}, false, "", ""
	bar := d.Bar.Bar
	// the bar used: a final one, or a provisional bar at the minute (the rig's last resort,
	// ReconcileProvisional); an earlier bar is no answer until the minute's absence is final
	if d.Found && (d.Final || bar.Start.Equal(effective)) {
		q.Price, q.BarTime, q.Carried = bar.Close, bar.Start, !bar.Start.Equal(minute)
	}
	ready := cov.FinalAt(effective).Format(time.RFC3339)
	// A minute outside the sessions is the effective one's, final at the source before the minute
	// asked began: "may still publish until" would be a deadline already past. What is not final
	// then is the ledger's word on it (fetched before then, or never).
	settled := !cov.FinalAt(effective).After(minute)
	switch {
	case !d.Final && settled:
		q.Status, q.Kind = StatusNotFinal, sources.KindNotFinal
		q.Err = fmt.Sprintf("the ledger holds no final word on its %s bar, the last of the sessions before %s (final at the source since %s): not fetched since",
			effective.Format("2006-01-02 15:04"), minute.Format("15:04"), ready)
		if d.Found && bar.Start.Equal(effective) {
			q.Err += fmt.Sprintf("; its provisional close is %s", bar.Close)
		}
	case !d.Final && d.Found && bar.Start.Equal(effective):
		q.Status, q.Kind = StatusNotFinal, sources.KindNotFinal
		q.Err = fmt.Sprintf("provisional: its bar of %s (%s) is final at %s", bar.Start.Format("15:04"), bar.Close, cov.FinalAt(bar.Start).Format(time.RFC3339))
	case !d.Final && d.Found:
		q.Status, q.Kind = StatusNotFinal, sources.KindNotFinal
		q.Err = fmt.Sprintf("no bar at %s yet, and it may still publish one until %s: its %s bar (%s) is not carried before then",
			effective.Format("15:04"), ready, bar.Start.Format("15:04"), bar.Close)
	case !d.Final:
		q.Status, q.Kind = StatusNotFinal, sources.KindNotFinal
		q.Err = fmt.Sprintf("no bar at %s yet, and it may still publish one until %s", effective.Format("15:04"), ready)
	case !d.Found:
		q.Status, q.Final = StatusNoData, true
		q.Err = fmt.Sprintf("no bar in the %s before %s", maxCarry, minute.Format(time.RFC3339))
	case q.Carried:
		q.Status, q.Final = StatusCarried, true
	default:
		q.Status, q.Final = StatusOK, true
	}
	return q
}
