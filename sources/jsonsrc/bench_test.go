package jsonsrc

import (
	"strconv"
	"testing"

	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

// hugeSpec reads hugeBody: {"meta":{"symbol":…},"data":{"bars":[{"ts":…,"px":…,"vol":…}]}}.
var hugeSpec = Spec{BarsPath: "data.bars", TimePath: "ts", TimeFormat: "unix", PricePath: "px", VolumePath: "vol", ErrorPath: "error", SymbolPath: "meta.symbol"}

// hugeBody is a body of n bars a minute apart that hugeSpec reads.
func hugeBody(n int) []adaptertest.Part {
	return []adaptertest.Part{adaptertest.Lit(`{"meta":{"symbol":"AAPL"},"data":{"bars":[`), adaptertest.Rows(n, func(b []byte, i int) []byte {
		b = append(b, `{"ts":`...)
		b = strconv.AppendInt(b, adaptertest.Minute(i).Unix(), 10)
		b = append(b, `,"px":`...)
		b = adaptertest.Price(b, i)
		b = append(b, `,"vol":`...)
		b = adaptertest.Volume(b, i)
		return append(b, '}')
	}), adaptertest.Lit(`]},"error":null}`)}
}

func BenchmarkParse(b *testing.B) {
	const n = 200_000
	raw := adaptertest.GenBytes(hugeBody(n)...)
	b.SetBytes(int64(len(raw)))
	adaptertest.BenchBars(b, n, func() (int, error) {
		bars, err := Parse(raw, hugeSpec, "AAPL")
		return len(bars), err
	})
}
