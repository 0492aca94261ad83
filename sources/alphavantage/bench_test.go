package alphavantage

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

// hugeBody is an intraday answer of n minutes, in Alpha Vantage's wire shape (an object keyed by New
// York wall-clock time, pretty-printed as Alpha Vantage sends it), END-labelled: a bar that
// starts at 03:59 is left out, so no key reads 04:00:00 and the body's evidence agrees.
func hugeBody(n int) []adaptertest.Part {
	return []adaptertest.Part{
		adaptertest.Lit("{\n    \"Meta Data\": {\n        \"1. Information\": \"Intraday (1min) open, high, low, close prices and volume\",\n        \"2. Symbol\": \"AAPL\",\n        \"3. Last Refreshed\": \"2022-11-30 19:59:00\",\n        \"4. Interval\": \"1min\",\n        \"5. Output Size\": \"Full size\",\n        \"6. Time Zone\": \"US/Eastern\"\n    },\n    \"Time Series (1min)\": {\n"),
		{N: n, Sep: ",\n", Row: func(b []byte, i int) []byte {
			key := adaptertest.Minute(i + 1).In(market.NewYork)
			if key.Hour() == 4 && key.Minute() == 0 {
				key = key.Add(-time.Minute) // 03:59:00 again: a repeat the later one of wins
			}
			b = append(b, `        "`...)
			b = key.AppendFormat(b, time.DateTime)
			b = append(b, "\": {\n            \"1. open\": \"150.5000\",\n            \"2. high\": \"199.9900\",\n            \"3. low\": \"100.0100\",\n            \"4. close\": \""...)
			b = adaptertest.Price(b, i)
			b = append(b, "\",\n            \"5. volume\": \""...)
			b = adaptertest.Volume(b, i)
			return append(b, "\"\n        }"...)
		}},
		adaptertest.Lit("\n    }\n}"),
	}
}

func BenchmarkParse(b *testing.B) {
	const n = 200_000
	raw := adaptertest.GenBytes(hugeBody(n)...)
	b.SetBytes(int64(len(raw)))
	adaptertest.BenchBars(b, n, func() (int, error) {
		bars, _, err := parse(raw, "AAPL", true)
		return len(bars), err
	})
}
