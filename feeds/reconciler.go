package feeds

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Errors of Price. A Result comes back with ErrNoAnswer and ErrTooOld too, for its provenance.
var (
	ErrUnknownSymbol  = errors.New("unknown symbol")
	ErrUnaligned      = errors.New("minute is not aligned to 60 s")
	ErrBeforeCalendar = fmt.Errorf("minute is before %d, the first year of the market calendar", market.FirstYear)
	ErrNotClosed      = errors.New("minute has not closed yet")
	ErrTooOld         = errors.New("minute is older than every source's 1-minute history")
	ErrNoAnswer       = errors.New("no answer")
	// ErrNotFinal: no answer from the final prices, and some sources are not final yet (the
	// minute closed too recently; asking again later, or waiting with WaitFinal, may answer).
	ErrNotFinal = errors.New("not final yet")
)

// Deps are what a Reconciler gets from its host. Now is the clock every decision reads (is the
// minute closed, how far back each source reaches, which splits have happened, is a bar final).
type Deps struct {
	sources.Deps
	// After starts the deadline timer; nil means a real timer. Tests fire the deadline by hand.
	After func(time.Duration) <-chan time.Time
	// Wait returns once the clock reads until, or with the context's error; nil means a real
	// timer on Now. It is how Price waits for sources to be final (WaitFinal): a test's fake
	// clock moves to until and returns at once.
	Wait func(ctx context.Context, until time.Time) error
	// Ledger keeps every bar the sources return, and every quote is derived from it (the fetch
	// only fills it): the history store every process on it shares, or nil for a MemoryLedger
	// of the reconciler's own.
	Ledger Ledger
}

// Member is one source of the spec as the reconciler holds it.
type Member struct {
	Name    string
	Source  sources.Source // nil when skipped
	Missing string         // why it is skipped: its key variable is unset
}

// Config is what a Reconciler reconciles with: the spec's rules, feeds and splits, and its
// sources built.
type Config struct {
	Rules   Rules
	Feeds   []Feed
	Splits  Splits
	Members []Member // in spec order; every Result has one Quote per member
}

// Reconciler prices a symbol at a minute from every source of its feed at once.
type Reconciler struct {
	cfg    Config
	deps   Deps
	ledger Ledger
	// inflight counts the fetches running, those a Price that stopped early left behind too
	inflight sync.WaitGroup
	// unit is the request a fetch asks around a minute: Unit (a benchmark's reference asks as
	// pricerig did before the ledger)
	unit func(cov sources.Coverage, t time.Time) market.Span
}

// Drain waits for the fetches a Price that stopped on an early quorum left running (each ends
// by its round's deadline): a process about to exit lets them keep their bars in the ledger.
func (r *Reconciler) Drain() { r.inflight.Wait() }

// NewReconciler builds a reconciler over sources already built (tests, or hosts that build
// their own).
func NewReconciler(cfg Config, d Deps) *Reconciler {
	d.Deps = d.Deps.WithDefaults()
	if d.Wait == nil {
		now := d.Now
		d.Wait = func(ctx context.Context, until time.Time) error { return sleepUntil(ctx, now, until) }
	}
	ledger := d.Ledger
	if ledger == nil {
		ledger = NewMemoryLedger()
	}
	return &Reconciler{cfg: cfg, deps: d, ledger: ledger, unit: Unit}
}

