package alpaca

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/sim"
)

// The emulation writes its bodies of bars by hand for speed; the render test holds its writer
// to the body the simulator wrote before with encoding/json and fmt (the reference renderer
// below), byte for byte, over random pages.

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

// TestEmulationPagesAcrossSymbols asks the multi-symbol endpoint for two symbols' whole day at
// 700 bars a page: every page but the last holds exactly the limit, counted across symbols, the
// pages joined by next_page_token are the tape's raw bars of both, and a token that is not one
// is a 400.
func TestEmulationPagesAcrossSymbols(t *testing.T) {
	now := time.Date(2026, 11, 24, 18, 0, 30, 0, time.UTC) // a Tuesday
	from, to := time.Date(2026, 11, 23, 4, 0, 0, 0, market.NewYork), time.Date(2026, 11, 23, 20, 0, 0, 0, market.NewYork)
	s, get := adaptertest.Emulation(t, "alpaca", now)
	keys := http.Header{"Apca-Api-Key-Id": {sim.Key}, "Apca-Api-Secret-Key": {sim.Secret}}
	q := url.Values{
		"symbols": {"TSLA,NVDA"}, "timeframe": {"1Min"}, "feed": {"iex"}, "limit": {"700"},
		"start": {from.Format(time.RFC3339)}, "end": {to.Add(-time.Minute).Format(time.RFC3339)},
	}
	type page struct {
		Bars map[string][]struct {
			T time.Time   `json:"t"`
			C json.Number `json:"c"`
			V int64       `json:"v"`
		} `json:"bars"`
		Next *string `json:"next_page_token"`
	}
	got := map[string][]sources.Bar{}
	pages := 0
	for {
		status, body := get("/v2/stocks/bars", q, keys)
		var p page
		if status != http.StatusOK || json.Unmarshal(body, &p) != nil {
			t.Fatalf("page %d: HTTP %d %s", pages, status, adaptertest.Clip(body))
		}
		pages++
		n := 0
		for sym, bars := range p.Bars {
			n += len(bars)
			for _, b := range bars {
				got[sym] = append(got[sym], sources.Bar{Start: b.T, Close: numeric.MustPrice(b.C.String()), Volume: b.V})
			}
		}
		if p.Next == nil {
			break
		}
		if n != 700 {
			t.Fatalf("a page with a next token holds %d bars, want the limit 700", n)
		}
		q.Set("page_token", *p.Next)
	}
	for _, sym := range []string{"NVDA", "TSLA"} {
		adaptertest.SameBars(t, fmt.Sprintf("%s over %d pages", sym, pages), got[sym], adaptertest.TapeBars(s.Tape(), sym, from, to, sim.PreRegPost))
	}
	if pages < 3 {
		t.Fatalf("%d pages for two symbols' day at 700 a page", pages)
	}
	if status, _ := get("/v2/stocks/bars", url.Values{"symbols": {"NVDA"}, "timeframe": {"1Min"}, "page_token": {"%%%"}}, keys); status != http.StatusBadRequest {
		t.Fatalf("a bad page token: HTTP %d", status)
	}
}
