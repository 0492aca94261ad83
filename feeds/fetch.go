package feeds

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/sources"
)

// A source's quote comes from the ledger: fetch reads what the ledger holds of the source, asks
// the source for what it lacks (the provider's whole request around the minute: its day, the
// run of dates or the month it answers at once, or the rest of a day still growing, from its
// last final bar), keeps the answer in the ledger, and derives the quote from the ledger again.

// maxAsks bounds the requests of one fetch: a day and the days a carry reaches back over.
const maxAsks = 6

// fetch derives one source's quote for the minute from the ledger, asking the source for what
// the ledger lacks first. q may hold the source's answer of an earlier round: it is replaced,
// and its request count and latency added to.
func (r *Reconciler) fetch(ctx context.Context, t task, q Quote, minute, effective time.Time) Quote {
	rules := r.cfg.Rules
	start := time.Now() // latency is a measurement for reports, not a decision: the real clock
	defer func() { q.Latency += time.Since(start) }()
	var asked []market.Span // this call's requests
	for {
		d, err := r.derive(ctx, t, minute, effective)
		if err != nil {
			q.Status, q.Err, q.Kind = StatusError, "reading the bar ledger: "+redact.String(err.Error()), sources.KindOf(err)
			return q
		}
		if d.Final || len(asked) == maxAsks {
			return d.Quote(q, minute, effective, t.cov, rules.MaxCarry)
		}
		w, ok, err := r.window(ctx, t, d.Need, asked)
		if err != nil {
			q.Status, q.Err, q.Kind = StatusError, "reading the bar ledger: "+redact.String(err.Error()), sources.KindOf(err)
			return q
		}
		if !ok || slices.ContainsFunc(asked, func(a market.Span) bool { return !d.Need.Before(a.From) && d.Need.Before(a.To) }) {
			// nothing a request can tell now: the minute is not final yet (this call asked for
			// it already), or the source cannot be asked for it (its delay)
			return d.Quote(q, minute, effective, t.cov, rules.MaxCarry)
		}
		asked = append(asked, w)
		if failed := r.ask(ctx, t, &q, w); failed {
			return q
		}
	}
}

// derive reads what the ledger holds of the source around the minute and derives its quote: from
// the window's minutes first (most minutes have a final bar there), and from the whole reach of
// a carry only when that is not the answer.
func (r *Reconciler) derive(ctx context.Context, t task, minute, effective time.Time) (Derivation, error) {
	rules := r.cfg.Rules
	if near := latest(t.floor, t.from); near.After(t.floor) {
		held, err := r.ledger.Held(ctx, t.src.Name(), t.feed, near, t.to)
		if err != nil {
			return Derivation{}, err
		}
		// a final bar found after near is the one the whole reach gives too: the rule picks
		// the latest, and bars before near are older
		if d := Derive(held, minute, effective, near, rules.MaxCarry, rules.Sessions, t.known); d.Final && d.Found {
			return d, nil
		}
	}
	held, err := r.ledger.Held(ctx, t.src.Name(), t.feed, t.floor, t.to)
	if err != nil {
		return Derivation{}, err
	}
	return Derive(held, minute, effective, t.floor, rules.MaxCarry, rules.Sessions, t.known), nil
}

// window is the request that fills the ledger around need. The first of a call is the
// provider's request unit holding need (Unit); a later one, for a carry reaching past what the
// first held, is the rest of the carry's reach before it, whole (as one request reached back
// before the ledger). Either is clipped to the source's lookback and to what its delay lets it
// serve, and starts at the first minute the ledger does not know final: a day still growing is
// extended from its last final bar, not read again. ok is false when the ledger knows it final
// already, or nothing of it can be asked yet.
func (r *Reconciler) window(ctx context.Context, t task, need time.Time, asked []market.Span) (market.Span, bool, error) {
	now := r.deps.Now().UTC()
	u := r.unit(t.cov, need)
	if len(asked) > 0 {
		u = market.Span{From: t.floor, To: asked[0].From}
		for _, a := range asked {
			u.To = minTime(u.To, a.From)
		}
	}
	if t.cov.Lookback > 0 {
		u.From = latest(u.From, ceilMinute(now.Add(-t.cov.Lookback)))
	}
	u.To = minTime(u.To, now.Add(-t.cov.Delay).Truncate(time.Minute))
	if u.Empty() || !u.To.After(need) {
		return market.Span{}, false, nil
	}
	held, err := r.ledger.Held(ctx, t.src.Name(), t.feed, u.From, u.To)
	if err != nil {
		return market.Span{}, false, err
	}
	gaps := held.Missing(u, t.cov.Sessions)
	if len(gaps) == 0 {
		return market.Span{}, false, nil
	}
	return market.Span{From: gaps[0].From, To: u.To}, true, nil
}

// Unit is the window one request of a source answers around the minute t, whole: the calendar
// month of a CutMonth provider (Alpha Vantage's month=), the run of dates of a CutDates one
// ending with t's New York date (Tiingo, FMP: whole dates), else t's New York date, narrowed to
// MaxWindow around t when that is shorter.
func Unit(cov sources.Coverage, t time.Time) market.Span {
	date := market.NYDate(t)
	switch cov.Cut {
	case sources.CutMonth:
		ny := t.In(market.NewYork)
		from := time.Date(ny.Year(), ny.Month(), 1, 0, 0, 0, 0, market.NewYork)
		return market.Span{From: from.UTC(), To: from.AddDate(0, 1, 0).UTC()}
	case sources.CutDates:
		// a request of Dates dates must end by New York midnight of its (Dates-1)th day
		days := max(cov.Dates, 2)
		return market.Span{From: market.NYMidnight(date.AddDate(0, 0, 2-days)), To: market.NYMidnight(date.AddDate(0, 0, 1))}
	}
	u := market.Span{From: market.NYMidnight(date), To: market.NYMidnight(date.AddDate(0, 0, 1))}
	if cov.MaxWindow > 0 && u.Duration() > cov.MaxWindow {
		u.From = latest(u.From, t.Add(time.Minute).Add(-cov.MaxWindow))
		u.To = u.From.Add(cov.MaxWindow)
	}
	return u
}

// ask makes one request for w and keeps its answer in the ledger, raw (split adjustment undone),
// whole: every bar the body held, with when it was asked and which part of w was final then.
// failed means q now holds the failure.
func (r *Reconciler) ask(ctx context.Context, t task, q *Quote, w market.Span) (failed bool) {
	at := r.deps.Now().UTC()
	q.Requests++
	bars, err := t.src.Bars(ctx, t.symbol, w.From, w.To)
	if err != nil && !errors.Is(err, sources.ErrNoData) { // no data: an empty window, as some providers report it
		q.Status, q.Err, q.Kind = classify(err), redact.String(err.Error()), sources.KindOf(err)
		return true
	}
	if t.adjusted {
		bars, err = Unadjust(bars, t.splits, at)
		if err != nil {
			q.Status, q.Err, q.Kind = StatusError, redact.String(err.Error()), sources.KindOf(err)
			return true
		}
	}
	k := Kept{Source: t.src.Name(), Symbol: t.feed, Span: w, Bars: bars, Fetched: at, FinalTo: FinalTo(t.cov.FinalAfter, at), Requests: 1}
	if err := r.ledger.Keep(ctx, k); err != nil {
		q.Status, q.Err, q.Kind = StatusError, fmt.Sprintf("keeping %s's bars in the ledger: %s", t.src.Name(), redact.String(err.Error())), sources.KindOf(err)
		return true
	}
	return false
}