// sleepUntil waits on a real timer until now() reads until.
func sleepUntil(ctx context.Context, now func() time.Time, until time.Time) error {
	for {
		d := until.Sub(now())
		if d <= 0 {
			return nil
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// New builds the sources of a loaded spec and a reconciler over them.
func New(spec *Spec, d Deps) (*Reconciler, error) {
	members, err := BuildSources(spec, d.Deps)
	if err != nil {
		return nil, err
	}
	return NewReconciler(Config{Rules: spec.Rules, Feeds: spec.Feeds, Splits: spec.Splits, Members: members}, d), nil
}

// BuildSources builds every usable source of a spec with its type's factory; skipped sources come
// back with Source nil and Missing set.
func BuildSources(spec *Spec, d sources.Deps) ([]Member, error) {
	out := make([]Member, 0, len(spec.Sources))
	for _, s := range spec.Sources {
		m := Member{Name: s.Name, Missing: s.Missing}
		if s.Usable() {
			src, err := BuildSource(s, d)
			if err != nil {
				return nil, err
			}
			m.Source = src
		}
		out = append(out, m)
	}
	return out, nil
}

// BuildSource builds one source of a spec with its type's factory.
func BuildSource(s SourceSpec, d sources.Deps) (sources.Source, error) {
	if !s.Usable() {
		return nil, fmt.Errorf("source %s is skipped: %s", s.Name, s.Missing)
	}
	f, ok := sources.Lookup(s.Type)
	if !ok {
		return nil, fmt.Errorf("source %s: unknown type %q", s.Name, s.Type)
	}
	src, err := f.New(s.Settings, d)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", s.Name, err)
	}
	return src, nil
}

// Rules returns the reconcile rules.
func (r *Reconciler) Rules() Rules { return r.cfg.Rules }

// Feed returns the feed of a symbol.
func (r *Reconciler) Feed(symbol string) (Feed, bool) {
	for _, f := range r.cfg.Feeds {
		if f.Symbol == symbol {
			return f, true
		}
	}
	return Feed{}, false
}

// Source returns a built source by name; nil when unknown or skipped.
func (r *Reconciler) Source(name string) sources.Source {
	for _, m := range r.cfg.Members {
		if m.Name == name {
			return m.Source
		}
	}
	return nil
}

// Members lists the sources in spec order.
func (r *Reconciler) Members() []Member { return slices.Clone(r.cfg.Members) }

// PriceOption changes one Price call.
type PriceOption func(*priceOptions)

type priceOptions struct {
	earlyQuorum int
	until       time.Time // answer by then, waiting for finality; zero: do not wait
	lastResort  bool
}

// WaitFinal makes Price wait for sources that are not final yet (StatusNotFinal), answering by
// until (the reconciler's clock): each is asked again when its final_after passes, if that round
// (up to the rules' deadline) can end by until, and Price answers as soon as enough final prices
// agree (the early quorum over the final ones, as the fetch stops early) or every source is
// final. Without it Price makes one round of requests and reports the sources not final yet.
func WaitFinal(until time.Time) PriceOption { return func(o *priceOptions) { o.until = until } }

// LastResort, with WaitFinal, is a rig's answer at its commit deadline: when sources are still
// not final by then, they are asked once more at the last moment a round can end by until, and
// if the final prices give no answer (fewer than min_sources), the provisional bars count too
// (ReconcileProvisional): the Result says Unsettled and Provisional.
func LastResort() PriceOption { return func(o *priceOptions) { o.lastResort = true } }

// WaitAll makes Price wait for every source (or the deadline): it never stops early, neither on
// an early quorum nor when no answer is possible any more. The rig's self-check wants every
// source's price for the expected median.
func WaitAll() PriceOption { return func(o *priceOptions) { o.earlyQuorum = WaitForAll } }

// EarlyQuorum overrides Rules.EarlyQuorum for one call.
func EarlyQuorum(n int) PriceOption { return func(o *priceOptions) { o.earlyQuorum = n } }

// Aligned reports whether t is a whole UTC minute.
func Aligned(t time.Time) bool { return t.Equal(t.Truncate(time.Minute)) }

// task is one source to ask.
type task struct {
	idx      int
	src      sources.Source
	symbol   string           // the provider's
	feed     string           // the feed's symbol: the ledger's
	known    []market.Session // the source's sessions among the rules': where it can say a minute had no trade
	from, to time.Time        // the minutes around the one asked the quote reads: [from, to)
	floor    time.Time        // how far back a carry reaches: max_carry, the lookback, MaxWindow before from
	adjusted bool             // the source returns split-adjusted prices
	splits   []Split          // the feed's splits, to undo the adjustment
	cov      sources.Coverage
}

// Price reconciles the price of symbol at minute.
//
// Which sources are asked: those of the symbol's feed that have their keys, whose coverage
// includes the session of the effective minute (the minute itself, or for a minute outside the
// configured sessions the last in-session minute before it, within max_carry), whose 1-minute
// history reaches back that far and whose publication delay has passed. The others get a
// not_covered or no_key quote.
//
// Each asked source's quote is derived from the bar ledger (Deps.Ledger), which is asked first:
// a source is asked only for what the ledger does not know final. Then it gets one request for
// the provider's request unit around the effective minute (its New York date, or the run of
// dates or the month the provider answers at once; of a day still growing, the rest from its
// last final bar), clipped to its lookback and to what its delay lets it serve, and, only when
// the price needs a carry from before what that held, a second one reaching back to max_carry
// (clipped to its lookback and to MaxWindow before the window). A Saturday minute thus costs one
// request per source, Friday's date, and a minute whose sources' dates the ledger holds final
// costs none.
//
// When to stop: every source answered; or the deadline passed (the rest are pending); or, early,
// the priced answers number at least the early quorum — max(min_sources, early_quorum, or a
// majority of the asked sources when early_quorum is 0) but never more than the asked sources —
// and every one of them lies within outlier_bps of their lower median (the rest are pending); or
// no answer can be reached any more (priced + still running < min_sources).
//
// The error is ErrUnaligned, ErrUnknownSymbol or ErrNotClosed for a minute that cannot be asked
// (with an empty Result), and ErrTooOld or ErrNoAnswer (wrapped, with the reason) alongside a
// full Result when the sources gave no answer.
func (r *Reconciler) Price(ctx context.Context, symbol string, minute time.Time, opts ...PriceOption) (Result, error) {
	o := priceOptions{earlyQuorum: r.cfg.Rules.EarlyQuorum}
	for _, opt := range opts {
		opt(&o)
	}
	rules := r.cfg.Rules
	minute = minute.UTC()
	if !Aligned(minute) {
		return Result{}, fmt.Errorf("%w: %s", ErrUnaligned, minute.Format(time.RFC3339Nano))
	}
	if minute.UTC().Year() < market.FirstYear {
		return Result{}, fmt.Errorf("%w: %s", ErrBeforeCalendar, minute.UTC().Format(time.RFC3339))
	}
	feed, ok := r.Feed(symbol)
	if !ok {
		return Result{}, fmt.Errorf("%w %q (the spec has %s)", ErrUnknownSymbol, symbol, strings.Join(r.symbols(), ", "))
	}
	now := r.deps.Now().UTC()
	if closes := minute.Add(time.Minute); closes.After(now) {
		return Result{}, fmt.Errorf("%w: the minute %s closes at %s, and it is %s", ErrNotClosed,
			minute.Format(time.RFC3339), closes.Format(time.RFC3339), now.Format(time.RFC3339))
	}

	res := Result{Symbol: symbol, Minute: minute}
	quotes := make([]Quote, len(r.cfg.Members))
	for i, m := range r.cfg.Members {
		quotes[i] = Quote{Source: m.Name, DistanceCentiBps: -1}
		quotes[i].Symbol, _ = feed.ProviderSymbol(m.Name)
	}
	effective := minute
	if !market.InSessions(minute, rules.Sessions) {
		prev, ok := market.PrevSessionMinute(minute, rules.Sessions, rules.MaxCarry)
		if !ok {
			for i := range quotes {
				quotes[i].Status = StatusNotCovered
				quotes[i].Err = "no minute of the configured sessions within max_carry"
			}
			res.Quotes = quotes
			res.Reason = fmt.Sprintf("the minute is outside the sessions (%s) and none ran in the %s before it", sessionList(rules.Sessions), rules.MaxCarry)
			return res, fmt.Errorf("%w: %s", ErrNoAnswer, res.Reason)
		}
		effective = prev.UTC()
	}
	session, _ := market.SessionAt(effective)
	res.Effective, res.Session = effective, session

	tasks, candidates, tooOld := r.plan(feed, quotes, minute, effective, session, now)
	if len(tasks) == 0 && candidates > 0 && tooOld == candidates {
		res.Quotes = quotes
		res.Reason = "the minute is older than the 1-minute history of every source"
		return res, fmt.Errorf("%w: %s", ErrTooOld, minute.Format(time.RFC3339))
	}

	early := r.settle(ctx, tasks, quotes, minute, effective, o)
	final := Reconcile(quotes, rules)
	unsettled := len(final.NotFinal()) > 0 && !finalQuorum(final.Quotes, tasks, o.earlyQuorum, rules)
	if !final.Agreed && o.lastResort && unsettled {
		if best := ReconcileProvisional(quotes, rules); best.Agreed {
			final = best
		}
	}
	final.Unsettled = unsettled
	final.Symbol, final.Minute, final.Effective, final.Session, final.Early = symbol, minute, effective, session, early
	for _, q := range final.Quotes {
		r.deps.Logger.Debug("quote", slog.String("symbol", symbol), slog.Time("minute", minute),
			slog.String("source", q.Source), slog.String("status", string(q.Status)),
			slog.String("price", q.Price.String()), slog.String("err", q.Err), slog.String("error_kind", string(q.Kind)),
			slog.Duration("latency", q.Latency))
	}
	if !final.Agreed {
		if len(tasks) == 0 {
			final.Reason = "no source of the feed can answer this minute"
		}
		if waiting := final.NotFinal(); len(waiting) > 0 {
			final.Reason = notFinalReason(final, r.deps.Now())
			return final, fmt.Errorf("%w: %s", ErrNotFinal, final.Reason)
		}
		return final, fmt.Errorf("%w: %s", ErrNoAnswer, final.Reason)
	}
	return final, nil
}

func (r *Reconciler) symbols() []string {
	out := make([]string, len(r.cfg.Feeds))
	for i, f := range r.cfg.Feeds {
		out[i] = f.Symbol
	}
	return out
}

// plan decides which sources to ask and fills in the quotes of the others. candidates counts
// the sources of the feed with keys that cover the session; tooOld those of them whose history
// does not reach the minute.
func (r *Reconciler) plan(feed Feed, quotes []Quote, minute, effective time.Time, session market.Session, now time.Time) (tasks []task, candidates, tooOld int) {
	rules := r.cfg.Rules
	for i, m := range r.cfg.Members {
		q := &quotes[i]
		if q.Symbol == "" {
			q.Status, q.Err = StatusNotCovered, "not in the "+feed.Symbol+" feed"
			continue
		}
		if m.Source == nil {
			q.Status, q.Err = StatusNoKey, m.Missing
			if q.Err == "" {
				q.Err = "the source is not configured"
			}
			continue
		}
		cov := m.Source.Coverage()
		if !cov.Covers(session) {
			q.Status, q.Err = StatusNotCovered, fmt.Sprintf("covers %s, not the %s session", sessionList(cov.Sessions), session)
			continue
		}
		candidates++
		var lb time.Time
		if cov.Lookback > 0 {
			lb = ceilMinute(now.Add(-cov.Lookback))
			if effective.Before(lb) {
				tooOld++
				q.Status, q.Err = StatusNotCovered, fmt.Sprintf("its 1-minute history reaches back %s, to %s", cov.Lookback, lb.Format(time.RFC3339))
				continue
			}
		}
		if ready := effective.Add(time.Minute + cov.Delay); ready.After(now) {
			q.Status, q.Err = StatusNotCovered, fmt.Sprintf("publishes a minute %s after it closes; this one is ready at %s", cov.Delay, ready.Format(time.RFC3339))
			continue
		}
		t := task{
			idx: i, src: m.Source, symbol: q.Symbol, feed: feed.Symbol, known: market.IntersectSessions(cov.Sessions, rules.Sessions),
			from: effective.Add(-rules.Window), to: effective.Add(time.Minute),
			floor:    minute.Add(-rules.MaxCarry),
			adjusted: cov.Adjustment == sources.SplitAdjusted || cov.Adjustment == sources.SplitDividendAdjusted,
			splits:   r.cfg.Splits[feed.Symbol],
			cov:      cov,
		}
		if !cov.Final(effective, now) {
			// a fresh minute: ask up to now as well, since a later bar is what shows that the
			// source published past a minute it has no bar at (Derive)
			t.to = latest(t.to, now.Truncate(time.Minute))
		}
		if t.from.Before(lb) {
			t.from = lb
		}
		if t.floor.Before(lb) {
			t.floor = lb
		}
		if cov.MaxWindow > 0 && t.floor.Before(t.from.Add(-cov.MaxWindow)) {
			t.floor = t.from.Add(-cov.MaxWindow)
		}
		tasks = append(tasks, t)
	}
	return tasks, candidates, tooOld
}

func ceilMinute(t time.Time) time.Time {
	m := t.Truncate(time.Minute)
	if m.Before(t) {
		m = m.Add(time.Minute)
	}
	return m
}

func sessionList(ss []market.Session) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}
