package backfill

import (
	"time"

	"github.com/pricerig/pricerig/feeds/history"
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
func (p policy) windows(span history.Span, n int, sessions []market.Session) []history.Span {
	var out []history.Span
	a := span.From
	for a.Before(span.To) {
		// the first session minute from a on: a walk that stops at the first session, so the
		// cut costs a few calendar days per window, not the rest of the span per window
		first, ok := market.FirstSessionMinute(a, span.To, sessions)
		if !ok {
			break
		}
		a = first
		end := span.To
		if !p.paged {
			end = p.end(a, span.To, n)
		}
		out = append(out, history.Span{From: a, To: end})
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
		return market.Earlier(next, limit)
	case sources.CutDates:
		days := max(p.days, 2)
		return market.Earlier(market.NYMidnight(market.NYDate(a).AddDate(0, 0, days-1)), limit)
	}
	end := market.Earlier(a.Add(p.max), limit)
	if p.page <= 0 {
		return end
	}
	// Reach as far as every minute of the provider's sessions, for every symbol, still fits one
	// page — the bars cannot outnumber the minutes — cutting anywhere, mid-session included
	// (the provider takes any start and end).
	left := max(p.page/max(n, 1), 1) // minutes per symbol in one page
	market.WalkSessions(a, end, p.all, func(s market.SessionSpan) bool {
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
func (p policy) pagesAtMost(span history.Span, n int) int {
	minutes := 0
	market.WalkSessions(span.From, span.To, p.all, func(s market.SessionSpan) bool {
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
func (p policy) minRequests(span history.Span, n int, sessions []market.Session) int {
	if p.paged {
		return 0
	}
	return len(p.windows(span, n, sessions))
}
