package sim

import (
	"strconv"
	"sync"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// The tape is generated in the current share basis (every split divided in), in integer
// micro-dollars, and turned into as-traded prices by multiplying the splits back. Working that way
// round keeps every view exact: the raw price is the adjusted price times an integer, and any
// provider's adjusted view is the raw price divided by a product of ratios that divides it.
//
// Everything is integer arithmetic on a hash of (seed, symbol, minute), so a bar depends on
// nothing but its coordinates: the same seed gives the same tape on every platform, in any
// request order.

// symbols the tape trades, in the order of their hash salt.
var tapeSymbols = []string{"NVDA", "TSLA", "SPY"}

// The tape covers the New York dates 2020-01-01 … 2028-12-31: the years the market calendar
// tabulates.
var (
	tapeFirst = civilDay(2020, time.January, 1)
	tapeLast  = civilDay(2028, time.December, 31)
)

// Split is a forward split as the tape applies it.
type Split struct {
	Symbol string
	Ratio  int64
	// Date is the first split-adjusted trading day (midnight New York).
	Date time.Time
	// Effective is the first as-traded minute in the new shares: 04:00 New York of Date, the
	// start of that day's pre-market. The overnight session that closes at Effective is the
	// ambiguous window (is it pre- or post-split?): the tape has no trades in it.
	Effective time.Time
}

func newSplit(symbol string, ratio int64, y int, m time.Month, d int) Split {
	return Split{
		Symbol:    symbol,
		Ratio:     ratio,
		Date:      time.Date(y, m, d, 0, 0, 0, 0, market.NewYork),
		Effective: time.Date(y, m, d, 4, 0, 0, 0, market.NewYork).UTC(),
	}
}

// splitTable holds the real splits of the tape's symbols, oldest first.
var splitTable = map[string][]Split{
	"NVDA": {newSplit("NVDA", 4, 2021, time.July, 20), newSplit("NVDA", 10, 2024, time.June, 10)},
	"TSLA": {newSplit("TSLA", 5, 2020, time.August, 31), newSplit("TSLA", 3, 2022, time.August, 25)},
}

// trend knots: (date, price in cents, current share basis). Between knots the trend is linear;
// the daily walk wanders around it. Loosely the real path of each symbol, ending near NVDA 180,
// TSLA 400 and SPY 680 in late 2026.
type knot struct {
	date  string
	cents int64
}

var trendKnots = map[string][]knot{
	"NVDA": {
		{"2019-12-01", 520}, {"2020-03-16", 490}, {"2020-09-01", 1300}, {"2021-07-19", 1880},
		{"2021-11-29", 3300}, {"2022-10-13", 1120}, {"2023-06-01", 3950}, {"2024-03-08", 8700},
		{"2024-06-07", 12100}, {"2025-01-06", 14900}, {"2025-04-07", 9800}, {"2025-10-29", 20200},
		{"2026-06-01", 17200}, {"2026-11-30", 18000}, {"2029-01-02", 21000},
	},
	"TSLA": {
		{"2019-12-01", 2200}, {"2020-03-18", 2400}, {"2020-08-28", 14800}, {"2021-01-08", 29000},
		{"2021-11-04", 40900}, {"2022-08-24", 29700}, {"2023-01-03", 10800}, {"2023-07-18", 29300},
		{"2024-04-22", 14200}, {"2024-12-17", 47900}, {"2025-04-07", 23300}, {"2025-12-01", 43000},
		{"2026-11-30", 40000}, {"2029-01-02", 42000},
	},
	"SPY": {
		{"2019-12-01", 31500}, {"2020-02-19", 33800}, {"2020-03-23", 22300}, {"2021-01-04", 36900},
		{"2022-01-03", 47700}, {"2022-10-12", 35700}, {"2023-07-31", 45700}, {"2024-01-02", 47200},
		{"2025-02-19", 61200}, {"2025-04-08", 49600}, {"2025-12-01", 68000}, {"2026-11-30", 68000},
		{"2029-01-02", 72000},
	},
}

// Tape is the deterministic as-traded history every emulated provider serves.
type Tape struct {
	seed    uint64
	now     func() time.Time
	anchors map[string][]int64 // per symbol: the day's opening level at midnight NY, µ$ adjusted, indexed from anchorFirst

	mu    sync.Mutex
	paths map[pathKey][]int64 // per (symbol, NY date): the price path, one value per minute boundary
	days  map[dayKey]*dayBars // per (symbol, trading day): the computed raw bars (barcache.go)
}

type pathKey struct {
	sym int
	day int64 // days since 1970-01-01 of the NY date
}

// anchorFirst is the first day of the anchor walk: a month before the tape so the walk has
// settled by 2020-01-01.
var anchorFirst = civilDay(2019, time.December, 1)

// NewTape builds the tape of a seed (0 means 1); now bounds it: no bar at or after the current
// minute.
func NewTape(seed int64, now func() time.Time) *Tape {
	if seed == 0 {
		seed = 1
	}
	if now == nil {
		now = time.Now
	}
	t := &Tape{seed: uint64(seed), now: now, anchors: map[string][]int64{}, paths: map[pathKey][]int64{}, days: map[dayKey]*dayBars{}}
	for i, sym := range tapeSymbols {
		t.anchors[sym] = t.walkAnchors(i, sym)
	}
	return t
}

// Symbols lists the symbols the tape trades.
func (t *Tape) Symbols() []string { return append([]string(nil), tapeSymbols...) }

// Splits lists the splits of a symbol the tape applies, oldest first.
func (t *Tape) Splits(symbol string) []Split { return append([]Split(nil), splitTable[symbol]...) }

// Bar is the raw, as-traded bar of the minute starting at minute (truncated to its minute):
// false when the symbol is unknown, the minute has no session or no trade, lies outside
// 2020–2028, or has not closed yet by the tape's clock.
func (t *Tape) Bar(symbol string, minute time.Time) (sources.Bar, bool) {
	b, ok := t.bar(symbol, minute.Truncate(time.Minute))
	if !ok || !b.Start.Before(t.now().Truncate(time.Minute)) {
		return sources.Bar{}, false
	}
	return sources.Bar{Start: b.Start, Close: b.C, Volume: b.V}, true
}

// OHLCV is a bar with all its prices, as the emulations print them.
type OHLCV struct {
	Start      time.Time
	O, H, L, C numeric.Scaled
	V          int64
	Session    market.Session
}

// Per-minute volatility in parts per million, per session: regular minutes move most.
var minuteVolPPM = map[market.Session]int64{
	market.Regular: 800, market.Pre: 400, market.Post: 400, market.Overnight: 300, "": 60,
}

// Share of minutes with no trade, per 10 000, per session.
var noTradePer10k = map[market.Session]uint64{
	market.Regular: 150, market.Pre: 2500, market.Post: 2500, market.Overnight: 5000,
}

// hash salts
const (
	saltAnchor uint64 = iota + 1
	saltStep
	saltTrade
	saltSubPenny
	saltWick
	saltVolume
)

// bar computes the raw bar of a minute start m (aligned), ignoring the clock.
func (t *Tape) bar(symbol string, m time.Time) (OHLCV, bool) {
	session, ok := market.SessionAt(m)
	if !ok {
		return OHLCV{}, false
	}
	return t.barIn(symbol, m, session)
}

// barIn is bar for a minute whose session the caller knows.
func (t *Tape) barIn(symbol string, m time.Time, session market.Session) (OHLCV, bool) {
	sym := symbolIndex(symbol)
	if sym < 0 {
		return OHLCV{}, false
	}
	ny := m.In(market.NewYork)
	day := civilDay(ny.Year(), ny.Month(), ny.Day())
	if day < tapeFirst || day > tapeLast {
		return OHLCV{}, false
	}
	splits := splitTable[symbol]
	if session == market.Overnight {
		for _, s := range splits {
			if m.Before(s.Effective) && !m.Before(s.Effective.Add(-8*time.Hour)) {
				return OHLCV{}, false // the ambiguous night before a split
			}
		}
	}
	u := t.hash(sym, m.Unix(), saltTrade)
	skip := noTradePer10k[session]
	if symbol == "SPY" {
		skip /= 3
	}
	if u%10000 < skip {
		return OHLCV{}, false
	}

	path := t.path(sym, symbol, day)
	i := int(m.Sub(dayStart(day)) / time.Minute)
	openµ, closeµ := path[i], path[i+1]

	// later[k] is the product of the splits after m, skipping the first k of them: the factors
	// that take the adjusted price to each view a provider can show (raw, then adjusted as of a
	// date past each split in turn).
	var after []int64
	for _, s := range splits {
		if m.Before(s.Effective) {
			after = append(after, s.Ratio)
		}
	}
	views := make([]int64, len(after)+1)
	for k := range views {
		f := int64(1)
		for _, r := range after[k:] {
			f *= r
		}
		views[k] = f
	}

	// prices in 1e-4 dollars, current share basis
	sub := t.hash(sym, m.Unix(), saltSubPenny)%100 < subPennyPct(session)
	c := quantize(closeµ, sub)
	o := quantize(openµ, false)
	wick := t.hash(sym, m.Unix(), saltWick)
	spread := max(openµ, closeµ) * int64(minuteVolPPM[session]) / 1_000_000
	h := quantize(max(openµ, closeµ)+spread*int64(wick%64)/64, false)
	l := quantize(min(openµ, closeµ)-spread*int64((wick>>8)%64)/64, false)
	c = float32Safe(c, views)
	o = float32Safe(o, views)
	h = max(float32Safe(h, views), o, c)
	l = max(min(float32Safe(l, views), o, c), 100) // never below a cent
	raw := views[0]
	toScaled := func(p int64) numeric.Scaled { return numeric.Scaled(p * raw * 10_000) }
	return OHLCV{
		Start: m, Session: session,
		O: toScaled(o), H: toScaled(h), L: toScaled(l), C: toScaled(c),
		V: t.volume(sym, symbol, m, session), // shares of the minute, as traded
	}, true
}

func subPennyPct(s market.Session) uint64 {
	if s == market.Regular {
		return 15
	}
	return 5
}

// volume is the as-traded share count of a minute: positive, larger in the regular session.
func (t *Tape) volume(sym int, symbol string, m time.Time, s market.Session) int64 {
	var base int64
	switch s {
	case market.Regular:
		base = 40_000
	case market.Pre:
		base = 1_500
	case market.Post:
		base = 1_200
	default:
		base = 300
	}
	if symbol == "SPY" {
		base *= 2
	}
	u := t.hash(sym, m.Unix(), saltVolume)
	return base/4 + int64(u%uint64(base*2)) + 1
}

// quantize rounds µ$ to a print: whole cents, or 1e-4 dollars for a sub-penny print. The result
// is in 1e-4 dollars.
func quantize(µ int64, subPenny bool) int64 {
	if subPenny {
		return (µ + 50) / 100
	}
	return (µ + 5_000) / 10_000 * 100
}

// float32Safe keeps a price (1e-4 dollars, adjusted) only if every view of it survives float32
// — Yahoo stores its 1-minute values as float32 and prints them widened to float64, and
// numeric.CanonicalFloat32 must recover the exact price — else rounds it to the cent, which
// always survives at these magnitudes.
func float32Safe(p int64, views []int64) int64 {
	for _, f := range views {
		if p%100 == 0 && p*f < 65536_0000 {
			continue // a whole cent under 65536 is always its float32's shortest decimal
		}
		if !survivesFloat32(p * f) {
			return (p + 50) / 100 * 100
		}
	}
	return p
}

// survivesFloat32 reports whether the price p (1e-4 dollars) prints back unchanged as the
// shortest decimal of its float32.
func survivesFloat32(p int64) bool {
	text := decimalText(p, 4)
	f, err := strconv.ParseFloat(text, 32)
	return err == nil && strconv.FormatFloat(f, 'f', -1, 32) == text
}

// decimalText prints v / 10^scale (v ≥ 0) as the shortest decimal: 1036400 at 4 → "103.64",
// 1000000 → "100".
func decimalText(v int64, scale int) string {
	pow := int64(1)
	for i := 0; i < scale; i++ {
		pow *= 10
	}
	whole := strconv.FormatInt(v/pow, 10)
	frac := v % pow
	if frac == 0 {
		return whole
	}
	digits := strconv.FormatInt(frac+pow, 10)[1:] // zero-padded to scale digits
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return whole + "." + digits
}

// path returns the cached minute path of a NY date: value i is the price at minute boundary i
// after midnight (µ$, adjusted), i = 0 … minutes-in-day. It walks from the day's anchor with
// hashed steps sized by session and is bridged onto the next day's anchor, so days join up.
func (t *Tape) path(sym int, symbol string, day int64) []int64 {
	key := pathKey{sym, day}
	t.mu.Lock()
	p, ok := t.paths[key]
	t.mu.Unlock()
	if ok {
		return p
	}
	start := dayStart(day)
	n := int(dayStart(day+1).Sub(start) / time.Minute)
	a0, a1 := t.anchor(symbol, day), t.anchor(symbol, day+1)
	p = make([]int64, n+1)
	p[0] = a0
	sessionOf := daySessions(day)
	for i := 0; i < n; i++ {
		m := start.Add(time.Duration(i) * time.Minute)
		s := sessionOf(m)
		z := gauss(t.hash(sym, m.Unix(), saltStep))
		step := p[i] / 1000 * (z * minuteVolPPM[s] / gaussSD) / 1000
		p[i+1] = p[i] + step
	}
	gap := a1 - p[n]
	for i := 1; i <= n; i++ {
		p[i] += gap * int64(i) / int64(n)
		p[i] = max(p[i], 20_000) // two cents: a floor the walk never nears
	}
	t.mu.Lock()
	if len(t.paths) >= 4096 { // ~50 MB; backfill of a year × 3 symbols fits, then start over
		t.paths = map[pathKey][]int64{}
	}
	t.paths[key] = p
	t.mu.Unlock()
	return p
}

// daySessions returns the session lookup for the minutes of one New York date — its own
// sessions and the evening head of the next day's overnight — from the calendar's bounds, which
// is much cheaper than asking the calendar minute by minute.
func daySessions(day int64) func(time.Time) market.Session {
	type span struct {
		a, b time.Time
		s    market.Session
	}
	var spans []span
	for _, d := range []int64{day, day + 1} {
		c := time.Unix(d*86400, 0).UTC()
		info := market.Day(c.Year(), c.Month(), c.Day())
		for _, s := range market.AllSessions {
			if a, b, ok := info.Bounds(s); ok {
				spans = append(spans, span{a, b, s})
			}
		}
	}
	return func(m time.Time) market.Session {
		for _, sp := range spans {
			if !m.Before(sp.a) && m.Before(sp.b) {
				return sp.s
			}
		}
		return ""
	}
}

// anchor is the level of a symbol at midnight NY of a day (µ$, adjusted).
func (t *Tape) anchor(symbol string, day int64) int64 {
	a := t.anchors[symbol]
	i := day - anchorFirst
	if i < 0 {
		i = 0
	}
	if i >= int64(len(a)) {
		i = int64(len(a)) - 1
	}
	return a[i]
}

// walkAnchors runs the daily walk of one symbol: a mean-reverting deviation around the trend,
// about 1.5 % a day.
func (t *Tape) walkAnchors(sym int, symbol string) []int64 {
	last := tapeLast + 2
	out := make([]int64, last-anchorFirst+1)
	var dev int64 // parts per million off the trend
	for d := anchorFirst; d <= last; d++ {
		out[d-anchorFirst] = trendAt(symbol, d) * (1_000_000 + dev) / 1_000_000
		z := gauss(t.hash(sym, d, saltAnchor))
		dev = dev*96/100 + z*15_000/gaussSD
		dev = min(max(dev, -250_000), 250_000)
	}
	return out
}

// trendAt interpolates the trend knots (µ$) at a day.
func trendAt(symbol string, day int64) int64 {
	ks := trendKnots[symbol]
	days := knotDays[symbol]
	prevDay, prev := days[0], ks[0].cents*10_000
	if day <= prevDay {
		return prev
	}
	for i, k := range ks[1:] {
		kd, kv := days[i+1], k.cents*10_000
		if day <= kd {
			return prev + (kv-prev)*(day-prevDay)/(kd-prevDay)
		}
		prevDay, prev = kd, kv
	}
	return prev
}

// knotDays holds the day numbers of trendKnots.
var knotDays = func() map[string][]int64 {
	out := map[string][]int64{}
	for sym, ks := range trendKnots {
		for _, k := range ks {
			d, err := time.Parse(time.DateOnly, k.date)
			if err != nil {
				panic("sim: bad trend knot " + k.date)
			}
			out[sym] = append(out[sym], d.Unix()/86400)
		}
	}
	return out
}()

// civilDay counts the days since 1970-01-01 of a calendar date.
func civilDay(y int, m time.Month, d int) int64 {
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// dayStart is midnight New York of a civil day.
func dayStart(day int64) time.Time {
	c := time.Unix(day*86400, 0).UTC()
	return time.Date(c.Year(), c.Month(), c.Day(), 0, 0, 0, 0, market.NewYork).UTC()
}

func symbolIndex(symbol string) int {
	for i, s := range tapeSymbols {
		if s == symbol {
			return i
		}
	}
	return -1
}

// hash mixes (seed, symbol, coordinate, salt) with splitmix64's finalizer.
func (t *Tape) hash(sym int, at int64, salt uint64) uint64 {
	x := mix64(t.seed ^ salt*0x9e3779b97f4a7c15)
	x = mix64(x ^ uint64(sym+1)*0xbf58476d1ce4e5b9)
	return mix64(x ^ uint64(at))
}

func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// gaussSD is the standard deviation of gauss: four uniform 16-bit draws summed, centred.
const gaussSD = 37_837

// gauss turns a hash into a roughly normal integer with mean 0 and deviation gaussSD.
func gauss(u uint64) int64 {
	var s int64
	for k := 0; k < 4; k++ {
		s += int64(u >> (16 * k) & 0xffff)
	}
	return s - 2*65535
}

// TapeStart is the tape's first minute: midnight New York of 2020-01-01 (an emulation's
// default start when a request gives none).
func TapeStart() time.Time { return dayStart(tapeFirst) }
