package feeds

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/market"
)

// Reread asks every source Price would ask for symbol at minute for [from, minute + 1m) again,
// whatever the ledger holds of it, and keeps each answer in the ledger: a close that changed
// since the ledger's fetch is kept as a revision (Ledger.Keep). It is how the audit sees the
// revisions of bars the ledger held final: a fetch asks only for what the ledger does not know
// final, so a provider that changes a finished bar is never asked about it again otherwise.
// Each source's window is clipped as a fetch's is, to its lookback and to what its delay lets it
// serve. It returns the requests made; the error joins the sources' failures.
func (r *Reconciler) Reread(ctx context.Context, symbol string, from, minute time.Time) (int, error) {
	feed, ok := r.Feed(symbol)
	if !ok {
		return 0, fmt.Errorf("%w %q", ErrUnknownSymbol, symbol)
	}
	minute = minute.UTC().Truncate(time.Minute)
	effective := minute
	if !market.InSessions(minute, r.cfg.Rules.Sessions) {
		prev, ok := market.PrevSessionMinute(minute, r.cfg.Rules.Sessions, r.cfg.Rules.MaxCarry)
		if !ok {
			return 0, nil
		}
		effective = prev.UTC()
	}
	session, _ := market.SessionAt(effective)
	now := r.deps.Now().UTC()
	quotes := make([]Quote, len(r.cfg.Members))
	for i, m := range r.cfg.Members {
		quotes[i].Source = m.Name
		quotes[i].Symbol, _ = feed.ProviderSymbol(m.Name)
	}
	tasks, _, _ := r.plan(feed, quotes, minute, effective, session, now)
	asked := 0
	var errs []error
	for _, t := range tasks {
		w := market.Span{From: from.UTC(), To: minTime(minute.Add(time.Minute), now.Add(-t.cov.Delay).Truncate(time.Minute))}
		if t.cov.Lookback > 0 {
			w.From = latest(w.From, ceilMinute(now.Add(-t.cov.Lookback)))
		}
		if w.Empty() {
			continue
		}
		asked++
		q := quotes[t.idx]
		if r.ask(ctx, t, &q, w) {
			errs = append(errs, fmt.Errorf("%s: %s", t.src.Name(), q.Err))
		}
	}
	return asked, errors.Join(errs...)
}
