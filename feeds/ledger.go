package feeds

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// The bar ledger: every bar a source returned, kept with when it was fetched and whether it was
// final then, and the windows of each source whose every minute is known final (bars or none).
// A price is derived from what the ledger holds; a fetch only fills it. The history store
// (feeds/history) is the ledger every process on it shares; MemoryLedger is one process's.

// HeldBar is one bar as a ledger keeps it.
type HeldBar struct {
	sources.Bar // raw: in the shares of the minute
	// Fetched is when the request that returned the bar was sent; zero for a bar a store kept
	// before it kept fetch times (it was final: a backfill stores final minutes).
	Fetched time.Time
	// Final says the bar was final when fetched (see FinalTo): its close will not change.
	Final bool
}

// Held is what a ledger holds of one source and symbol over a window.
type Held struct {
	Bars []HeldBar // that start in the window, sorted
	// Windows are the requests whose windows reach into it, sorted by start: a minute in a
	// window's final part with no bar has none at that source; a minute in its asked window with
	// no bar, before a bar of the same request, had none when the source had published past it.
	Windows []HeldWindow
}

// HeldWindow is one request's window as a ledger keeps it.
type HeldWindow struct {
	Span    market.Span // asked
	FinalTo time.Time   // the part before it was final when fetched
	Fetched time.Time   // zero: a window stored before the ledger kept fetch times (final whole)
}

// WindowOf is the window a ledger keeps of a request: FinalTo held within the window asked.
func WindowOf(k Kept) HeldWindow {
	fin := minTime(k.Span.To, k.FinalTo)
	if fin.Before(k.Span.From) {
		fin = k.Span.From
	}
	return HeldWindow{Span: k.Span, FinalTo: fin, Fetched: k.Fetched}
}

// Final is the part of the window that was final when fetched.
func (w HeldWindow) Final() market.Span {
	return market.Span{From: w.Span.From, To: minTime(w.Span.To, w.FinalTo)}
}

// Replaces reports whether a ledger keeping one window per start keeps w over old, a window of
// the same start: the one whose final part reaches further (the later of two that reach as far),
// so a window known final is never narrowed by a later, narrower request.
func (w HeldWindow) Replaces(old HeldWindow) bool {
	a, b := w.Final().To, old.Final().To
	return a.After(b) || (a.Equal(b) && !w.Fetched.Before(old.Fetched))
}

// Final lists the parts of the windows that were final when fetched, sorted by start.
func (h Held) Final() []market.Span {
	out := make([]market.Span, 0, len(h.Windows))
	for _, w := range h.Windows {
		if f := w.Final(); !f.Empty() {
			out = append(out, f)
		}
	}
	return out
}

// Missing lists the parts of want that no final window covers and that hold a minute of
// sessions (the source's): what a fetch must still ask for.
func (h Held) Missing(want market.Span, sessions []market.Session) []market.Span {
	return market.MergeSpans(h.Final(), sessions).Missing(want, sessions)
}

// FinalAt reports whether the ledger knows every minute of [from, to) of the source final.
func (h Held) FinalAt(from, to time.Time, sessions []market.Session) bool {
	return len(h.Missing(market.Span{From: from, To: to}, sessions)) == 0
}

// Kept is one request's answer for one source and symbol, as a ledger keeps it.
type Kept struct {
	Source string // the source's name in sources.yaml
	Symbol string // the feed's symbol
	Span   market.Span
	Bars   []sources.Bar // raw (split adjustment undone), inside Span
	// Fetched is when the request was sent; FinalTo is where the part of Span final then ends
	// (FinalTo of the source's final_after): bars before it are final, the rest provisional,
	// and only [Span.From, FinalTo) is known final.
	Fetched, FinalTo time.Time
	Requests         int
}

// FinalTo is where the final part of what a source answered at fetched ends: every minute m
// with m + 1m + finalAfter at or before fetched (Coverage.Final) lies before it.
func FinalTo(finalAfter time.Duration, fetched time.Time) time.Time {
	return fetched.Add(-finalAfter).Truncate(time.Minute)
}

