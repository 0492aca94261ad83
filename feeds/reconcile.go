package feeds

import (
	"slices"
	"strconv"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// Rules are the reconcile: block of sources.yaml.
type Rules struct {
	MinSources int           // survivors needed for an answer
	OutlierBps uint32        // a price farther than this from the first median is dropped
	MaxCarry   time.Duration // how old a carried bar may be, counted from the minute asked
	Sessions   []market.Session
	// Window is how far before the minute (or before the last in-session minute, for a minute
	// outside the sessions) a quote first reads: a carry reaches back to MaxCarry, but never
	// more than the source's MaxWindow before that (what one request reached back over before
	// the ledger, which the stored answers of a backfill follow too). Requests ask the provider's
	// whole window around the minute (see Price).
	Window time.Duration
	// Deadline bounds the whole fetch; a source that has not answered by then is pending.
	Deadline time.Duration
	// EarlyQuorum is how many agreeing answers end the fetch before the slow sources answer:
	// 0 means a majority of the sources asked, WaitForAll means never stop early. It is never
	// less than MinSources.
	EarlyQuorum int
}

// WaitForAll as Rules.EarlyQuorum (early_quorum: all) waits for every source or the deadline.
const WaitForAll = -1

// DefaultRules are the rules a spec gets for the keys it leaves out.
func DefaultRules() Rules {
	return Rules{
		MinSources: 2,
		OutlierBps: 25,
		MaxCarry:   96 * time.Hour,
		Sessions:   []market.Session{market.Pre, market.Regular, market.Post},
		Window:     30 * time.Minute,
		Deadline:   20 * time.Second,
	}
}

// Status is how one source fared for one minute.
type Status string

// The statuses of a Quote.
const (
	StatusOK         Status = "ok"          // the close of the bar that starts at the minute
	StatusCarried    Status = "carried"     // the close of an earlier bar, within max_carry
	StatusOutlier    Status = "outlier"     // a price, dropped for being beyond outlier_bps
	StatusNoData     Status = "no_data"     // no bar within max_carry
	StatusNoKey      Status = "no_key"      // the source's key variable is unset
	StatusNotCovered Status = "not_covered" // not in the feed, or it cannot see the minute's session or date
	StatusError      Status = "error"       // the request failed; Err says how
	StatusPending    Status = "pending"     // no answer yet when the reconciler stopped waiting
	// StatusNotFinal: the source has not said the last word on the minute yet. Its bar there is
	// younger than its final_after (provisional: Price and BarTime hold it, Final is false), or
	// it has no bar there yet and may still publish one (no later bar, and final_after has not
	// passed), so carrying an earlier bar would be guessing. Never priced.
	StatusNotFinal Status = "not_final"
	// StatusOverQuota: not asked, since the request would have passed the source's quota
	// (sources.yaml's quota:, or its free tier's); Err says until when.
	StatusOverQuota Status = "over_quota"
	// StatusPaced: not asked, since the source's rate (sources.yaml's rate:) had no request free
	// before the round's deadline (sources.ErrPaced): one process pricing several symbols at
	// once asks a slow-paced source (fmp's 250/day, massive's and alphavantage's 5/min) for the
	// first of them only. Err names the rate; no failure of the source.
	StatusPaced Status = "paced"
)

// Priced reports whether a status carries a price.
func (s Status) Priced() bool {
	return s == StatusOK || s == StatusCarried || s == StatusOutlier
}

// Quote is one source's answer for one minute, with its provenance.
type Quote struct {
	Source  string         // the source's name in sources.yaml
	Symbol  string         // the provider's symbol
	Status  Status         //
	Price   numeric.Scaled // raw, in the shares of the minute; 0 unless Status.Priced() or a not_final quote's provisional bar
	BarTime time.Time      // start of the bar Price is the close of
	Carried bool           // BarTime is before the minute asked (kept when Status turns outlier)
	// Final says the source has said the last word on the minute (its final_after passed, or a
	// later bar proves there is none at it): the bar used will not change. Every priced quote
	// the Reconciler makes is final; a not_final one is not.
	Final bool
	// FetchedAt is when the request that gave the quote was sent, by the reconciler's clock
	// (zero when the source was not asked): what finality is judged at.
	FetchedAt time.Time
	Err       string // why there is no price, when there is none
	// Kind is what kind of failure a failed request was (rate limited, unauthorized, a body
	// over its cap…): set with every Status error (and with no_key or no_data when a request
	// said so), "" when no request failed. Tell failures apart by it, never by Err.
	Kind    sources.ErrorKind
	Latency time.Duration // time spent fetching (all requests)
	// Requests counts the Bars calls made (0 when the source was not asked).
	Requests int
	// DistanceCentiBps is |Price − reference| / reference in hundredths of a basis point, where
	// the reference is the answer (or the first median when there is no answer); -1 without a
	// price.
	DistanceCentiBps int64
}

// DistanceBps is the distance as text with two decimals ("12.34"), "" without a price.
func (q Quote) DistanceBps() string {
	if q.DistanceCentiBps < 0 {
		return ""
	}
	return FormatCentiBps(q.DistanceCentiBps)
}

// FormatCentiBps prints hundredths of a basis point as basis points with two decimals, as
// numeric.DistanceBps does: 1234 → "12.34".
func FormatCentiBps(c int64) string {
	s := strconv.FormatInt(c, 10)
	for len(s) < 3 {
		s = "0" + s
	}
	return s[:len(s)-2] + "." + s[len(s)-2:]
}

// Result is the reconciled price of one symbol at one minute, with every source's quote.
type Result struct {
	Symbol string
	Minute time.Time
	// Effective is the minute the sources are read at: Minute itself, or for a minute outside
	// the sessions the last in-session minute before it. Session is its session.
	Effective time.Time
	Session   market.Session
	Agreed    bool           // an answer was reached: at least min_sources survived
	Price     numeric.Scaled // the answer when Agreed
	Median    numeric.Scaled // lower median of every priced quote, before outliers were dropped
	Survivors int            // priced quotes within outlier_bps of Median
	Reason    string         // why there is no answer, when there is none
	Early     bool           // the fetch stopped on an early quorum, before every source answered
	// Unsettled says sources were not final yet when Price answered, and the final prices had
	// not met the early quorum: any answer is from fewer final sources than it would have
	// waited for (at least min_sources of them), or, with Provisional, not all final.
	Unsettled bool
	// Provisional says the answer counts bars that were not final (ReconcileProvisional, the
	// LastResort of a rig at its commit deadline).
	Provisional bool
	Quotes      []Quote // one per source of the spec, in spec order
}

// Read is the span of the ledger the answer's quotes were derived from: from the earliest bar a
// quote used to the end of the effective minute (Minute's when Effective is unset).
func (r Result) Read() market.Span {
	eff := r.Effective
	if eff.IsZero() {
		eff = r.Minute
	}
	s := market.Span{From: eff, To: eff.Add(time.Minute)}
	for _, q := range r.Quotes {
		if !q.BarTime.IsZero() && q.BarTime.Before(s.From) {
			s.From = q.BarTime
		}
	}
	return s
}

// NotFinal lists the sources whose quote is not final yet, in spec order.
func (r Result) NotFinal() []string {
	var out []string
	for _, q := range r.Quotes {
		if q.Status == StatusNotFinal {
			out = append(out, q.Source)
		}
	}
	return out
}

// Counted lists the sources whose prices the result was reconciled from, in spec order: the
// survivors and the outliers dropped, not the sources still pending or without a price. An
// answer made on an early quorum counts fewer sources than the ledger later holds (the slower
// fetches fill it after the answer), so its evidence keeps this list and Rederive counts the
// same sources when it explains the answer.
func (r Result) Counted() []string {
	var out []string
	for _, q := range r.Quotes {
		if q.Status.Priced() {
			out = append(out, q.Source)
		}
	}
	return out
}

// NotCounted is the Err of a quote Rederive derived but did not count: the answer it explains
// was reconciled without the source (an early quorum answers before the slower sources, whose
// bars reach the ledger afterwards; a source that failed then may have filled it since).
const NotCounted = "not counted: the answer was reconciled without this source's quote"

// LeaveUncounted leaves pending (NotCounted) the quote of every source counted does not name, so
// that a reconcile of quotes counts the sources an answer counted (Result.Counted) and no
// others. With counted empty (not known) it changes nothing.
func LeaveUncounted(quotes []Quote, counted []string) {
	if len(counted) == 0 {
		return
	}
	for i := range quotes {
		if q := &quotes[i]; !slices.Contains(counted, q.Source) && (q.Status.Priced() || q.Status == StatusNotFinal) {
			q.Status, q.Price, q.BarTime, q.Carried, q.Final, q.Err, q.Kind = StatusPending, 0, time.Time{}, false, false, NotCounted, ""
			q.DistanceCentiBps = -1
		}
	}
}

// PriceAt applies the price-at-minute rule to one source's bars: the bar that starts at minute,
// else the latest bar before it no older than maxCarry (minute − start ≤ maxCarry). Bars after the
// minute are ignored; order does not matter. carried is false for the bar at the minute itself.
func PriceAt(bars []sources.Bar, minute time.Time, maxCarry time.Duration) (bar sources.Bar, carried, ok bool) {
	oldest := minute.Add(-maxCarry)
	for _, b := range bars {
		if b.Start.After(minute) || b.Start.Before(oldest) || b.Close <= 0 {
			continue
		}
		if !ok || b.Start.After(bar.Start) {
			bar, ok = b, true
		}
	}
	return bar, ok && !bar.Start.Equal(minute), ok
}

// Reconcile turns quotes into an answer: the lower median of the priced quotes; quotes farther
// than OutlierBps from it become outliers; the answer is the lower median of the rest, if at least
// MinSources remain. It is pure: the same quotes and rules give the same result, so backfill and
// audit can run it on stored bars. Only MinSources and OutlierBps of the rules are used. A quote
// already marked outlier is judged afresh (its Carried field tells ok from carried).
func Reconcile(quotes []Quote, rules Rules) Result {
	return ReconcileOwned(slices.Clone(quotes), rules)
}

// ReconcileOwned is Reconcile for a caller that gives up its quotes: the result's Quotes is the
// same slice, rewritten in place, instead of a copy. The backfill builds each minute's quotes
// only to reconcile them, and the copy was a tenth of its reconcile time.
func ReconcileOwned(quotes []Quote, rules Rules) Result {
	res := Result{Quotes: quotes}
	// a spec has a handful of sources: the index lists stay on the stack
	var pricedBuf, keptBuf [16]int
	priced := pricedBuf[:0]
	for i := range res.Quotes {
		q := &res.Quotes[i]
		q.DistanceCentiBps = -1
		if q.Status.Priced() && q.Price > 0 {
			q.Status = StatusOK
			if q.Carried {
				q.Status = StatusCarried
			}
			priced = append(priced, i)
		}
	}
	min := rules.MinSources
	if min < 1 {
		min = 1
	}
	if len(priced) == 0 {
		res.Reason = "no source gave a price"
		return res
	}
	first := lowerMedian(res.Quotes, priced)
	res.Median = first
	kept := keptBuf[:0]
	for _, i := range priced {
		q := &res.Quotes[i]
		if numeric.WithinToleranceScaled(q.Price, first, rules.OutlierBps) {
			kept = append(kept, i)
		} else {
			q.Status = StatusOutlier
		}
	}
	res.Survivors = len(kept)
	ref := first
	if len(kept) >= min {
		res.Price = lowerMedian(res.Quotes, kept)
		res.Agreed = true
		ref = res.Price
	} else {
		res.Reason = tooFew(len(priced), len(kept), min)
	}
	for _, i := range priced {
		q := &res.Quotes[i]
		q.DistanceCentiBps = numeric.DistanceCentiBps(q.Price, ref)
	}
	return res
}

// ReconcileProvisional is Reconcile counting the provisional bars of not_final quotes as prices
// (a bar at the minute younger than its source's final_after; an earlier bar a source may not
// carry yet is never counted): the best answer at hand when a deadline comes before enough
// sources are final (the rig at its commit deadline). Its Result says Provisional when a quote it counted was not final.
func ReconcileProvisional(quotes []Quote, rules Rules) Result {
	qs := slices.Clone(quotes)
	for i := range qs {
		if qs[i].Status == StatusNotFinal && qs[i].Price > 0 {
			qs[i].Status = StatusOK // Reconcile sets ok or carried from Carried
		}
	}
	res := ReconcileOwned(qs, rules)
	for _, q := range res.Quotes {
		if q.Status.Priced() && !q.Final {
			res.Provisional = true
		}
	}
	return res
}

func lowerMedian(quotes []Quote, idx []int) numeric.Scaled {
	var buf [16]numeric.Scaled
	prices := buf[:0]
	if len(idx) > len(buf) {
		prices = make([]numeric.Scaled, 0, len(idx))
	}
	prices = prices[:len(idx)]
	for k, i := range idx {
		prices[k] = quotes[i].Price
	}
	slices.Sort(prices)
	return prices[(len(prices)-1)/2]
}

func tooFew(priced, kept, min int) string {
	if priced == kept {
		return plural(priced, "source") + " gave a price; min_sources is " + itoa(min)
	}
	return plural(priced, "source") + " gave a price but only " + itoa(kept) + " agreed within outlier_bps; min_sources is " + itoa(min)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return itoa(n) + " " + word + "s"
}

func itoa(n int) string { return strconv.Itoa(n) }
