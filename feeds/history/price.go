package history

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
)

// RulesText names the rules an answer is reconciled under: the reconcile rules that matter to
// an answer, the sessions (nil: the spec's) and the spec's sources. Two answers with the same
// text were reconciled the same way; `price --db` compares it with its own spec's before
// trusting a stored answer.
func RulesText(spec *feeds.Spec, sessions []market.Session) string {
	r := spec.Rules
	if len(sessions) == 0 {
		sessions = r.Sessions
	}
	names := make([]string, 0, len(spec.Sources))
	for _, s := range spec.Sources {
		names = append(names, s.Name)
	}
	return fmt.Sprintf("min_sources=%d outlier_bps=%d max_carry=%s window=%s sessions=%s sources=%s",
		r.MinSources, r.OutlierBps, r.MaxCarry, r.Window, strings.Join(market.SessionStrings(sessions), ","), strings.Join(names, ","))
}

// failedKinds names the kind of each quote whose request failed, as " [source: kind, …]"; "" when
// none did.
func failedKinds(quotes []Quote) string {
	var out []string
	for _, q := range quotes {
		if q.Kind != "" {
			out = append(out, q.Source+": "+string(q.Kind))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " [" + strings.Join(out, ", ") + "]"
}

// Price is the stored answer of symbol at minute as the live reconciler would give it, for
// `pricerig price --db` and the rig: a minute already in the history needs no fetch. ok is true
// only for an answer that is complete and was reconciled under the spec's own rules (see
// RulesText); otherwise why says what is missing ("" when the store simply lacks the minute,
// as it lacks every minute outside the backfilled sessions).
func (s *Store) Price(ctx context.Context, spec *feeds.Spec, symbol string, minute time.Time) (res feeds.Result, ok bool, why string, err error) {
	a, found, err := s.Lookup(ctx, symbol, minute)
	switch {
	case err != nil:
		return res, false, "", err
	case !found:
		return res, false, "", nil
	case a.Rules != RulesText(spec, nil):
		return res, false, fmt.Sprintf("the stored answer was reconciled under other rules (%s)", a.Rules), nil
	case !a.Complete:
		return res, false, "the stored answer is incomplete (" + a.Reason + ")" + failedKinds(a.Quotes), nil
	}
	feed, _ := spec.Feed(symbol)
	res = feeds.Result{
		Symbol: a.Symbol, Minute: a.Minute, Effective: a.Minute, Session: a.Session, Agreed: a.Agreed,
		Price: a.Price, Median: a.Median, Survivors: a.Survivors, Reason: a.Reason,
	}
	for _, q := range a.Quotes {
		prov, _ := feed.ProviderSymbol(q.Source)
		res.Quotes = append(res.Quotes, feeds.Quote{
			Source: q.Source, Symbol: prov, Status: q.Status, Price: q.Price, BarTime: q.BarTime,
			Carried: q.Status.Priced() && !q.BarTime.Equal(a.Minute), Err: q.Err, Kind: q.Kind, DistanceCentiBps: q.DistanceCentiBps,
		})
	}
	return res, true, "", nil
}
