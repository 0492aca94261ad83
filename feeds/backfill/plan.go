package backfill

import (
	"context"
	"slices"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
)

// job is one window to fetch.
type job struct {
	span    history.Span
	symbols []string // feed symbols; more than one is a batch
	leadIn  bool
	pages   int    // a paged provider's window: the pages it can take at most (progress)
	resume  string // a paged window stopped by an earlier run: the provider's token to go on from
	// the resumed window's bars and requests over the pages committed before (by whichever
	// process), so its record ends with the totals a run without the stop would write
	doneBars, doneRequests int
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
		// what the store holds of the source, read at one instant: another process's page is
		// in it whole (its coverage and its cursor) or not at all
		held, err := b.store.Fetched(ctx, m.name)
		if err != nil {
			return err
		}
		missing, asked := map[string][]history.Span{}, map[string][]history.Span{}
		claimed := b.resumeCursors(m, held.Cursors)
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
			cov := history.Merge(append(held.Coverage[sym], claimed[sym]...), m.sessions) // a stopped window goes on as its own job
			gaps := cov.Missing(want, m.sessions)
			if len(gaps) == 0 {
				continue
			}
			asked[sym] = gaps
			// The first minutes of the range may need a bar from before it to carry. When the
			// windows have room to reach back that far for free (a calendar month, or the slack
			// ceil(span / max) leaves), take it now rather than a lead-in request later. A paged
			// provider's bars before the range would fill its pages: it is not widened (a lead-in
			// asks for the carry only if the first minute has no bar).
			reach := history.Span{From: b.reachStart(m, want.From, m.planLB), To: want.To}
			if wide := cov.Missing(reach, m.sessions); !m.pol.paged && len(wide) > 0 && b.count(m, wide, batch) == b.count(m, gaps, batch) {
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
func (b *Backfill) resumeCursors(m *member, cs []history.Cursor) map[string][]history.Span {
	claimed := map[string][]history.Span{}
	if !m.pol.paged {
		return claimed
	}
	for _, c := range cs {
		ok := true
		for _, sym := range c.Symbols {
			if f, in := b.feeds[sym]; !in {
				ok = false
			} else if _, served := f.ProviderSymbol(m.name); !served {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, sym := range c.Symbols {
			claimed[sym] = append(claimed[sym], c.Span)
		}
		j := job{span: c.Span, symbols: c.Symbols, resume: c.Next, pages: m.pol.pagesAtMost(c.Span, len(c.Symbols)),
			doneBars: c.Bars, doneRequests: c.Requests}
		b.jobs[m] = append(b.jobs[m], j)
		m.planned.Add(int64(j.pages))
	}
	return claimed
}

// addJobs cuts the missing spans of each symbol into windows, batching symbols whose missing
// spans are the same when the source can fetch several at once. asked are the spans the range
// itself needs, before any free reach back for the carry: the minimum requests are theirs.
func (b *Backfill) addJobs(m *member, missing, asked map[string][]history.Span, leadIn bool) {
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
func (b *Backfill) count(m *member, gaps []history.Span, n int) int {
	total := 0
	for _, g := range gaps {
		total += len(m.pol.windows(g, n, m.sessions))
	}
	return total
}

// minimum is the fewest requests the gaps allow for a batch of n symbols.
func (b *Backfill) minimum(m *member, gaps []history.Span, n int) int {
	total := 0
	for _, g := range gaps {
		total += m.pol.minRequests(g, n, m.sessions)
	}
	return total
}

// reachStart is the oldest bar the live reconciler would carry into minute t from a member:
// max_carry back, but never before the source's history, nor further than its second request
// reaches (MaxWindow before the first one's start).
func (b *Backfill) reachStart(m *member, t, floor time.Time) time.Time {
	r := t.Add(-b.rules.MaxCarry)
	first := t.Add(-b.rules.Window)
	if !floor.IsZero() {
		r = market.Later(r, floor)
		first = market.Later(first, floor)
	}
	if m.cov.MaxWindow > 0 {
		r = market.Later(r, first.Add(-m.cov.MaxWindow))
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
		held, err := b.store.Fetched(ctx, m.name) // every symbol's coverage at one instant
		if err != nil {
			return err
		}
		missing := map[string][]history.Span{}
		for _, sym := range b.symbols {
			if _, in := b.feeds[sym].ProviderSymbol(m.name); !in {
				continue
			}
			want, _, ok := b.need(m, sym)
			if !ok {
				continue
			}
			first := want.From
			cov := history.Merge(held.Coverage[sym], m.sessions)
			if _, ok := cov.Find(first); !ok {
				continue // the first window failed: nothing to carry into
			}
			has, err := b.store.HasBar(ctx, sym, m.name, first)
			if err != nil {
				return err
			}
			if has {
				continue
			}
			lead := history.Span{From: b.reachStart(m, first, m.planLB), To: first}
			if gaps := cov.Missing(lead, m.sessions); len(gaps) > 0 {
				missing[sym] = gaps
			}
		}
		if len(missing) > 0 {
			b.addJobs(m, missing, missing, true)
		}
	}
	return nil
}
