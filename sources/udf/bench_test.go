package udf

import (
	"strconv"
	"testing"

	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

// hugeBody is a history body of n bars a minute apart. timeFirst writes it in the UDF order
// (s, t, then the prices, as pyth does); otherwise in name order as Finnhub does, c before t.
func hugeBody(n int, timeFirst bool) []adaptertest.Part {
	col := func(row func(b []byte, i int) []byte) adaptertest.Part { return adaptertest.Rows(n, row) }
	price := func(b []byte, i int) []byte { return adaptertest.Price(b, i) }
	times := col(func(b []byte, i int) []byte { return strconv.AppendInt(b, adaptertest.Minute(i).Unix(), 10) })
	volume := col(func(b []byte, i int) []byte { return adaptertest.Volume(b, i) })
	if timeFirst {
		return []adaptertest.Part{adaptertest.Lit(`{"s":"ok","t":[`), times, adaptertest.Lit(`],"o":[`), col(price),
			adaptertest.Lit(`],"h":[`), col(price), adaptertest.Lit(`],"l":[`), col(price), adaptertest.Lit(`],"c":[`), col(price),
			adaptertest.Lit(`],"v":[`), volume, adaptertest.Lit(`]}`)}
	}
	return []adaptertest.Part{adaptertest.Lit(`{"c":[`), col(price), adaptertest.Lit(`],"h":[`), col(price),
		adaptertest.Lit(`],"l":[`), col(price), adaptertest.Lit(`],"o":[`), col(price), adaptertest.Lit(`],"s":"ok","t":[`), times,
		adaptertest.Lit(`],"v":[`), volume, adaptertest.Lit(`]}`)}
}

func BenchmarkParse(b *testing.B) {
	const n = 200_000
	raw := adaptertest.GenBytes(hugeBody(n, false)...)
	b.SetBytes(int64(len(raw)))
	adaptertest.BenchBars(b, n, func() (int, error) {
		bars, err := Parse(raw)
		return len(bars), err
	})
}
