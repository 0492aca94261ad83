package history

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// A day block holds exactly the bars packed into it, as a map keyed by start would, the bar
// fetched later of a start winning (the last given on a tie): unsorted input, repeated starts,
// large and tiny prices, zero and huge volumes, fetch times unknown, earlier and later, bars
// final and provisional, and a merge over a stored block, which reports every close it changed.
func TestBarDayBlocksHoldWhatAMapHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	day := dayOf(1_764_000_000)
	for round := range 300 {
		model := map[int64]feeds.HeldBar{}
		var stored []feeds.HeldBar
		for range 2 { // pack, then merge a second batch over the block
			n := r.IntN(400)
			bars := make([]feeds.HeldBar, n)
			fetched := time.Time{}
			if r.IntN(4) > 0 {
				fetched = unix(day + r.Int64N(3*daySeconds))
			}
			batch := map[int64]feeds.HeldBar{}
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
				bars[i] = feeds.HeldBar{Bar: sources.Bar{Start: unix(start), Close: price, Volume: vol}, Fetched: fetched, Final: r.IntN(3) > 0}
				batch[start] = bars[i] // the last of a start in one batch wins
			}
			wantRevised := 0
			for start, b := range batch {
				old, had := model[start]
				if had && old.Close != b.Close {
					wantRevised++
				}
				if !had || feeds.Later(old.Fetched, b.Fetched) {
					model[start] = b
				}
			}
			if round%2 == 0 {
				slices.SortStableFunc(bars, func(a, b feeds.HeldBar) int { return a.Start.Compare(b.Start) })
			}
			merged, revised := mergeBars(stored, sortedBars(bars), sight{}, nil)
			if len(revised) != wantRevised {
				t.Fatalf("round %d: %d revisions reported, %d closes changed", round, len(revised), wantRevised)
			}
			for _, x := range revised {
				if x.old.Close == x.new.Close || !x.old.Start.Equal(x.new.Start) || !feeds.Later(x.old.Fetched, x.new.Fetched) {
					t.Fatalf("round %d: revision %+v", round, x)
				}
			}
			blob := packBarDay(day, merged)
			var err error
			stored, err = unpackBarDay(nil, day, blob)
			if err != nil {
				t.Fatal(err)
			}
		}
		var want []feeds.HeldBar
		for _, b := range model {
			want = append(want, b)
		}
		slices.SortFunc(want, func(a, b feeds.HeldBar) int { return a.Start.Compare(b.Start) })
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

