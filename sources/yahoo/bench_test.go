package yahoo

import (
	"strconv"
	"testing"

	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

// hugeBody is a chart of n bars a minute apart, in Yahoo's wire shape: the timestamp column, then
// the quote's columns in Yahoo's order.
func hugeBody(n int) []adaptertest.Part {
	col := func(row func(b []byte, i int) []byte) adaptertest.Part { return adaptertest.Rows(n, row) }
	price := func(b []byte, i int) []byte { return adaptertest.Price(b, i) }
	return []adaptertest.Part{
		adaptertest.Lit(`{"chart":{"result":[{"meta":{"currency":"USD","symbol":"AAPL","exchangeName":"NMS","instrumentType":"EQUITY","gmtoffset":-14400,"timezone":"EDT","exchangeTimezoneName":"America/New_York","dataGranularity":"1m","range":""},"timestamp":[`),
		col(func(b []byte, i int) []byte { return strconv.AppendInt(b, adaptertest.Minute(i).Unix(), 10) }),
		adaptertest.Lit(`],"indicators":{"quote":[{"high":[`), col(price),
		adaptertest.Lit(`],"close":[`), col(price),
		adaptertest.Lit(`],"open":[`), col(price),
		adaptertest.Lit(`],"volume":[`), col(func(b []byte, i int) []byte { return adaptertest.Volume(b, i) }),
		adaptertest.Lit(`],"low":[`), col(price),
		adaptertest.Lit(`]}]}}],"error":null}}`),
	}
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
