package alpaca

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/sim"
)

// The emulation writes its bodies of bars by hand for speed; this test holds its writer to the
// body the simulator wrote before with encoding/json and fmt (the reference renderer below),
// byte for byte, over random pages.

type alpacaBarRef struct {
	T  string  `json:"t"`
	O  sim.Num `json:"o"`
	H  sim.Num `json:"h"`
	L  sim.Num `json:"l"`
	C  sim.Num `json:"c"`
	V  sim.Num `json:"v"`
	N  sim.Num `json:"n"`
	VW sim.Num `json:"vw"`
}

func renderAlpacaRef(page []alpacaItem, single bool, name, nextTok string) []byte {
	var next any
	if nextTok != "" {
		next = nextTok
	}
	out := map[string][]alpacaBarRef{}
	for _, it := range page {
		b := it.bar
		vw := (int64(b.H) + int64(b.L) + int64(b.C)) / 3 / 100 * 100
		out[it.sym] = append(out[it.sym], alpacaBarRef{
			T: b.Start.UTC().Format(time.RFC3339), O: sim.Num(sim.ScaledText(b.O)), H: sim.Num(sim.ScaledText(b.H)),
			L: sim.Num(sim.ScaledText(b.L)), C: sim.Num(sim.ScaledText(b.C)), V: sim.IntNum(b.V), N: sim.IntNum(b.V/97 + 1),
			VW: sim.Num(sim.ScaledText(numeric.Scaled(vw))),
		})
	}
	if single {
		var bars any
		for _, bs := range out {
			bars = bs
		}
		return sim.JSONReply(200, map[string]any{"bars": bars, "symbol": name, "next_page_token": next}).Body
	}
	return sim.JSONReply(200, map[string]any{"bars": out, "next_page_token": next}).Body
}

func TestRenderAlpacaMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2026, 3, 6, 14, 30, 0, 0, time.UTC)
	for i := range 300 {
		single := i%2 == 0
		syms := []string{"NVDA", "SPY", "TSLA"}
		if single {
			syms = syms[:1]
		}
		var page []alpacaItem
		for _, sym := range syms {
			for _, b := range adaptertest.RandomBars(r, start, r.IntN(30)) {
				page = append(page, alpacaItem{sym, b})
			}
		}
		next := ""
		if r.IntN(2) == 0 {
			next = encodeAlpacaToken("SPY", start)
		}
		name := []string{"NVDA", "NOPE<&>"}[r.IntN(2)]
		got, want := renderAlpaca(page, single, name, next), renderAlpacaRef(page, single, name, next)
		if !bytes.Equal(got, want) {
			t.Fatalf("page %d:\n got %s\nwant %s", i, adaptertest.Clip(got), adaptertest.Clip(want))
		}
	}
}