// A bars block of format 1, as stores before the ledger hold them, reads back with its bars
// final and no fetch time.
func TestFormatOneBarBlocksReadFinal(t *testing.T) {
	day := dayOf(1_764_000_000)
	// format 1: the count, then per bar the start's delta, the close's, and the volume
	p := packer{b: []byte{packBars}}
	p.u(2)
	p.u(60)
	p.i(500)
	p.u(7)
	p.u(60)
	p.i(-3)
	p.u(0)
	got, err := unpackBarDay(nil, day, p.b)
	if err != nil {
		t.Fatal(err)
	}
	want := []feeds.HeldBar{
		{Bar: sources.Bar{Start: unix(day + 60), Close: 500, Volume: 7}, Final: true},
		{Bar: sources.Bar{Start: unix(day + 120), Close: 497}, Final: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read %+v, want %+v", got, want)
	}
}

// An answers block gives back every field of every answer and quote it was packed with: prices
// that fall and rise, a median below the answer, quotes without a price, a bar carried from
// days before, negative distances, texts repeated and new, and error kinds (a kind that is also
// another field's text shares its index).
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
				if r.IntN(3) == 0 {
					q.kind = []sources.ErrorKind{sources.KindUnavailable, sources.KindRateLimited, "massive"}[r.IntN(3)]
				}
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
	bars := packBarDay(0, []feeds.HeldBar{{Bar: sources.Bar{Start: unix(60), Close: 5, Volume: 1}, Fetched: unix(200)}, {Bar: sources.Bar{Start: unix(120), Close: 7, Volume: 2}}})
	answers := packAnswerDay(0, []dayAnswer{{minute: 60, reason: "r", quotes: []dayQuote{{source: "a", bar: 60},
		{source: "b", status: feeds.StatusError, err: "fetch failed", kind: sources.KindUnauthorized}}}})
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
	if err := unpackAnswerDay(0, append([]byte{3}, answers[1:]...), func(dayAnswer) error { return nil }); err == nil {
		t.Error("an answers block of an unknown format: no error")
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
		w := FetchedWindow{Source: src, Symbols: syms, Span: Span{From: unix(from), To: unix(from + 3000*60)}, Bars: map[string][]sources.Bar{}}
		for _, sym := range syms {
			for range r.IntN(300) {
				m := from + int64(r.IntN(3000))*60
				b := sources.Bar{Start: unix(m), Close: numeric.Scaled(1 + r.Int64N(1e12)), Volume: r.Int64N(1e6)}
				w.Bars[sym] = append(w.Bars[sym], b)
				model[key{sym, m, src}] = b
			}
		}
		if _, err := store.PutWindow(ctx, w); err != nil {
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

// oldAnswerBlock is a day's answers block in format 1, as the writer wrote it before quotes kept
// their error kind (packAnswerDay at commit de5a79a, run on oldAnswers): stores hold blocks like
// it until their day is reconciled again.
const oldAnswerBlock = "010b07726567756c61723f696e636f6d706c6574653a20616c70686176616e746167653a206665746368206661696c" +
	"65643a20353033205365727669636520556e617661696c61626c6506616c70616361026f6b00076d61737369766507636172" +
	"726965640c616c70686176616e74616765056572726f72256665746368206661696c65643a2035303320536572766963652055" +
	"6e617661696c61626c650c6e6f2061677265656d656e7402f0a503010080d0b5f68901c0843d0201010300020380d0b5f68901" +
	"01000401050680d9aff78901f101b80804020708000001093c0000ffcfb5f6890180e8abca8a01010a010200020380e8abca8a" +
	"0101000402070800000109"

// oldAnswers is what oldAnswerBlock holds: TSLA's 10:00 and 10:01 (New York) of 2025-11-03.
func oldAnswers() (int64, []dayAnswer) {
	day := dayOf(ny(2025, time.November, 3, 0, 0).Unix())
	m := ny(2025, time.November, 3, 10, 0).Unix()
	failed := dayQuote{ord: 2, source: "alphavantage", status: feeds.StatusError, centibps: -1, err: "fetch failed: 503 Service Unavailable"}
	return day, []dayAnswer{
		{minute: m, session: market.Regular, agreed: true, price: 18_512_000_000, median: 18_512_500_000, survivors: 2,
			reason: "incomplete: alphavantage: fetch failed: 503 Service Unavailable", ruleset: 1, quotes: []dayQuote{
				{ord: 0, source: "alpaca", status: feeds.StatusOK, price: 18_512_000_000, bar: m},
				{ord: 1, source: "massive", status: feeds.StatusCarried, price: 18_513_000_000, bar: m - 120, centibps: 540},
				failed,
			}},
		{minute: m + 60, session: market.Regular, median: 18_600_000_000, survivors: 1, reason: "no agreement", ruleset: 1,
			quotes: []dayQuote{{ord: 0, source: "alpaca", status: feeds.StatusOK, price: 18_600_000_000, bar: m + 60}, failed}},
	}
}

// A block in the first format, written by the code before kinds, still reads back whole (its
// quotes without a kind); the writer now writes the second format, whose failed quotes keep
// their kind and whose other quotes take no more room than before.
func TestOldAnswerBlocksStayReadable(t *testing.T) {
	old, err := hex.DecodeString(oldAnswerBlock)
	if err != nil || old[0] != packAnswers {
		t.Fatalf("the old block: format %v, %v", old[:1], err)
	}
	day, want := oldAnswers()
	var got []dayAnswer
	if err := unpackAnswerDay(day, old, func(a dayAnswer) error { got = append(got, a); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the old block reads\n%+v\nwant\n%+v", got, want)
	}

	blob := packAnswerDay(day, want)
	if blob[0] != packAnswersKinds {
		t.Fatalf("the writer writes format %d, want %d", blob[0], packAnswersKinds)
	}
	if len(blob) != len(old) {
		t.Errorf("without kinds the new format takes %d bytes, the old %d", len(blob), len(old))
	}
	for i := range want {
		want[i].quotes[len(want[i].quotes)-1].kind = sources.KindUnavailable
	}
	got = nil
	if err := unpackAnswerDay(day, packAnswerDay(day, want), func(a dayAnswer) error { got = append(got, a); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("with kinds the block reads\n%+v\nwant\n%+v", got, want)
	}
}
