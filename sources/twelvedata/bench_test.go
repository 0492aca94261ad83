package twelvedata

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

// hugeBody is a time_series answer of n bars a minute apart in UTC, in Twelve Data's wire shape
// (numbers as strings, status after the values).
func hugeBody(n int) []adaptertest.Part {
	return []adaptertest.Part{
		adaptertest.Lit(`{"meta":{"symbol":"AAPL","interval":"1min","currency":"USD","exchange_timezone":"America/New_York","exchange":"NASDAQ","mic_code":"XNGS","type":"Common Stock"},"values":[`),
		adaptertest.Rows(n, func(b []byte, i int) []byte {
			b = append(b, `{"datetime":"`...)
			b = adaptertest.Minute(i).AppendFormat(b, time.DateTime)
			b = append(b, `","open":"150.50000","high":"199.99000","low":"100.01000","close":"`...)
			b = adaptertest.Price(b, i)
			b = append(b, `","volume":"`...)
			b = adaptertest.Volume(b, i)
			return append(b, `"}`...)
		}),
		adaptertest.Lit(`],"status":"ok"}`),
	}
}

func BenchmarkParse(b *testing.B) {
	const n = 200_000
	raw := adaptertest.GenBytes(hugeBody(n)...)
	b.SetBytes(int64(len(raw)))
	adaptertest.BenchBars(b, n, func() (int, error) {
		bars, _, err := parse(raw, "AAPL", time.UTC)
		return len(bars), err
	})
}
