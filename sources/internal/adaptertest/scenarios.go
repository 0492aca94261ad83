package adaptertest

import "time"

// Two scenarios the adapters' simulator tests share: a clock and windows picked around it.
// Adapters take the windows that fit their coverage and add their own (a span sized to their
// request limit, a provider's quirk).

// SeptemberNow is a Friday, 17:30 New York: the close and post-market of that day are partly
// in the future.
var SeptemberNow = time.Date(2026, 9, 18, 21, 30, 0, 0, time.UTC)

// Windows around SeptemberNow; none names a symbol.
var (
	// TheOpen is that Friday's first regular hour.
	TheOpen = Window{Name: "the open", From: time.Date(2026, 9, 18, 13, 30, 0, 0, time.UTC), To: time.Date(2026, 9, 18, 14, 30, 0, 0, time.UTC)}
	// PreMarket is the Thursday's pre-market into its open.
	PreMarket = Window{Name: "pre-market", From: time.Date(2026, 9, 17, 8, 0, 0, 0, time.UTC), To: time.Date(2026, 9, 17, 13, 35, 0, 0, time.UTC)}
	// CloseIntoFuture is the Friday's close, post-market and minutes that have not closed.
	CloseIntoFuture = Window{Name: "the close into the future", From: time.Date(2026, 9, 18, 19, 50, 0, 0, time.UTC), To: time.Date(2026, 9, 18, 23, 0, 0, 0, time.UTC)}
	// SplitDays are the days around NVDA's 10:1 split of 2024-06-10, which a raw source must
	// not smooth over.
	SplitDays = Window{Name: "NVDA's split", From: time.Date(2024, 6, 7, 19, 0, 0, 0, time.UTC), To: time.Date(2024, 6, 10, 15, 0, 0, 0, time.UTC)}
)

// MarchNow is noon UTC on Friday 2026-03-20: every window of MarchWindows has closed by then.
var MarchNow = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

// MarchWindows cross every session boundary in the week after US daylight saving began
// (2026-03-08), each for one symbol. A source that does not cover a session must return
// nothing there, so some windows are empty for some sources.
var MarchWindows = []Window{
	{"pre into regular", "NVDA", time.Date(2026, 3, 16, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 16, 14, 30, 0, 0, time.UTC)},
	{"post into overnight", "TSLA", time.Date(2026, 3, 16, 23, 30, 0, 0, time.UTC), time.Date(2026, 3, 17, 0, 30, 0, 0, time.UTC)},
	{"overnight", "SPY", time.Date(2026, 3, 17, 3, 0, 0, 0, time.UTC), time.Date(2026, 3, 17, 4, 0, 0, 0, time.UTC)},
	{"weekend", "NVDA", time.Date(2026, 3, 14, 14, 0, 0, 0, time.UTC), time.Date(2026, 3, 15, 14, 0, 0, 0, time.UTC)},
	{"sub-minute bounds", "TSLA", time.Date(2026, 3, 16, 14, 0, 30, 0, time.UTC), time.Date(2026, 3, 16, 14, 5, 30, 0, time.UTC)},
	{"ten days across DST", "SPY", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC)},
}

// MarchHour is a regular-session hour of NVDA on Monday 2026-03-16, one request for any
// adapter; MarchNextHour is the hour after it.
var (
	MarchHour     = Window{Name: "a regular hour", Symbol: "NVDA", From: time.Date(2026, 3, 16, 14, 0, 0, 0, time.UTC), To: time.Date(2026, 3, 16, 15, 0, 0, 0, time.UTC)}
	MarchNextHour = Window{Name: "the next hour", Symbol: "NVDA", From: time.Date(2026, 3, 16, 15, 0, 0, 0, time.UTC), To: time.Date(2026, 3, 16, 16, 0, 0, 0, time.UTC)}
)

// For is the window asked for one symbol.
func (w Window) For(symbol string) Window {
	w.Symbol = symbol
	return w
}

// Symbols are the tape's symbols.
var Symbols = []string{"NVDA", "TSLA", "SPY"}
