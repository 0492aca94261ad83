package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/redact"
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
	Span     Span
	Bars     int
	Requests int
	LeadIn   bool
	Page     bool
	More     bool
}

// Lookback margin: a source whose history reaches back a fixed span from now (29 days, say)
// is not asked for the hour at the very edge, which the clock will have passed by the time a long
// run gets to it.
const lookbackMargin = time.Hour

// member is one source of the spec as the backfill holds it.
type member struct {
	name, typ string
	ord       int
	selected  bool   // named by Options.Sources (or all)
	missing   string // why it is unusable: its key is unset
	src       sources.Source
	multi     sources.Batcher
	pager     sources.Pager // when its provider pages (Coverage.Paged): asked a span whole
	cov       sources.Coverage
	rate      sources.Rate
	pol       policy
	pacer     *pacer
	sessions  []market.Session // its sessions ∩ the requested ones
	liveLB    time.Time        // the oldest minute its history holds now (zero: no limit)
	planLB    time.Time        // the oldest minute the backfill asks for
	ready     time.Time        // minutes before this are published
	adjusted  bool

	// progress
	planned, done, failed atomic.Int64
	bars                  atomic.Int64
	finished              atomic.Bool

	mu        sync.Mutex
	started   time.Time               // when its first window began
	gaps      []Gap                   // parts of the range it cannot or did not give
	failures  map[string][]failedSpan // by symbol, the windows that failed this run
	unknown   map[string]string       // symbols the source said it does not know, and its words
	fetched   map[string]bool         // symbols with a window stored this run
	leadIns   int
	leadInReq int
	windows   int
	minReq    int
	stats     minuteStats
	fatal     failure // set when the source failed as a whole (unauthorized)
}

// failure is why a window failed: the error as a gap states it, and its kind, which is what
// readers (the summary's gaps, the stored quotes) tell failures apart by.
type failure struct {
	reason string
	kind   sources.ErrorKind
}

type failedSpan struct {
	Span
	failure
}

// job is one window to fetch.
type job struct {
	span    Span
	symbols []string // feed symbols; more than one is a batch
	leadIn  bool
	pages   int    // a paged provider's window: the pages it can take at most (progress)
	resume  string // a paged window stopped by an earlier run: the provider's token to go on from
	// the resumed window's bars and requests over the pages committed before (by whichever
	// process), so its record ends with the totals a run without the stop would write
	doneBars, doneRequests int
}

// Backfill fills a store from the sources of a spec.
type Backfill struct {
	store   *Store
	opts    Options
	clock   Clock
	log     *slog.Logger
	now     time.Time // the instant the plan is made for
	rules   feeds.Rules
	symbols []string
	feeds   map[string]feeds.Feed
	members []*member // spec order
	jobs    map[*member][]job

	phase          atomic.Value // string
	minutes, total atomic.Int64
}

// New validates the options, builds the sources and plans the windows still missing from the
// store. An error wrapping ErrBadInput means the options are at fault.
func New(store *Store, o Options) (*Backfill, error) {
	return NewContext(context.Background(), store, o)
}

