package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// A day block holds exactly the bars packed into it, as a map keyed by start would: unsorted
// input, repeated starts (the last wins), large and tiny prices, zero and huge volumes, and a
// merge over a stored block.
func TestBarDayBlocksHoldWhatAMapHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	day := dayOf(1_764_000_000)
	for round := range 300 {
		model := map[int64]sources.Bar{}
		var stored []sources.Bar
		for range 2 { // pack, then merge a second batch over the block
			n := r.IntN(400)
			bars := make([]sources.Bar, n)
			for i := range bars {
				start := day + int64(r.IntN(1440))*60
				price := numeric.Scaled(1 + r.Int64N(1<<40))
				if r.IntN(10) == 0 {
					price = numeric.Scaled(1 + r.Int64N(1<<62))
				}
				vol := r.Int64N(1 << 20)
				if r.IntN(10) == 0 {
					vol = r.Int64N(1 << 62)
				}
				bars[i] = sources.Bar{Start: unix(start), Close: price, Volume: vol}
				model[start] = bars[i]
			}
			if round%2 == 0 {
				slices.SortStableFunc(bars, func(a, b sources.Bar) int { return a.Start.Compare(b.Start) })
			}
			merged := mergeBars(stored, bars)
			blob := packBarDay(day, merged)
			var err error
			stored, err = unpackBarDay(nil, day, blob)
			if err != nil {
				t.Fatal(err)
			}
		}
		var want []sources.Bar
		for _, b := range model {
			want = append(want, b)
		}
		slices.SortFunc(want, func(a, b sources.Bar) int { return a.Start.Compare(b.Start) })
		if len(want) == 0 {
			want = nil
		}
		if len(stored) == 0 {
			stored = nil
		}
		if !reflect.DeepEqual(want, stored) {
			t.Fatalf("round %d: %d bars stored, %d in the model", round, len(stored), len(want))
		}
	}
}

// An answers block gives back every field of every answer and quote it was packed with: prices
// that fall and rise, a median below the answer, quotes without a price, a bar carried from
// days before, negative distances, and texts repeated and new.
func TestAnswerDayBlocksRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	day := dayOf(1_764_000_000)
	texts := []string{"", "no agreement", "fetch failed: 500", "massive", "alpaca", "x'y|z", "é"}
	for range 200 {
		var answers []dayAnswer
		m := day + int64(r.IntN(100))*60
		for range r.IntN(300) {
			a := dayAnswer{minute: m, session: market.Session(texts[r.IntN(len(texts))]), agreed: r.IntN(2) == 0,
				price: numeric.Scaled(r.Int64N(1 << 45)), median: numeric.Scaled(r.Int64N(1 << 45)), survivors: r.IntN(6),
				complete: r.IntN(2) == 0, reason: texts[r.IntN(len(texts))], ruleset: r.Int64N(50),
				quotes: make([]dayQuote, r.IntN(5))}
			for i := range a.quotes {
				q := dayQuote{ord: i, source: texts[r.IntN(len(texts))], status: feeds.Status(texts[r.IntN(len(texts))]),
					price: numeric.Scaled(r.Int64N(1 << 45)), centibps: r.Int64N(1<<20) - 1, err: texts[r.IntN(len(texts))]}
				if r.IntN(3) > 0 {
					q.bar = m - int64(r.IntN(6000))*60
				}
				if r.IntN(20) == 0 {
					q.bar = m + 60 // never given, but held
				}
				a.quotes[i] = q
			}
			answers = append(answers, a)
			m += int64(1+r.IntN(3)) * 60
		}
		var got []dayAnswer
		if err := unpackAnswerDay(day, packAnswerDay(day, answers), func(a dayAnswer) error { got = append(got, a); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(answers) == 0 {
			answers = nil
		}
		for i := range answers {
			if len(answers[i].quotes) == 0 {
				answers[i].quotes = []dayQuote{}
			}
		}
		if !reflect.DeepEqual(answers, got) {
			t.Fatalf("round trip differs: %d answers packed, %d unpacked", len(answers), len(got))
		}
	}
}

// A damaged block is an error, never a panic or a huge allocation.
func TestCorruptBlocksAreErrors(t *testing.T) {
	bars := packBarDay(0, []sources.Bar{{Start: unix(60), Close: 5, Volume: 1}, {Start: unix(120), Close: 7, Volume: 2}})
	answers := packAnswerDay(0, []dayAnswer{{minute: 60, reason: "r", quotes: []dayQuote{{source: "a", bar: 60}}}})
	for cut := range len(bars) - 1 {
		if _, err := unpackBarDay(nil, 0, bars[:cut]); err == nil {
			t.Errorf("bars cut at %d: no error", cut)
		}
	}
	for cut := range len(answers) - 1 {
		if err := unpackAnswerDay(0, answers[:cut], func(dayAnswer) error { return nil }); err == nil {
			t.Errorf("answers cut at %d: no error", cut)
		}
	}
	if _, err := unpackBarDay(nil, 0, []byte{packBars, 0xff, 0xff, 0xff, 0xff, 0x0f}); err == nil {
		t.Error("a count past the block's end: no error")
	}
}

func TestDayOf(t *testing.T) {
	for _, c := range [][2]int64{{0, 0}, {86399, 0}, {86400, 86400}, {-1, -86400}, {-86400, -86400}, {1_764_000_061, 1_763_942_400}} {
		if got := dayOf(c[0]); got != c[1] {
			t.Errorf("dayOf(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// Bars written window by window (overlapping, out of order, across day boundaries) read back as
// a table keyed by symbol, minute and source would: every bar once, the last written winning,
// ordered by symbol, minute, then source, and cut to the range asked.
func TestStoredBarsReadLikeRows(t *testing.T) {
	ctx := context.Background()
	store := openStore(t, "bars.db")
	r := rand.New(rand.NewPCG(5, 6))
	type key struct {
		sym    string
		minute int64
		src    string
	}
	model := map[key]sources.Bar{}
	base := dayOf(1_764_000_000)
	for range 40 {
		src := []string{"alpaca", "massive", "yahoo"}[r.IntN(3)]
		syms := []string{"NVDA", "SPY"}
		from := base + int64(r.IntN(4*1440))*60
		w := fetchedWindow{source: src, symbols: syms, span: Span{unix(from), unix(from + 3000*60)}, bars: map[string][]sources.Bar{}}
		for _, sym := range syms {
			for range r.IntN(300) {
				m := from + int64(r.IntN(3000))*60
				b := sources.Bar{Start: unix(m), Close: numeric.Scaled(1 + r.Int64N(1e12)), Volume: r.Int64N(1e6)}
				w.bars[sym] = append(w.bars[sym], b)
				model[key{sym, m, src}] = b
			}
		}
		if _, err := store.putWindow(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	from, to := base+1440*60+7*60, base+4*1440*60-13*60
	var want []string
	for k, b := range model {
		if k.minute >= from && k.minute < to {
			want = append(want, fmt.Sprintf("%s %012d %s %d %d", k.sym, k.minute, k.src, b.Close, b.Volume))
		}
	}
	slices.Sort(want)
	var got []string
	err := store.Bars(ctx, "", "", unix(from), unix(to), func(b StoredBar) error {
		got = append(got, fmt.Sprintf("%s %012d %s %d %d", b.Symbol, b.Start.Unix(), b.Source, b.Close, b.Volume))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !slices.Equal(want, got) {
		t.Fatalf("read %d bars, the model holds %d", len(got), len(want))
	}
}
