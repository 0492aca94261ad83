package alpaca

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

// hugeBody is a single-symbol bars page of n bars a minute apart, in Alpaca's wire shape.
func hugeBody(n int) []adaptertest.Part {
	return []adaptertest.Part{adaptertest.Lit(`{"bars":[`), adaptertest.Rows(n, func(b []byte, i int) []byte {
		b = append(b, `{"c":`...)
		b = adaptertest.Price(b, i)
		b = append(b, `,"h":199.99,"l":100.01,"n":12,"o":150.5,"t":"`...)
		b = adaptertest.Minute(i).AppendFormat(b, time.RFC3339)
		b = append(b, `","v":`...)
		b = adaptertest.Volume(b, i)
		return append(b, `,"vw":150.123}`...)
	}), adaptertest.Lit(`],"symbol":"AAPL","next_page_token":null}`)}
}

func BenchmarkParse(b *testing.B) {
	const n = 200_000
	raw := adaptertest.GenBytes(hugeBody(n)...)
	b.SetBytes(int64(len(raw)))
	adaptertest.BenchBars(b, n, func() (int, error) {
		bars, _, err := parse(raw, "AAPL")
		return len(bars), err
	})
}
