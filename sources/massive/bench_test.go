package massive

import (
	"strconv"
	"testing"

	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

// hugeBody is an aggregates page of n bars a minute apart, in Massive's wire shape (status after
// the results, as Massive writes it).
func hugeBody(n int) []adaptertest.Part {
	return []adaptertest.Part{adaptertest.Lit(`{"ticker":"AAPL","queryCount":` + strconv.Itoa(n) + `,"resultsCount":` + strconv.Itoa(n) + `,"adjusted":false,"results":[`),
		adaptertest.Rows(n, func(b []byte, i int) []byte {
			b = append(b, `{"v":`...)
			b = adaptertest.Volume(b, i)
			b = append(b, `,"vw":150.123,"o":150.5,"c":`...)
			b = adaptertest.Price(b, i)
			b = append(b, `,"h":199.99,"l":100.01,"t":`...)
			b = strconv.AppendInt(b, adaptertest.Minute(i).UnixMilli(), 10)
			return append(b, `,"n":12}`...)
		}), adaptertest.Lit(`],"status":"OK","request_id":"6a7e466379af0a71039d60cc78e72282","count":` + strconv.Itoa(n) + `}`)}
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
