package backfill

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// ErrBadInput marks the errors of a backfill that cannot start: an empty or reversed range, an
// unknown symbol or source. Nothing was fetched or written.
var ErrBadInput = errors.New("bad input")

// InputError is the error of a backfill that cannot start (errors.Is(err, ErrBadInput)); Msg
// says what is wrong, for a host that words "bad input" its own way.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return ErrBadInput.Error() + ": " + e.Msg }

func (e *InputError) Unwrap() error { return ErrBadInput }

func badInput(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// Options describe one backfill.
type Options struct {
	Spec *feeds.Spec
	// Symbols are the feed symbols to fill; nil means every feed of the spec.
	Symbols []string
	// Sources are the sources to ask, by name; nil means every source of the spec. What the
	// store holds of the others still counts in the answers.
	Sources []string
	// Sessions are the sessions whose minutes are reconciled (and whose bars count); nil means
	// the spec's reconcile sessions.
	Sessions []market.Session
	// From and To bound the range [From, To); both must be whole minutes.
	From, To time.Time
	// Clock is what the backfill reads and waits on; nil means the wall clock. The sources get
	// its Now too.
	Clock Clock
	// Deps are handed to the sources (Logger, Transport); Now is replaced by Clock.Now.
	Deps sources.Deps
	// Logger receives warnings about the run; nil means Deps.Logger.
	Logger *slog.Logger
	// OnWindow, if set, is called after each window is committed to the store, and after each
	// page of a paged provider's window.
	OnWindow func(WindowDone)
}

// WindowDone describes a window just committed, or a page of one (Page): its bars and requests
// are the page's, and More says the window has pages still to come.
type WindowDone struct {
	Source   string
	Symbols  []string
	Span     history.Span
	Bars     int
	Requests int
	LeadIn   bool
	Page     bool
	More     bool
}

// Check is what New refuses as bad input, without a store: the range, the symbols, the sources
// and whether any source serves a minute of the range. A command runs it before it creates the
// store's file, so refused input leaves nothing behind.
func Check(o Options) error {
	_, err := prepare(o)
	return err
}

// prepare validates the options and builds the sources.
func prepare(o Options) (*Backfill, error) {
	if o.Spec == nil {
		return nil, badInput("no spec")
	}
	if o.Clock == nil {
		o.Clock = RealClock{}
	}
	if o.Logger == nil {
		o.Logger = o.Deps.Logger
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	b := &Backfill{opts: o, clock: o.Clock, log: o.Logger, now: o.Clock.Now().UTC(), feeds: map[string]feeds.Feed{}, jobs: map[*member][]job{}}
	b.phase.Store("plan")
	if err := b.validate(); err != nil {
		return nil, err
	}
	if err := b.build(); err != nil {
		return nil, err
	}
	if err := b.served(); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *Backfill) validate() error {
	o := &b.opts
	from, to := o.From.UTC(), o.To.UTC()
	switch {
	case from.IsZero() || to.IsZero():
		return badInput("both ends of the range are needed")
	case !feeds.Aligned(from) || !feeds.Aligned(to):
		return badInput("the range must start and end on whole minutes (got %s … %s)", from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano))
	case to.Equal(from):
		return badInput("empty range: it starts and ends at %s", from.Format(time.RFC3339))
	case to.Before(from):
		return badInput("reversed range: it ends at %s, before it starts at %s", to.Format(time.RFC3339), from.Format(time.RFC3339))
	}
	if from.Year() < market.FirstYear {
		return badInput("the range starts at %s, before %d, the first year of the market calendar", from.Format(time.RFC3339), market.FirstYear)
	}
	o.From, o.To = from, to
	spec := o.Spec
	b.rules = spec.Rules
	if len(o.Sessions) > 0 {
		b.rules.Sessions = slices.Clone(o.Sessions)
	}
	if !from.Before(b.now.Truncate(time.Minute)) {
		return badInput("the range starts at %s, and no minute of it has closed yet (it is %s)", from.Format(time.RFC3339), b.now.Format(time.RFC3339))
	}
	// --to may name today (a date includes itself whole); past the end of today it is a typo
	if end := market.NYMidnight(market.NYDate(b.now).AddDate(0, 0, 1)); to.After(end) {
		return badInput("the range reaches into the future: it ends at %s, and today (New York) ends at %s", to.Format(time.RFC3339), end.Format(time.RFC3339))
	}
	if !market.HasSessionMinute(from, to, b.rules.Sessions) {
		return badInput("the range %s … %s holds no minute of the %s sessions", from.Format(time.RFC3339), to.Format(time.RFC3339), sessionNames(b.rules.Sessions))
	}
	b.symbols = o.Symbols
	if len(b.symbols) == 0 {
		b.symbols = spec.Symbols()
	}
	seen := map[string]bool{}
	for _, s := range b.symbols {
		f, ok := spec.Feed(s)
		if !ok {
			return badInput("unknown symbol %q (the spec has %s)", s, strings.Join(spec.Symbols(), ", "))
		}
		if seen[s] {
			return badInput("symbol %s is listed twice", s)
		}
		seen[s] = true
		b.feeds[s] = f
	}
	for _, name := range o.Sources {
		if _, ok := spec.Source(name); !ok {
			names := make([]string, len(spec.Sources))
			for i, s := range spec.Sources {
				names[i] = s.Name
			}
			return badInput("unknown source %q (the spec has %s)", name, strings.Join(names, ", "))
		}
	}
	return nil
}