// NewContext is New with a context: planning stops when ctx is cancelled (with ctx's error).
func NewContext(ctx context.Context, store *Store, o Options) (*Backfill, error) {
	b, err := prepare(o)
	if err != nil {
		return nil, err
	}
	b.store = store
	if err := b.plan(ctx); err != nil {
		return nil, err
	}
	return b, nil
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
	if end := nyMidnight(nyDate(b.now).AddDate(0, 0, 1)); to.After(end) {
		return badInput("the range reaches into the future: it ends at %s, and today (New York) ends at %s", to.Format(time.RFC3339), end.Format(time.RFC3339))
	}
	if !hasSessionMinute(from, to, b.rules.Sessions) {
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

// build makes a member of every spec source and builds the selected, usable ones behind a pacer.
// A usable source left out with Options.Sources is not asked, but what the store holds of it
// still counts in the answers: --sources chooses whom to fetch from, not whom to believe.
func (b *Backfill) build() error {
	o := b.opts
	usable := 0
	for i, ss := range o.Spec.Sources {
		m := &member{name: ss.Name, typ: ss.Type, ord: i, missing: ss.Missing, failures: map[string][]failedSpan{}, unknown: map[string]string{}, fetched: map[string]bool{}}
		m.selected = len(o.Sources) == 0 || slices.Contains(o.Sources, ss.Name)
		m.rate = ss.Rate
		m.cov = ss.Coverage // what the loader's trial build reported; replaced by the built source's
		b.members = append(b.members, m)
		if !ss.Usable() {
			continue
		}
		if m.selected {
			m.pacer = newPacer(o.Deps.Transport, b.clock, ss.Rate)
			one := ss
			one.Settings.Rate = unpaced // the pacer holds the source to ss.Rate
			deps := o.Deps
			deps.Now = b.clock.Now
			deps.Transport = m.pacer
			built, err := feeds.BuildSources(&feeds.Spec{Sources: []feeds.SourceSpec{one}}, deps)
			if err != nil {
				return err
			}
			m.src = built[0].Source
			m.multi, _ = m.src.(sources.Batcher)
			m.cov = m.src.Coverage()
			if m.cov.Paged {
				m.pager, _ = m.src.(sources.Pager)
			}
			usable++
		}
		m.cov.Rate = ss.Rate
		m.pol = policyOf(m.cov)
		if m.src != nil && m.pager == nil {
			m.pol.paged = false // declared paged but cannot hand its pages: windows of one request
		}
		m.sessions = intersectSessions(m.cov.Sessions, b.rules.Sessions)
		m.adjusted = m.cov.Adjustment == sources.SplitAdjusted || m.cov.Adjustment == sources.SplitDividendAdjusted
		if m.cov.Lookback > 0 {
			m.liveLB = ceilMinute(b.now.Add(-m.cov.Lookback))
			m.planLB = ceilMinute(b.now.Add(-m.cov.Lookback + lookbackMargin))
		}
		if since := ceilMinute(m.cov.Since.UTC()); !m.cov.Since.IsZero() && since.After(m.planLB) {
			m.liveLB, m.planLB = since, since
		}
		// a minute is stored once its bar is out (Delay) and final (FinalAfter): a provisional
		// bar kept as an answer is what `price --db` would then serve
		m.ready = b.now.Add(-max(m.cov.Delay, m.cov.FinalAfter)).Truncate(time.Minute)
	}
	if usable == 0 {
		var why []string
		for _, m := range b.members {
			if m.selected && m.missing != "" {
				why = append(why, m.name+": "+m.missing)
			}
		}
		if len(why) == 0 {
			return badInput("no source to ask")
		}
		return badInput("no usable source (%s)", strings.Join(why, "; "))
	}
	return nil
}

// reach says how far back a member's 1-minute history reaches.
// unready says why the member's minutes from m.ready on are not asked yet: not published, or
// not final.
func (m *member) unready() string {
	if m.cov.FinalAfter > m.cov.Delay {
		return fmt.Sprintf("its bar of a minute is final %s after it closes", m.cov.FinalAfter)
	}
	return fmt.Sprintf("it publishes a minute %s after it closes", m.cov.Delay)
}

func (m *member) reach() string {
	if m.cov.Lookback > 0 && !m.liveLB.After(ceilMinute(m.cov.Since.UTC())) {
		return fmt.Sprintf("reaches back %s, to %s", days(m.cov.Lookback), m.liveLB.Format(time.RFC3339))
	}
	return "begins at " + m.liveLB.Format(time.RFC3339)
}

// served refuses a range no selected source can serve a minute of: all of it before every
// source's history, or not yet published by any. Checked before a store is touched, it spares
// the run planning and asking for nothing.
func (b *Backfill) served() error {
	var why []string
	for _, m := range b.members {
		if !m.selected || m.src == nil {
			continue
		}
		from, to := maxTime(b.opts.From, m.liveLB), minTime(b.opts.To, m.ready)
		if len(m.sessions) > 0 && from.Before(to) && hasSessionMinute(from, to, m.sessions) {
			return nil
		}
		switch {
		case len(m.sessions) == 0:
			why = append(why, fmt.Sprintf("%s covers %s", m.name, sessionNames(m.cov.Sessions)))
		case !m.liveLB.IsZero() && !b.opts.To.After(m.liveLB):
			why = append(why, fmt.Sprintf("%s's 1-minute history %s", m.name, m.reach()))
		default:
			why = append(why, fmt.Sprintf("%s: %s", m.name, m.unready()))
		}
	}
	return badInput("no source serves a minute of %s … %s (%s)", b.opts.From.Format(time.RFC3339), b.opts.To.Format(time.RFC3339), strings.Join(why, "; "))
}

// need is the part of the range a member is asked for for one symbol, and the parts it cannot
// give: before its history, or not published yet.
func (b *Backfill) need(m *member, symbol string) (Span, []Gap, bool) {
	var gaps []Gap
	from, to := b.opts.From, minTime(b.opts.To, b.now.Truncate(time.Minute))
	if len(m.sessions) == 0 {
		gaps = append(gaps, Gap{Symbol: symbol, From: from, To: to, Reason: fmt.Sprintf("covers %s, none of the requested sessions", sessionNames(m.cov.Sessions))})
		return Span{}, gaps, false
	}
	if !m.planLB.IsZero() && from.Before(m.planLB) {
		if g, ok := trimToSessions(from, minTime(m.planLB, to), m.sessions); ok {
			gaps = append(gaps, Gap{Symbol: symbol, From: g.From, To: g.To, Reason: "before its 1-minute history (it " + m.reach() + ")"})
		}
		from = m.planLB
	}
	if m.ready.Before(to) {
		if g, ok := trimToSessions(maxTime(from, m.ready), to, m.sessions); ok {
			gaps = append(gaps, Gap{Symbol: symbol, From: g.From, To: g.To, Reason: "not published or not final yet (" + m.unready() + ")"})
		}
		to = m.ready
	}
	if !from.Before(to) {
		return Span{}, gaps, false
	}
	span, ok := trimToSessions(from, to, m.sessions)
	return span, gaps, ok
}

// plan lists, for every member, the windows of the range it has not fetched yet.
func (b *Backfill) plan(ctx context.Context) error {
	for _, m := range b.members {
		if !m.selected {
			continue
		}
		if m.src == nil {
			for _, sym := range b.symbols {
				if _, in := b.feeds[sym].ProviderSymbol(m.name); in {
					m.addGap(Gap{Symbol: sym, From: b.opts.From, To: b.opts.To, Reason: "skipped: " + m.missing})
				}
			}
			continue
		}
		// the batch a source that fetches several symbols at once will most likely make
		batch := 1
		if m.multi != nil {
			batch = 0
			for _, sym := range b.symbols {
				if _, in := b.feeds[sym].ProviderSymbol(m.name); in {
					batch++
				}
			}
		}
		missing, asked := map[string][]Span{}, map[string][]Span{}
		claimed, err := b.resumeCursors(ctx, m)
		if err != nil {
			return err
		}
		for _, sym := range b.symbols {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, in := b.feeds[sym].ProviderSymbol(m.name); !in {
				continue
			}
			want, cannot, ok := b.need(m, sym)
			for _, g := range cannot {
				m.addGap(g)
			}
			if !ok {
				continue
			}
			raw, err := b.store.Coverage(ctx, m.name, sym)
			if err != nil {
				return err
			}
			cov := merge(append(raw, claimed[sym]...), m.sessions) // a stopped window goes on as its own job
			gaps := cov.missing(want, m.sessions)
			if len(gaps) == 0 {
				continue
			}
			asked[sym] = gaps
			// The first minutes of the range may need a bar from before it to carry. When the
			// windows have room to reach back that far for free (a calendar month, or the slack
			// ceil(span / max) leaves), take it now rather than a lead-in request later. A paged
			// provider's bars before the range would fill its pages: it is not widened (a lead-in
			// asks for the carry only if the first minute has no bar).
			reach := Span{b.reachStart(m, want.From, m.planLB), want.To}
			if wide := cov.missing(reach, m.sessions); !m.pol.paged && len(wide) > 0 && b.count(m, wide, batch) == b.count(m, gaps, batch) {
				gaps = wide
			}
			missing[sym] = gaps
		}
		b.addJobs(m, missing, asked, false)
	}
	return nil
}

// resumeCursors turns the windows a paged provider stopped between two pages in an earlier run
// into jobs that go on with the same request from the provider's token, and returns, by symbol,
// the spans those jobs will prove: the planner leaves them out of the missing. A stopped window
// whose symbols are not all asked for this run is left to the coverage (the missing parts are
// asked anew).
func (b *Backfill) resumeCursors(ctx context.Context, m *member) (map[string][]Span, error) {
	claimed := map[string][]Span{}
	if !m.pol.paged {
		return claimed, nil
	}
	cs, err := b.store.cursors(ctx, m.name)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		ok := true
		for _, sym := range c.symbols {
			if f, in := b.feeds[sym]; !in {
				ok = false
			} else if _, served := f.ProviderSymbol(m.name); !served {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, sym := range c.symbols {
			claimed[sym] = append(claimed[sym], c.span)
		}
		j := job{span: c.span, symbols: c.symbols, resume: c.next, pages: m.pol.pagesAtMost(c.span, len(c.symbols)),
			doneBars: c.bars, doneRequests: c.requests}
		b.jobs[m] = append(b.jobs[m], j)
		m.planned.Add(int64(j.pages))
	}
	return claimed, nil
}

// addJobs cuts the missing spans of each symbol into windows, batching symbols whose missing
// spans are the same when the source can fetch several at once. asked are the spans the range
// itself needs, before any free reach back for the carry: the minimum requests are theirs.
func (b *Backfill) addJobs(m *member, missing, asked map[string][]Span, leadIn bool) {
	var groups [][]string
	for _, sym := range b.symbols { // in the order asked, so batches are stable
		gaps, ok := missing[sym]
		if !ok {
			continue
		}
		joined := false
		if m.multi != nil {
			for i, g := range groups {
				if slices.Equal(missing[g[0]], gaps) && slices.Equal(asked[g[0]], asked[sym]) {
					groups[i] = append(groups[i], sym)
					joined = true
					break
				}
			}
		}
		if !joined {
			groups = append(groups, []string{sym})
		}
	}
	added := 0
	for _, g := range groups {
		for _, gap := range missing[g[0]] {
			for _, w := range m.pol.windows(gap, len(g), m.sessions) {
				j := job{span: w, symbols: g, leadIn: leadIn}
				if m.pol.paged {
					// progress counts a paged window's pages: at most one per page of minutes
					// until it is fetched, then the pages it took
					j.pages = m.pol.pagesAtMost(w, len(g))
				}
				b.jobs[m] = append(b.jobs[m], j)
				added += max(j.pages, 1)
			}
		}
		m.mu.Lock()
		m.minReq += b.minimum(m, asked[g[0]], len(g))
		m.mu.Unlock()
	}
	m.planned.Add(int64(added))
}

// count is how many windows a member's gaps cut into for a batch of n symbols.
func (b *Backfill) count(m *member, gaps []Span, n int) int {
	total := 0
	for _, g := range gaps {
		total += len(m.pol.windows(g, n, m.sessions))
	}
	return total
}

// minimum is the fewest requests the gaps allow for a batch of n symbols.
func (b *Backfill) minimum(m *member, gaps []Span, n int) int {
	total := 0
	for _, g := range gaps {
		total += m.pol.minRequests(g, n, m.sessions)
	}
	return total
}

// Run fetches the planned windows, then the lead-ins the range's first minutes need to carry a
// price, then reconciles every minute of the range into the store. Cancelling ctx stops it at a
// transaction boundary: the summary says Interrupted, and a re-run continues where it stopped.
func (b *Backfill) Run(ctx context.Context) (*Summary, error) {
	started := b.clock.Now()
	args, _ := json.Marshal(map[string]any{
		"from": b.opts.From, "to": b.opts.To, "symbols": b.symbols, "sources": b.opts.Sources,
		"sessions": b.rules.Sessions,
	})
	// the store's own writes outlive a cancel: a window fetched is a window kept
	bg := context.WithoutCancel(ctx)
	runID, err := b.store.beginRun(bg, started, string(args))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	sum := &Summary{From: b.opts.From, To: b.opts.To, Symbols: b.symbols, Sessions: sessionStrings(b.rules.Sessions)}
	finish := func(err error) (*Summary, error) {
		b.phase.Store("done")
		b.fill(sum)
		sum.Interrupted = ctx.Err() != nil
		sum.Elapsed = b.clock.Now().Sub(started)
		text, _ := json.Marshal(sum)
		if e := b.store.endRun(bg, runID, b.clock.Now(), string(text)); e != nil && err == nil {
			err = fmt.Errorf("store: %w", e)
		}
		return sum, err
	}

	b.phase.Store("fetch")
	err = b.fetchAll(ctx)
	if err == nil && ctx.Err() == nil {
		b.phase.Store("lead-in")
		if err = b.planLeadIns(bg); err == nil {
			err = b.fetchAll(ctx)
		}
	}
	sum.FetchTime = b.clock.Now().Sub(started)
	if err != nil || ctx.Err() != nil {
		return finish(err)
	}
	b.phase.Store("reconcile")
	err = b.reconcile(ctx, sum)
	sum.ReconcileTime = b.clock.Now().Sub(started) - sum.FetchTime
	if ctx.Err() != nil {
		return finish(nil)
	}
	return finish(err)
}

// fetchAll runs every member's jobs, one goroutine per source (its requests are sequential: the
// rate is per source, and it keeps the request count of each window exact), and one writer.
func (b *Backfill) fetchAll(ctx context.Context) error {
	results := make(chan fetchedWindow, 2) // a little slack; the writer is the backpressure
	var writeErr error
	written := make(chan struct{})
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(written)
		for w := range results {
			if writeErr != nil {
				continue
			}
			n, err := b.store.putWindow(context.WithoutCancel(ctx), w)
			if err != nil {
				writeErr = fmt.Errorf("store: %w", err)
				cancel() // no point fetching what cannot be written
				continue
			}
			m := b.member(w.source)
			m.done.Add(1)
			m.bars.Add(int64(n))
			m.mu.Lock()
			if w.leadIn {
				m.leadInReq += w.requests
			}
			if !w.more {
				m.windows++
				if w.leadIn {
					m.leadIns++
				}
				if w.page {
					// the provider's floor for this window: its bars over the page
					m.minReq += m.pol.floorOf(w.windowBars)
				}
			}
			for _, sym := range w.symbols {
				if !w.page || len(w.bars[sym]) > 0 || w.cover[sym].To.After(w.cover[sym].From) {
					m.fetched[sym] = true
				}
			}
			m.mu.Unlock()
			if b.opts.OnWindow != nil {
				b.opts.OnWindow(WindowDone{Source: w.source, Symbols: w.symbols, Span: w.span, Bars: n, Requests: w.requests, LeadIn: w.leadIn, Page: w.page, More: w.more})
			}
		}
	}()
	var wg sync.WaitGroup
	for _, m := range b.members {
		jobs := b.jobs[m]
		if len(jobs) == 0 {
			continue
		}
		delete(b.jobs, m)
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.work(stop, m, jobs, results)
		}()
	}
	wg.Wait()
	close(results)
	<-written
	return writeErr
}

func (b *Backfill) member(name string) *member {
	for _, m := range b.members {
		if m.name == name {
			return m
		}
	}
	panic("history: unknown member " + name)
}

// Retry limits of one window. The HTTP client has already retried short waits and 5xx; these
// cover a provider that asks for longer than the client waits.
const (
	maxRateRetries    = 8
	maxRateWait       = 15 * time.Minute // a longer "retry after" (a daily quota) ends the window: re-run later
	defaultRateWait   = time.Minute      // when a 429 does not say how long
	maxUnavailRetries = 1
)

// work fetches one member's jobs in order and hands each to the writer.
func (b *Backfill) work(ctx context.Context, m *member, jobs []job, out chan<- fetchedWindow) {
	m.mu.Lock()
	if m.started.IsZero() {
		m.started = b.clock.Now()
	}
	m.mu.Unlock()
	defer m.finished.Store(true)
	down := 0 // windows in a row the source could not be reached for
	for i, j := range jobs {
		if ctx.Err() != nil {
			return
		}
		if m.fatal.kind != "" {
			b.fail(m, j, m.fatal)
			continue
		}
		if reason, bad := m.badSymbol(j.symbols); bad {
			b.fail(m, j, failure{reason, sources.KindUnknownSymbol})
			continue
		}
		var w fetchedWindow
		var err error
		if m.pol.paged {
			j, err = b.fetchPaged(ctx, m, j, out)
			jobs[i] = j // on an error, what the window still missed
		} else {
			w, err = b.fetch(ctx, m, j)
		}
		if err != nil {
			if ctx.Err() != nil {
				return // interrupted: the window is not recorded, a re-run fetches it
			}
			f := failure{failReason(err), sources.KindOf(err)}
			if errors.Is(err, sources.ErrUnavailable) {
				down++
			} else {
				down = 0
			}
			switch {
			case errors.Is(err, sources.ErrUnauthorized) || errors.Is(err, sources.ErrNoKey):
				m.fatal = f
				for _, rest := range jobs[i:] {
					b.fail(m, rest, f)
				}
				return
			case down == maxDownWindows:
				// the source is down, not busy: every further window would cost the same retries
				m.fatal = failure{f.reason + fmt.Sprintf(" (%d windows in a row; not asked again this run)", down), f.kind}
				for _, rest := range jobs[i:] {
					b.fail(m, rest, m.fatal)
				}
				return
			case errors.Is(err, sources.ErrUnknownSymbol) && len(j.symbols) == 1:
				m.mu.Lock()
				m.unknown[j.symbols[0]] = f.reason
				m.mu.Unlock()
			}
			b.fail(m, j, f)
			continue
		}
		down = 0
		if m.pol.paged {
			continue // its pages went to the writer as they came
		}
		select {
		case out <- w:
		case <-ctx.Done():
			return
		}
	}
}

// maxDownWindows is how many windows in a row may fail as unavailable (timeouts, refused
// connections, 5xx after the client's retries) before the source is given up for the run.
const maxDownWindows = 3

var requestURL = regexp.MustCompile(`(Get|GET) "[^"]*": `)

// failReason is an error as a gap states it: without the request URL, which differs per window
// and would keep the gaps of consecutive windows that failed alike from reading as one.
func failReason(err error) string {
	return redact.String(requestURL.ReplaceAllString(err.Error(), ""))
}

// badSymbol reports whether a symbol of the batch was found unknown to the source earlier.
func (m *member) badSymbol(symbols []string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range symbols {
		if why, ok := m.unknown[s]; ok {
			return why, true
		}
	}
	return "", false
}

func (b *Backfill) fail(m *member, j job, f failure) {
	m.failed.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	// the gap is the part of the range the window was for (a window may reach back before it
	// for the carry)
	from, to := maxTime(j.span.From, b.opts.From), minTime(j.span.To, b.opts.To)
	for _, s := range j.symbols {
		m.failures[s] = append(m.failures[s], failedSpan{j.span, f})
		if from.Before(to) {
			m.gaps = append(m.gaps, Gap{Symbol: s, From: from, To: to, Reason: "failed: " + f.reason, Kind: f.kind})
		}
	}
	b.log.Warn("backfill window failed", "source", m.name, "symbols", strings.Join(j.symbols, ","),
		"from", j.span.From.Format(time.RFC3339), "to", j.span.To.Format(time.RFC3339), "error", f.reason, "error_kind", string(f.kind))
}

// fetch asks the source for one window, waiting out rate limits, and returns its bars raw.
func (b *Backfill) fetch(ctx context.Context, m *member, j job) (fetchedWindow, error) {
	before, _, _, _ := m.pacer.state()
	w := fetchedWindow{source: m.name, span: j.span, symbols: j.symbols, leadIn: j.leadIn}
	rateTries, unavailTries := 0, 0
	for {
		bars, err := b.call(ctx, m, j)
		if err == nil {
			w.bars = bars
			break
		}
		if ctx.Err() != nil {
			return w, ctx.Err()
		}
		var se *sources.Error
		errors.As(err, &se)
		switch {
		case errors.Is(err, sources.ErrNoData):
			w.bars = map[string][]sources.Bar{}
		case errors.Is(err, sources.ErrRateLimited) && rateTries < maxRateRetries:
			rateTries++
			wait := defaultRateWait
			if se != nil && se.RetryAfter > 0 {
				wait = se.RetryAfter
			}
			if wait > maxRateWait {
				return w, fmt.Errorf("%w (the provider asks to wait %s: re-run later)", err, wait)
			}
			// The pacer holds every later request of the source until then; the wait shows in the
			// progress estimate.
			m.pacer.hold(b.clock.Now().Add(wait))
			b.log.Info("backfill rate limited", "source", m.name, "wait", wait.String())
			continue
		case errors.Is(err, sources.ErrUnavailable) && unavailTries < maxUnavailRetries:
			unavailTries++
			if err := b.clock.Sleep(ctx, time.Duration(unavailTries)*5*time.Second); err != nil {
				return w, err
			}
			continue
		default:
			return w, err
		}
		break
	}
	after, _, _, _ := m.pacer.state()
	w.requests = after - before
	for _, sym := range j.symbols {
		bars, err := b.clean(m, sym, j.span, w.bars[sym])
		if err != nil {
			return w, err
		}
		w.bars[sym] = bars
	}
	return w, nil
}

// fetchPaged asks a paged provider for one window whole and hands each page to the writer as it
// arrives: the page's bars and the part of the window it proves, for each symbol, are committed
// in one transaction, so an interruption loses at most the page in flight and a re-run asks
// only for what no committed page proved. A rate limit or an outage mid-window is waited out the
// way fetch does, and the window is asked again from where its pages stopped. On an error the job
// returned is what the window still missed.
func (b *Backfill) fetchPaged(ctx context.Context, m *member, j job, out chan<- fetchedWindow) (left job, err error) {
	full := j
	windowBars, windowRequests, pages := j.doneBars, j.doneRequests, 0
	defer func() {
		// progress counted the most pages the window could take: it took pages (and one
		// more item, failed, when it failed)
		took := pages
		if err != nil {
			took++
		}
		m.planned.Add(int64(took - max(full.pages, 1)))
	}()
	// send commits a page: its bars and, by symbol, what the call's pages prove so far.
	send := func(w fetchedWindow) error {
		windowRequests += w.requests
		w.source, w.span, w.symbols, w.leadIn, w.page = m.name, full.span, full.symbols, full.leadIn, true
		w.windowBars, w.windowRequests = windowBars, windowRequests
		select {
		case out <- w:
			pages++
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	rateTries, unavailTries := 0, 0
	for {
		provs := make([]string, len(j.symbols))
		for i, sym := range j.symbols {
			provs[i], _ = b.feeds[sym].ProviderSymbol(m.name)
		}
		proven := map[string]Span{} // by symbol: what this call's pages prove
		before, _, _, _ := m.pacer.state()
		err = m.pager.Pages(ctx, provs, j.span.From, j.span.To, j.resume, func(p sources.Page) error {
			now, _, _, _ := m.pacer.state()
			w := fetchedWindow{bars: map[string][]sources.Bar{}, cover: map[string]Span{}, requests: now - before, next: p.Next}
			j.resume = p.Next
			before = now
			for i, sym := range j.symbols {
				bars, err := b.clean(m, sym, j.span, p.Bars[provs[i]])
				if err != nil {
					return err
				}
				w.bars[sym] = bars
				windowBars += len(bars)
				if c, ok := p.Proven[provs[i]]; ok {
					proven[sym] = Span{c.From.UTC(), c.To.UTC()}
					w.cover[sym] = proven[sym]
				}
				w.more = w.more || proven[sym] != j.span
			}
			return send(w)
		})
		if err == nil {
			return j, nil
		}
		if ctx.Err() != nil {
			return j, ctx.Err()
		}
		if j.resume == "" {
			// asked again for what the pages did not prove (with a token, the same request
			// goes on from the page after the last one kept)
			j = remaining(j, proven)
		}
		if len(j.symbols) == 0 {
			return j, nil
		}
		var se *sources.Error
		errors.As(err, &se)
		switch {
		case errors.Is(err, sources.ErrNoData):
			// nothing in what is left: proven empty, as fetch stores an empty window
			now, _, _, _ := m.pacer.state()
			w := fetchedWindow{bars: map[string][]sources.Bar{}, cover: map[string]Span{}, requests: now - before}
			for _, sym := range j.symbols {
				w.cover[sym] = j.span
			}
			return j, send(w)
		case errors.Is(err, sources.ErrRateLimited) && rateTries < maxRateRetries:
			rateTries++
			wait := defaultRateWait
			if se != nil && se.RetryAfter > 0 {
				wait = se.RetryAfter
			}
			if wait > maxRateWait {
				return j, fmt.Errorf("%w (the provider asks to wait %s: re-run later)", err, wait)
			}
			m.pacer.hold(b.clock.Now().Add(wait))
			b.log.Info("backfill rate limited", "source", m.name, "wait", wait.String())
		case errors.Is(err, sources.ErrUnavailable) && unavailTries < maxUnavailRetries:
			unavailTries++
			if err := b.clock.Sleep(ctx, time.Duration(unavailTries)*5*time.Second); err != nil {
				return j, err
			}
		default:
			return j, err
		}
	}
}

// remaining is the part of a paged window its committed pages did not prove: the symbols not
// proven whole, over the span that still misses something for any of them (pages prove a span
// from the window's start, or to its end when the provider pages backwards).
func remaining(j job, proven map[string]Span) job {
	out := job{leadIn: j.leadIn, pages: j.pages}
	for _, sym := range j.symbols {
		c, ok := proven[sym]
		var left Span
		switch {
		case !ok:
			left = j.span
		case c.From.After(j.span.From):
			left = Span{j.span.From, c.From}
		case c.To.Before(j.span.To):
			left = Span{c.To, j.span.To}
		default:
			continue // proven whole
		}
		if len(out.symbols) == 0 {
			out.span = left
		} else {
			out.span = Span{minTime(out.span.From, left.From), maxTime(out.span.To, left.To)}
		}
		out.symbols = append(out.symbols, sym)
	}
	return out
}

// call makes the source call of one job: one symbol, or a batch.
func (b *Backfill) call(ctx context.Context, m *member, j job) (map[string][]sources.Bar, error) {
	out := map[string][]sources.Bar{}
	if len(j.symbols) == 1 || m.multi == nil {
		for _, sym := range j.symbols {
			prov, _ := b.feeds[sym].ProviderSymbol(m.name)
			bars, err := m.src.Bars(ctx, prov, j.span.From, j.span.To)
			if err != nil {
				return nil, err
			}
			out[sym] = bars
		}
		return out, nil
	}
	provs := make([]string, len(j.symbols))
	for i, sym := range j.symbols {
		provs[i], _ = b.feeds[sym].ProviderSymbol(m.name)
	}
	got, err := m.multi.BarsMulti(ctx, provs, j.span.From, j.span.To)
	if err != nil {
		return nil, err
	}
	for i, sym := range j.symbols {
		out[sym] = got[provs[i]]
	}
	return out, nil
}

// clean brings a window's bars to what the store holds: inside the window, positive closes, raw
// (a split-adjusted source's prices multiplied back by the splits after each bar, as the live
// reconciler does).
func (b *Backfill) clean(m *member, symbol string, span Span, bars []sources.Bar) ([]sources.Bar, error) {
	if m.adjusted {
		var err error
		if bars, err = feeds.Unadjust(bars, b.opts.Spec.Splits[symbol], b.now); err != nil {
			return nil, fmt.Errorf("%s %s: %w", m.name, symbol, err)
		}
	}
	keep := func(bar sources.Bar) bool {
		return !bar.Start.Before(span.From) && bar.Start.Before(span.To) && bar.Close > 0 && bar.Volume >= 0 && feeds.Aligned(bar.Start)
	}
	// Nearly always every bar is kept: then the adapter's slice is the window's, not copied
	// (the copy was a page's worth of allocation and GC work). Only a window that drops a bar
	// gets a new slice, so the source's own slice is never rewritten.
	all := true
	for i := range bars {
		if bars[i].Start.Location() != time.UTC || !keep(bars[i]) {
			all = false
			break
		}
	}
	if all && bars != nil {
		return bars, nil
	}
	out := make([]sources.Bar, 0, len(bars))
	dropped := 0
	for _, bar := range bars {
		bar.Start = bar.Start.UTC()
		if keep(bar) {
			out = append(out, bar)
		} else {
			dropped++
		}
	}
	if dropped > 0 {
		b.log.Warn("backfill dropped bars outside the window or without a price", "source", m.name, "symbol", symbol, "dropped", dropped)
	}
	return out, nil
}

// reachStart is the oldest bar the live reconciler would carry into minute t from a member:
// max_carry back, but never before the source's history, nor further than its second request
// reaches (MaxWindow before the first one's start).
func (b *Backfill) reachStart(m *member, t, floor time.Time) time.Time {
	r := t.Add(-b.rules.MaxCarry)
	first := t.Add(-b.rules.Window)
	if !floor.IsZero() {
		r = maxTime(r, floor)
		first = maxTime(first, floor)
	}
	if m.cov.MaxWindow > 0 {
		r = maxTime(r, first.Add(-m.cov.MaxWindow))
	}
	return r
}

// planLeadIns finds the members whose first minute of the range has no bar and whose carry
// reaches before the fetched range, and plans the windows that reach back far enough.
func (b *Backfill) planLeadIns(ctx context.Context) error {
	for _, m := range b.members {
		if m.src == nil || m.fatal.kind != "" {
			continue
		}
		missing := map[string][]Span{}
		for _, sym := range b.symbols {
			if _, in := b.feeds[sym].ProviderSymbol(m.name); !in {
				continue
			}
			want, _, ok := b.need(m, sym)
			if !ok {
				continue
			}
			first := want.From
			covRaw, err := b.store.Coverage(ctx, m.name, sym)
			if err != nil {
				return err
			}
			cov := merge(covRaw, m.sessions)
			if _, ok := cov.find(first); !ok {
				continue // the first window failed: nothing to carry into
			}
			has, err := b.store.hasBar(ctx, sym, m.name, first)
			if err != nil {
				return err
			}
			if has {
				continue
			}
			lead := Span{b.reachStart(m, first, m.planLB), first}
			if gaps := cov.missing(lead, m.sessions); len(gaps) > 0 {
				missing[sym] = gaps
			}
		}
		if len(missing) > 0 {
			b.addJobs(m, missing, missing, true)
		}
	}
	return nil
}

func (m *member) addGap(g Gap) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gaps = append(m.gaps, g)
}

func sessionNames(ss []market.Session) string { return strings.Join(sessionStrings(ss), ", ") }

func sessionStrings(ss []market.Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// days prints a lookback as whole days when it is one (29 days), else as a duration.
func days(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		n := int(d / (24 * time.Hour))
		if n == 1 {
			return "1 day"
		}
		return fmt.Sprintf("%d days", n)
	}
	return d.String()
}
