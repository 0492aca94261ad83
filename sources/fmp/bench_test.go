package fmp

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

// hugeBody is a historical-chart body of n bars a minute apart, in FMP's wire shape (New York
// wall-clock dates).
func hugeBody(n int) []adaptertest.Part {
	return []adaptertest.Part{adaptertest.Lit(`[`), adaptertest.Rows(n, func(b []byte, i int) []byte {
		b = append(b, `{"date":"`...)
		b = adaptertest.Minute(i).In(market.NewYork).AppendFormat(b, time.DateTime)
		b = append(b, `","open":150.5,"low":100.01,"high":199.99,"close":`...)
		b = adaptertest.Price(b, i)
		b = append(b, `,"volume":`...)
		b = adaptertest.Volume(b, i)
		return append(b, '}')
	}), adaptertest.Lit(`]`)}
}

func BenchmarkParse(b *testing.B) {
	const n = 200_000
	raw := adaptertest.GenBytes(hugeBody(n)...)
	b.SetBytes(int64(len(raw)))
	adaptertest.BenchBars(b, n, func() (int, error) {
		bars, err := parse(raw, "AAPL")
		return len(bars), err
	})
}