// Ledger keeps the bars sources return: the history store, or a MemoryLedger.
type Ledger interface {
	// Held reads what the ledger holds of a source's symbol over [from, to).
	Held(ctx context.Context, source, symbol string, from, to time.Time) (Held, error)
	// Keep adds one request's answer: each bar over the one held for its minute when fetched
	// later (a revised close is kept as a revision too), and the final part of its window.
	Keep(ctx context.Context, k Kept) error
}

// HeldOf is the ledger's form of bars a request returned at fetched: final before finalTo.
func HeldOf(bars []sources.Bar, fetched, finalTo time.Time) []HeldBar {
	out := make([]HeldBar, len(bars))
	for i, b := range bars {
		out[i] = HeldBar{Bar: b, Fetched: fetched, Final: b.Start.Before(finalTo)}
	}
	return out
}

// Later reports whether a bar fetched at b replaces one fetched at a for the same minute: the
// later fetch is the source's later word (a tie goes to the one written last).
func Later(a, b time.Time) bool { return !b.Before(a) }

// MemoryLedger is a Ledger of this process alone: `pricerig price --no-cache`, and tests.
type MemoryLedger struct {
	mu   sync.Mutex
	held map[[2]string]*Held
}

// NewMemoryLedger returns an empty MemoryLedger.
func NewMemoryLedger() *MemoryLedger { return &MemoryLedger{held: map[[2]string]*Held{}} }

// Held implements Ledger.
func (m *MemoryLedger) Held(_ context.Context, source, symbol string, from, to time.Time) (Held, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out Held
	h, ok := m.held[[2]string{source, symbol}]
	if !ok {
		return out, nil
	}
	for _, b := range h.Bars {
		if !b.Start.Before(from) && b.Start.Before(to) {
			out.Bars = append(out.Bars, b)
		}
	}
	for _, w := range h.Windows {
		if w.Span.To.After(from) && w.Span.From.Before(to) {
			out.Windows = append(out.Windows, w)
		}
	}
	return out, nil
}

// Keep implements Ledger.
func (m *MemoryLedger) Keep(_ context.Context, k Kept) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := [2]string{k.Source, k.Symbol}
	h, ok := m.held[key]
	if !ok {
		h = &Held{}
		m.held[key] = h
	}
	byMinute := map[int64]int{}
	for i, b := range h.Bars {
		byMinute[b.Start.Unix()] = i
	}
	for _, b := range HeldOf(k.Bars, k.Fetched, k.FinalTo) {
		if i, ok := byMinute[b.Start.Unix()]; ok {
			if Later(h.Bars[i].Fetched, b.Fetched) {
				h.Bars[i] = b
			}
			continue
		}
		byMinute[b.Start.Unix()] = len(h.Bars)
		h.Bars = append(h.Bars, b)
	}
	// a bar fetched before k at a minute k looked at (inside its window, ended when it was
	// sent) and did not return is gone at the source: the later fetch wins, as in the store
	returned := map[int64]bool{}
	for _, b := range k.Bars {
		returned[b.Start.Unix()] = true
	}
	h.Bars = slices.DeleteFunc(h.Bars, func(b HeldBar) bool {
		return !returned[b.Start.Unix()] && !b.Start.Before(k.Span.From) && b.Start.Before(k.Span.To) &&
			!b.Start.Add(time.Minute).After(k.Fetched) && b.Fetched.Unix() < k.Fetched.Unix()
	})
	slices.SortFunc(h.Bars, func(a, b HeldBar) int { return a.Start.Compare(b.Start) })
	w := WindowOf(k)
	if i := slices.IndexFunc(h.Windows, func(o HeldWindow) bool { return o.Span.From.Equal(w.Span.From) }); i >= 0 {
		if w.Replaces(h.Windows[i]) {
			h.Windows[i] = w
		}
		return nil
	}
	h.Windows = append(h.Windows, w)
	slices.SortFunc(h.Windows, func(a, b HeldWindow) int { return a.Span.From.Compare(b.Span.From) })
	return nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
