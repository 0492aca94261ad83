package history

import (
	"slices"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// How a source's provider wants its history asked for, as its adapter declares it in
// sources.Coverage (Cut, Dates, Page, Paged, MaxWindow), and so what the fewest requests of a
// range are: the provider's floor. A paged provider (Paged) is asked for each missing span whole
// and followed page by page: its floor is ⌈bars ÷ Page⌉, known once the bars are. Any other
// provider is limited by its window: the planner hands it windows that each cost exactly one
// request, as wide as it allows, and its floor is the number of windows.
type policy struct {
	cut   sources.Cut
	max   time.Duration // CutSpan: the widest window
	days  int           // CutDates: dates per request
	paged bool
	// page is how many bars one response holds (0: no such limit). A window-limited provider's
	// window is kept within one page, counting every minute of the provider's sessions (all)
	// as a bar, for every symbol of a batch: the most the window can hold, so it never needs a
	// second request.
	page int
	all  []market.Session
}

// unlimitedWindow caps the window of a source that declares no MaxWindow (a generic udf or json
// endpoint): a month of minutes is as much as any provider we know returns in one body.
const unlimitedWindow = 30 * 24 * time.Hour

// policyOf is the policy a source's coverage declares.
func policyOf(cov sources.Coverage) policy {
	p := policy{cut: cov.Cut, max: cov.MaxWindow, days: cov.Dates, page: cov.Page, paged: cov.Paged && cov.Page > 0, all: cov.Sessions}
	if p.max <= 0 {
		p.max = unlimitedWindow
	}
	return p
}

// windows cuts a span into the windows of a policy, for n symbols batched together. A paged
// provider gets the span whole (from its first minute of the sessions): one window, paged through.
// Otherwise the cut is greedy: each window starts at the first minute of the sessions not yet
// covered and reaches as far as the provider allows (MaxWindow, the end of the calendar month or
// of the run of dates, or one page of minutes). Every one of those limits only grows with the
// window, and for such limits the greedy cut is the fewest windows that cover every minute: their
// count is the provider's floor. It is also what makes a resumed run exact: after an interruption
// the missing part starts where the last stored window (or page) ended, and the cut from there is
// the one the interrupted run would have made.
func (p policy) windows(span Span, n int, sessions []market.Session) []Span {
	var out []Span
	a := span.From
	for a.Before(span.To) {
		// the first session minute from a on: a walk that stops at the first session, so the
		// cut costs a few calendar days per window, not the rest of the span per window
		first, ok := firstSessionMinute(a, span.To, sessions)
		if !ok {
			break
		}
		a = first
		end := span.To
		if !p.paged {
			end = p.end(a, span.To, n)
		}
		out = append(out, Span{a, end})
		a = end
	}
	return out
}

// end is where the window that starts at a ends.
func (p policy) end(a, limit time.Time, n int) time.Time {
	switch p.cut {
	case sources.CutMonth:
		ny := a.In(market.NewYork)
		next := time.Date(ny.Year(), ny.Month()+1, 1, 0, 0, 0, 0, market.NewYork).UTC()
		return minTime(next, limit)
	case sources.CutDates:
		days := max(p.days, 2)
		return minTime(nyMidnight(nyDate(a).AddDate(0, 0, days-1)), limit)
	}
	end := minTime(a.Add(p.max), limit)
	if p.page <= 0 {
		return end
	}
	// Reach as far as every minute of the provider's sessions, for every symbol, still fits one
	// page — the bars cannot outnumber the minutes — cutting anywhere, mid-session included
	// (the provider takes any start and end).
	left := max(p.page/max(n, 1), 1) // minutes per symbol in one page
	walkSessions(a, end, p.all, func(s sessionSpan) bool {
		m := int(s.To.Sub(s.From) / time.Minute)
		if m >= left {
			end = s.From.Add(time.Duration(left) * time.Minute)
			return false
		}
		left -= m
		return true
	})
	return end
}

// pagesAtMost is the most pages a paged provider can take for a span of n symbols: every minute
// of its sessions a bar.
func (p policy) pagesAtMost(span Span, n int) int {
	minutes := 0
	walkSessions(span.From, span.To, p.all, func(s sessionSpan) bool {
		minutes += int(s.To.Sub(s.From) / time.Minute)
		return true
	})
	return max(1, ceilDiv(minutes*max(n, 1), p.page))
}

// floorOf is a paged provider's floor for a window that held bars: ⌈bars ÷ page⌉, and one request
// for a window without any.
func (p policy) floorOf(bars int) int { return max(1, ceilDiv(bars, p.page)) }

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// minRequests is the fewest requests that cover the minutes of the sessions in a span, for a
// provider limited by its window: the number of windows of the greedy cut (see windows). A paged
// provider's floor depends on its bars and is counted as its windows are fetched (floorOf). The
// requests the adapters really send are counted apart, by the pacer; their ratio to the floor
// is 1.00 when no window cost a request the provider did not need (a retry, a split, a page).
func (p policy) minRequests(span Span, n int, sessions []market.Session) int {
	if p.paged {
		return 0
	}
	return len(p.windows(span, n, sessions))
}

// spans is a sorted list of disjoint spans: what has been fetched of one source and symbol.
type spans []Span

// merge sorts and joins spans that touch, or that are separated only by time holding no
// minute of sessions (nothing could have been missed there).
func merge(in []Span, sessions []market.Session) spans {
	s := slices.Clone(in)
	slices.SortFunc(s, func(a, b Span) int { return a.From.Compare(b.From) })
	var out spans
	for _, x := range s {
		if x.Empty() {
			continue
		}
		if n := len(out); n > 0 {
			last := &out[n-1]
			if !x.From.After(last.To) || !hasSessionMinute(last.To, x.From, sessions) {
				if x.To.After(last.To) {
					last.To = x.To
				}
				continue
			}
		}
		out = append(out, x)
	}
	return out
}

// missing lists the parts of want that the spans do not cover and that hold a minute of
// sessions. A part keeps its exact bounds (it is not trimmed to the sessions): the windows cut
// from it then fall where they fell in the run that was interrupted, so a re-run fetches the
// same windows an uninterrupted run would have.
func (c spans) missing(want Span, sessions []market.Session) []Span {
	var out []Span
	a := want.From
	for _, x := range c {
		if !x.To.After(a) {
			continue
		}
		if !x.From.Before(want.To) {
			break
		}
		if x.From.After(a) {
			out = append(out, Span{a, x.From})
		}
		a = maxTime(a, x.To)
	}
	if a.Before(want.To) {
		out = append(out, Span{a, want.To})
	}
	kept := out[:0]
	for _, g := range out {
		if hasSessionMinute(g.From, g.To, sessions) {
			kept = append(kept, g)
		}
	}
	return kept
}

// find returns the span holding t.
func (c spans) find(t time.Time) (Span, bool) {
	i, _ := slices.BinarySearchFunc(c, t, func(s Span, t time.Time) int {
		switch {
		case !s.To.After(t):
			return -1
		case s.From.After(t):
			return 1
		}
		return 0
	})
	if i < len(c) && !c[i].From.After(t) && c[i].To.After(t) {
		return c[i], true
	}
	return Span{}, false
}
