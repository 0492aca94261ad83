package sim

import (
	"sync"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// The emulations of a backfill (Alpaca, Massive, Alpha Vantage…) each ask for the same symbol's
// days, and computing a bar from the tape (hashes, the path, the float32 check of each view) was
// about 30 % of the simulator's CPU. dayBars keeps one trading day's raw bars, filled as requests
// reach them, shared by every emulation: the views (split adjustment, drift) are still applied per
// request, so what each provider prints is unchanged.

// maxDayBars bounds the cache: one symbol-day is at most 1,440 minutes × 48 bytes (about 70 KB),
// so this is about 70 MB, enough for a year of the tape's three symbols; past it the cache starts
// over, as the path cache does.
const maxDayBars = 1024

// dayBars is the raw bars of one symbol over one trading day's sessions, from the evening
// overnight session before it to the end of its post-market.
type dayBars struct {
	base time.Time // the first minute of the day's sessions

	mu   sync.Mutex // guards the filling of bars; an entry once filled never changes
	bars []rawBar   // one per minute from base
}

// rawBar is a computed minute: state is 0 before it is computed, then noTrade or traded.
type rawBar struct {
	o, h, l, c numeric.Scaled
	v          int64
	state      uint8
}

const (
	noTrade uint8 = iota + 1
	traded
)

type dayKey struct {
	symbol string
	day    int64
}

// dayBarsOf returns the cache of a symbol's trading day (info is that day's calendar), creating
// it on first use.
func (t *Tape) dayBarsOf(symbol string, day int64, info market.DayInfo) *dayBars {
	key := dayKey{symbol, day}
	t.mu.Lock()
	defer t.mu.Unlock()
	if d, ok := t.days[key]; ok {
		return d
	}
	var first, last time.Time
	for _, s := range market.AllSessions {
		if a, b, ok := info.Bounds(s); ok {
			if first.IsZero() || a.Before(first) {
				first = a
			}
			if b.After(last) {
				last = b
			}
		}
	}
	d := &dayBars{base: first, bars: make([]rawBar, int(last.Sub(first)/time.Minute))}
	if len(t.days) >= maxDayBars {
		t.days = map[dayKey]*dayBars{}
	}
	t.days[key] = d
	return d
}

// fill computes the minutes of [a, b) of session sess that are not computed yet. Afterwards the
// caller may read those entries without the lock: they are never written again.
func (d *dayBars) fill(t *Tape, symbol string, a, b time.Time, sess market.Session) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for m, i := a, d.index(a); m.Before(b); m, i = m.Add(time.Minute), i+1 {
		e := &d.bars[i]
		if e.state != 0 {
			continue
		}
		bar, ok := t.barIn(symbol, m, sess)
		if !ok {
			e.state = noTrade
			continue
		}
		*e = rawBar{o: bar.O, h: bar.H, l: bar.L, c: bar.C, v: bar.V, state: traded}
	}
}

func (d *dayBars) index(m time.Time) int { return int(m.Sub(d.base) / time.Minute) }

// bar is the filled minute m of session sess as barIn gives it.
func (d *dayBars) bar(m time.Time, sess market.Session) (OHLCV, bool) {
	e := &d.bars[d.index(m)]
	if e.state != traded {
		return OHLCV{}, false
	}
	return OHLCV{Start: m, Session: sess, O: e.o, H: e.h, L: e.l, C: e.c, V: e.v}, true
}
