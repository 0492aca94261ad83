package adaptertest

import (
	"math/rand/v2"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources/sim"
)

// RandomBars is n bars a minute apart from start with prices of 0 to 8 decimals and volumes from
// 0 up: the input of an emulation's render test, which holds its hand-written body writer to the
// body encoding/json writes, byte for byte.
func RandomBars(r *rand.Rand, start time.Time, n int) []sim.OHLCV {
	bars := make([]sim.OHLCV, n)
	for i := range bars {
		p := func() numeric.Scaled {
			pow := int64(1)
			for range r.IntN(9) {
				pow *= 10
			}
			return numeric.Scaled(r.Int64N(500_000)*pow + 1)
		}
		bars[i] = sim.OHLCV{Start: start.Add(time.Duration(i) * time.Minute), O: p(), H: p(), L: p(), C: p(), V: r.Int64N(1 << uint(r.IntN(40)))}
	}
	return bars
}

// Clip is a body cut to 300 bytes for a failure message.
func Clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
