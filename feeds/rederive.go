package feeds

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Rederive answers a minute again from the bar ledger alone, with no request to any source:
// `pricerig explain`. It is Price's computation — the same plan of which sources the minute
// asks, the same Derive of each source's quote from what the ledger holds, the same Reconcile
// (and, when no final answer is reached and a source is not final, the rig's last resort,
// ReconcileProvisional) — with the clock set to when every source of the feed is final for the
// minute, so a minute months old is planned as it was when it closed (no lookback has passed).

// Trace is what Rederive read of one source: the bars the ledger holds around the minute and
// the derivation that picked one (or found none).
type Trace struct {
	Source string
	Asked  bool // the plan asks the source for the minute (else its quote says why not)
	// Near are the bars the ledger holds of the source within NearSpan of the effective minute,
	// and, when the quote carried from further back, that bar too.
	Near       []HeldBar
	Derivation Derivation
	// Floor and To bound what the derivation read: [Floor, To).
	Floor, To time.Time
}

// NearSpan is how many minutes either side of the effective minute a Trace lists.
const NearSpan = 5 * time.Minute

// Rederivation is a minute answered again from the ledger.
type Rederivation struct {
	Result Result
	Traces []Trace // one per source, in spec order
}

// Span is the part of the ledger the rederivation read: from the earliest floor of a source
// asked to the latest end. Zero without a source asked.
func (r Rederivation) Span() market.Span {
	var s market.Span
	for _, t := range r.Traces {
		if !t.Asked {
			continue
		}
		if s.From.IsZero() || t.Floor.Before(s.From) {
			s.From = t.Floor
		}
		if t.To.After(s.To) {
			s.To = t.To
		}
	}
	return s
}

// ErrNoLedger is Rederive's error on a Reconciler without a ledger of its own (Deps.Ledger).
var ErrNoLedger = errors.New("no bar ledger to derive from")

// Rederive answers symbol at minute from the ledger alone (see the comment above Trace). With
// counted (an answer's Result.Counted, kept in its evidence), only those sources' quotes are
// reconciled, as when the answer was made; the others are derived and traced but left pending
// (NotCounted). Without it, every source the ledger holds counts. The error is Price's for a
// minute that cannot be asked, or a ledger read's.
func (r *Reconciler) Rederive(ctx context.Context, symbol string, minute time.Time, counted []string) (Rederivation, error) {
	rules := r.cfg.Rules
	minute = minute.UTC()
	var out Rederivation
	if !Aligned(minute) {
		return out, fmt.Errorf("%w: %s", ErrUnaligned, minute.Format(time.RFC3339Nano))
	}
	if minute.Year() < market.FirstYear {
		return out, fmt.Errorf("%w: %s", ErrBeforeCalendar, minute.Format(time.RFC3339))
	}
	feed, ok := r.Feed(symbol)
	if !ok {
		return out, fmt.Errorf("%w %q (the spec has %s)", ErrUnknownSymbol, symbol, strings.Join(r.symbols(), ", "))
	}
	quotes := make([]Quote, len(r.cfg.Members))
	for i, m := range r.cfg.Members {
		quotes[i] = Quote{Source: m.Name, DistanceCentiBps: -1}
		quotes[i].Symbol, _ = feed.ProviderSymbol(m.Name)
		out.Traces = append(out.Traces, Trace{Source: m.Name})
	}
	effective := minute
	if !market.InSessions(minute, rules.Sessions) {
		prev, ok := market.PrevSessionMinute(minute, rules.Sessions, rules.MaxCarry)
		if !ok {
			out.Result = Result{Symbol: symbol, Minute: minute, Quotes: quotes,
				Reason: fmt.Sprintf("the minute is outside the sessions (%s) and none ran in the %s before it", sessionList(rules.Sessions), rules.MaxCarry)}
			return out, nil
		}
		effective = prev.UTC()
	}
	session, _ := market.SessionAt(effective)
	// the clock of the plan: when every source of the spec has said its last word on the minute
	now := effective.Add(time.Minute)
	for _, m := range r.cfg.Members {
		if m.Source != nil {
			cov := m.Source.Coverage()
			now = latest(now, cov.FinalAt(effective).Add(cov.Delay))
		}
	}
	// price's own clock while the minute is younger than that: a source still inside its
	// publication delay is not_covered, as price calls it, not a not_final with a deadline
	if clock := r.deps.Now().UTC(); clock.Before(now) {
		now = clock
	}
	tasks, _, _ := r.plan(feed, quotes, minute, effective, session, now)
	for _, t := range tasks {
		d, err := r.derive(ctx, t, minute, effective)
		if err != nil {
			return out, fmt.Errorf("reading the bar ledger: %w", err)
		}
		quotes[t.idx] = d.Quote(quotes[t.idx], minute, effective, t.cov, rules.MaxCarry)
		near, err := r.ledger.Held(ctx, t.src.Name(), t.feed, effective.Add(-NearSpan), effective.Add(NearSpan+time.Minute))
		if err != nil {
			return out, fmt.Errorf("reading the bar ledger: %w", err)
		}
		tr := Trace{Source: t.src.Name(), Asked: true, Near: near.Bars, Derivation: d, Floor: t.floor, To: t.to}
		if d.Found && d.Bar.Start.Before(effective.Add(-NearSpan)) {
			tr.Near = append([]HeldBar{d.Bar}, tr.Near...)
		}
		out.Traces[t.idx] = tr
	}
	LeaveUncounted(quotes, counted)
	res := Reconcile(quotes, rules)
	if !res.Agreed && len(res.NotFinal()) > 0 {
		if best := ReconcileProvisional(quotes, rules); best.Agreed {
			res = best
		}
	}
	res.Symbol, res.Minute, res.Effective, res.Session = symbol, minute, effective, session
	out.Result = res
	return out, nil
}

// Offline is the Reconciler Rederive runs on: the spec's sources built whether or not their keys
// are set in this environment (the ledger holds what they said when they were), over the
// ledger, with a budget that sends nothing.
func Offline(spec *Spec, ledger Ledger) (*Reconciler, error) { return OfflineAt(spec, ledger, nil) }

// OfflineAt is Offline on the clock now (nil: the real clock), the clock price would read.
func OfflineAt(spec *Spec, ledger Ledger, now func() time.Time) (*Reconciler, error) {
	if ledger == nil {
		return nil, ErrNoLedger
	}
	s := *spec
	s.Sources = make([]SourceSpec, len(spec.Sources))
	for i, src := range spec.Sources {
		if src.KeyEnv != "" && src.Key == "" {
			src.Key = "offline"
		}
		if src.SecretEnv != "" && src.Secret == "" {
			src.Secret = "offline"
		}
		src.Missing = ""
		s.Sources[i] = src
	}
	return New(&s, Deps{Deps: sources.Deps{Budget: sendNothing{}, Now: now}, Ledger: ledger})
}

// sendNothing is the budget of an offline Reconciler: no request is ever sent.
type sendNothing struct{}

func (sendNothing) Spend(_ context.Context, source string, _ sources.Quota, _ time.Time) error {
	return &sources.Error{Source: source, Kind: sources.ErrUnavailable, Err: sources.ErrNotSent, Msg: "offline: nothing is sent"}
}

func (sendNothing) Trip(context.Context, string, sources.Breaker) (bool, error) { return false, nil }
