package sources

import (
	"context"
	"time"
)

// Page is one response of a provider that pages (Coverage.Paged): the bars it held, by symbol
// as asked for, and for each symbol the part of the window those bars, with the earlier pages',
// are complete for. A symbol absent from Proven has nothing proven yet (a multi-symbol request
// pages through its symbols one after the other). The last page proves the whole window for
// every symbol.
type Page struct {
	Bars   map[string][]Bar
	Proven map[string]Window
	// Next is where the same request goes on after this page when the provider's page token
	// stays valid (Alpaca's next_page_token), for a caller that keeps it to resume later; ""
	// on the last page, or when the provider's position is its proven span.
	Next string
}

// Pager is a source whose provider pages: Pages asks for [from, to) of the symbols in one
// request, however wide the window (the provider allows it), follows the provider's pages and
// hands each to each as it arrives, so a caller can keep every page before asking for the next.
// resume, when not "", is the Next of a page an earlier call of the same symbols and window
// handed: the pages go on from there. An error from each stops the paging and is returned.
type Pager interface {
	Pages(ctx context.Context, symbols []string, from, to time.Time, resume string, each func(Page) error) error
}

// Batcher is a source whose provider answers several symbols in one request (a multi-symbol
// endpoint): the backfill asks it for the symbols of a window in one call. Every symbol asked
// for has an entry in the answer, empty when it did not trade.
type Batcher interface {
	BarsMulti(ctx context.Context, symbols []string, from, to time.Time) (map[string][]Bar, error)
}

// ProvenThrough is what a page of one symbol read oldest first proves: [from, the end of its last
// bar), or the whole [from, to) on the last page.
func ProvenThrough(bars []Bar, from, to time.Time, last bool) (Window, bool) {
	switch {
	case last:
		return Window{from, to}, true
	case len(bars) == 0:
		return Window{}, false
	}
	end := bars[len(bars)-1].Start.Add(time.Minute)
	if end.After(to) {
		end = to
	}
	return Window{from, end}, end.After(from)
}

// CheckWindows is CheckWindow of every symbol of one request, for a source with no lookback:
// the whole request is refused before anything is asked.
func CheckWindows(source string, symbols []string, from, to time.Time) error {
	for _, sym := range symbols {
		if err := CheckWindow(source, sym, from, to, 0, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}
