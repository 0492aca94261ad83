package backfill

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

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
	history.Span
	failure
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
			// the pacer holds the source to its rate's pace before each request is sent (its
			// client asks it), and counts what is sent (its transport)
			m.pacer = newPacer(o.Deps.Transport, b.clock, ss.Rate)
			deps := o.Deps
			deps.Now = b.clock.Now
			deps.Transport = m.pacer
			deps.Pacer = m.pacer
			built, err := feeds.BuildSources(&feeds.Spec{Sources: []feeds.SourceSpec{ss}}, deps)
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
		m.sessions = market.IntersectSessions(m.cov.Sessions, b.rules.Sessions)
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

// unready says why the member's minutes from m.ready on are not asked yet: not published, or
// not final.
func (m *member) unready() string {
	if m.cov.FinalAfter > m.cov.Delay {
		return fmt.Sprintf("its bar of a minute is final %s after it closes", m.cov.FinalAfter)
	}
	return fmt.Sprintf("it publishes a minute %s after it closes", m.cov.Delay)
}

// reach says how far back a member's 1-minute history reaches.
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
		from, to := market.Later(b.opts.From, m.liveLB), market.Earlier(b.opts.To, m.ready)
		if len(m.sessions) > 0 && from.Before(to) && market.HasSessionMinute(from, to, m.sessions) {
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
func (b *Backfill) need(m *member, symbol string) (history.Span, []Gap, bool) {
	var gaps []Gap
	from, to := b.opts.From, market.Earlier(b.opts.To, b.now.Truncate(time.Minute))
	if len(m.sessions) == 0 {
		gaps = append(gaps, Gap{Symbol: symbol, From: from, To: to, Reason: fmt.Sprintf("covers %s, none of the requested sessions", sessionNames(m.cov.Sessions))})
		return history.Span{}, gaps, false
	}
	if !m.planLB.IsZero() && from.Before(m.planLB) {
		if g, ok := trimToSessions(from, market.Earlier(m.planLB, to), m.sessions); ok {
			gaps = append(gaps, Gap{Symbol: symbol, From: g.From, To: g.To, Reason: "before its 1-minute history (it " + m.reach() + ")"})
		}
		from = m.planLB
	}
	if m.ready.Before(to) {
		if g, ok := trimToSessions(market.Later(from, m.ready), to, m.sessions); ok {
			gaps = append(gaps, Gap{Symbol: symbol, From: g.From, To: g.To, Reason: "not published or not final yet (" + m.unready() + ")"})
		}
		to = m.ready
	}
	if !from.Before(to) {
		return history.Span{}, gaps, false
	}
	span, ok := trimToSessions(from, to, m.sessions)
	return span, gaps, ok
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

func (m *member) addGap(g Gap) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gaps = append(m.gaps, g)
}

func sessionNames(ss []market.Session) string { return strings.Join(market.SessionStrings(ss), ", ") }

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
