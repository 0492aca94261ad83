package history

import (
	"testing"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// benchDay is a full day of one symbol as a backfill stores it: 960 minutes (pre, regular and
// post sessions) of three sources, one of which failed for an hour (unavailable).
func benchDay() (int64, []dayAnswer) {
	day := dayOf(1_762_128_000)
	m := day + 8*3600
	answers := make([]dayAnswer, 960)
	for i := range answers {
		p := numeric.Scaled(18_500_000_000 + int64(i%37)*1_000_000)
		a := dayAnswer{minute: m, session: market.Session("regular"), agreed: true, price: p, median: p + 500_000,
			survivors: 3, complete: true, ruleset: 1, quotes: []dayQuote{
				{ord: 0, source: "alpaca", status: feeds.StatusOK, price: p, bar: m, centibps: 0},
				{ord: 1, source: "massive", status: feeds.StatusCarried, price: p + 1_000_000, bar: m - 60, centibps: 540},
				{ord: 2, source: "alphavantage", status: feeds.StatusOK, price: p - 1_000_000, bar: m, centibps: 540},
			}}
		if i >= 300 && i < 360 {
			a.survivors, a.complete, a.reason = 2, false, "incomplete: alphavantage: fetch failed: 503 Service Unavailable"
			a.quotes[2] = dayQuote{ord: 2, source: "alphavantage", status: feeds.StatusError, centibps: -1,
				err: "fetch failed: 503 Service Unavailable", kind: sources.KindUnavailable}
		}
		answers[i] = a
		m += 60
	}
	return day, answers
}

func BenchmarkPackAnswerDay(b *testing.B) {
	day, answers := benchDay()
	b.ReportAllocs()
	for b.Loop() {
		packAnswerDay(day, answers)
	}
}

// The decode path every reconcile, Price, audit and export reads through.
func BenchmarkUnpackAnswerDay(b *testing.B) {
	day, answers := benchDay()
	blob := packAnswerDay(day, answers)
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		if err := unpackAnswerDay(day, blob, func(dayAnswer) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
