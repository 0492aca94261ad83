package massive

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/sim"
)

// The emulation writes its bodies of bars by hand for speed; this test holds its writer to the
// body the simulator wrote before with encoding/json and fmt (the reference renderer below),
// byte for byte, over random pages.

type massiveAggRef struct {
	C  sim.Num `json:"c"`
	H  sim.Num `json:"h"`
	L  sim.Num `json:"l"`
	N  sim.Num `json:"n"`
	O  sim.Num `json:"o"`
	T  sim.Num `json:"t"`
	V  sim.Num `json:"v"`
	VW sim.Num `json:"vw"`
}

func renderMassiveRef(ticker string, adjusted bool, requestID, nextURL string, bars []sim.OHLCV) []byte {
	out := map[string]any{"ticker": ticker, "adjusted": adjusted, "status": "OK", "request_id": requestID}
	if nextURL != "" {
		out["next_url"] = nextURL
	}
	out["queryCount"], out["resultsCount"], out["count"] = len(bars), len(bars), len(bars)
	if len(bars) > 0 {
		results := make([]massiveAggRef, len(bars))
		for i, b := range bars {
			vw := (int64(b.H) + int64(b.L) + int64(b.C)) / 3 / 10_000 * 10_000
			results[i] = massiveAggRef{
				C: sim.Num(sim.ScaledText(b.C)), H: sim.Num(sim.ScaledText(b.H)), L: sim.Num(sim.ScaledText(b.L)), N: sim.IntNum(b.V/97 + 1),
				O: sim.Num(sim.ScaledText(b.O)), T: sim.IntNum(b.Start.UnixMilli()), V: sim.IntNum(b.V), VW: sim.Num(sim.ScaledText(numeric.Scaled(vw))),
			}
		}
		out["results"] = results
	}
	return sim.JSONReply(200, out).Body
}

func TestRenderMassiveMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	start := time.Date(2026, 3, 6, 14, 30, 0, 0, time.UTC)
	for i := range 300 {
		bars := adaptertest.RandomBars(r, start, r.IntN(40))
		next := ""
		if i%2 == 0 {
			next = "http://127.0.0.1:1/massive/v2/aggs/ticker/NVDA/range/1/minute/1/2?cursor=YWRq&x=<y>"
		}
		ticker := []string{"NVDA", "A\"B"}[r.IntN(2)]
		got, want := renderMassive(ticker, i%3 == 0, "abc"+strconv.Itoa(i), next, bars), renderMassiveRef(ticker, i%3 == 0, "abc"+strconv.Itoa(i), next, bars)
		if !bytes.Equal(got, want) {
			t.Fatalf("page %d:\n got %s\nwant %s", i, adaptertest.Clip(got), adaptertest.Clip(want))
		}
	}
}
