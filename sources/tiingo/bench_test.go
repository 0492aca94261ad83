package tiingo

import (
	"testing"

	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

// hugeBody is an IEX prices body of n bars a minute apart, in Tiingo's wire shape.
func hugeBody(n int) []adaptertest.Part {
	return []adaptertest.Part{adaptertest.Lit(`[`), adaptertest.Rows(n, func(b []byte, i int) []byte {
		b = append(b, `{"date":"`...)
		b = adaptertest.Minute(i).AppendFormat(b, "2006-01-02T15:04:05.000Z")
		b = append(b, `","open":150.5,"high":199.99,"low":100.01,"close":`...)
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
		bars, err := parse(raw)
		return len(bars), err
	})
}
