package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// The bodies of bars are written by hand for speed; these tests hold each one to the body the
// simulator wrote before with encoding/json and fmt (the reference renderers below), byte for
// byte, over random pages.

func TestAppendDecimalAndFixedMatchTheirText(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200_000 {
		v := r.Int64N(1 << uint(1+i%62))
		for _, scale := range []int{0, 1, 4, 8} {
			if got, want := string(AppendDecimal(nil, v, scale)), decimalText(v, scale); got != want {
				t.Fatalf("appendDecimal(%d, %d) = %q, decimalText %q", v, scale, got, want)
			}
		}
		if v > 1<<53 {
			continue
		}
		for _, n := range []int{0, 1, 2, 4, 5, 8} {
			if got, want := string(AppendFixed(nil, numeric.Scaled(v), n)), FixedText(numeric.Scaled(v), n); got != want {
				t.Fatalf("appendFixed(%d, %d) = %q, fixedText %q", v, n, got, want)
			}
		}
	}
}

// randomBars is n bars a minute apart from start with prices of 0 to 8 decimals and volumes
// from 0 up.
func randomBars(r *rand.Rand, start time.Time, n int) []OHLCV {
	bars := make([]OHLCV, n)
	for i := range bars {
		p := func() numeric.Scaled {
			return numeric.Scaled(r.Int64N(500_000)*ipow10(r.IntN(9)) + 1)
		}
		bars[i] = OHLCV{Start: start.Add(time.Duration(i) * time.Minute), O: p(), H: p(), L: p(), C: p(), V: r.Int64N(1 << uint(r.IntN(40)))}
	}
	return bars
}

type alpacaBarRef struct {
	T  string `json:"t"`
	O  Num    `json:"o"`
	H  Num    `json:"h"`
	L  Num    `json:"l"`
	C  Num    `json:"c"`
	V  Num    `json:"v"`
	N  Num    `json:"n"`
	VW Num    `json:"vw"`
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
			T: b.Start.UTC().Format(time.RFC3339), O: Num(ScaledText(b.O)), H: Num(ScaledText(b.H)),
			L: Num(ScaledText(b.L)), C: Num(ScaledText(b.C)), V: IntNum(b.V), N: IntNum(b.V/97 + 1),
			VW: Num(ScaledText(scaled(vw))),
		})
	}
	if single {
		var bars any
		for _, bs := range out {
			bars = bs
		}
		return JSONReply(200, map[string]any{"bars": bars, "symbol": name, "next_page_token": next}).Body
	}
	return JSONReply(200, map[string]any{"bars": out, "next_page_token": next}).Body
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
			for _, b := range randomBars(r, start, r.IntN(30)) {
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
			t.Fatalf("page %d:\n got %s\nwant %s", i, clip(got), clip(want))
		}
	}
}

type massiveAggRef struct {
	C  Num `json:"c"`
	H  Num `json:"h"`
	L  Num `json:"l"`
	N  Num `json:"n"`
	O  Num `json:"o"`
	T  Num `json:"t"`
	V  Num `json:"v"`
	VW Num `json:"vw"`
}

func renderMassiveRef(ticker string, adjusted bool, requestID, nextURL string, bars []OHLCV) []byte {
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
				C: Num(ScaledText(b.C)), H: Num(ScaledText(b.H)), L: Num(ScaledText(b.L)), N: IntNum(b.V/97 + 1),
				O: Num(ScaledText(b.O)), T: IntNum(b.Start.UnixMilli()), V: IntNum(b.V), VW: Num(ScaledText(scaled(vw))),
			}
		}
		out["results"] = results
	}
	return JSONReply(200, out).Body
}

func TestRenderMassiveMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	start := time.Date(2026, 3, 6, 14, 30, 0, 0, time.UTC)
	for i := range 300 {
		bars := randomBars(r, start, r.IntN(40))
		next := ""
		if i%2 == 0 {
			next = "http://127.0.0.1:1/massive/v2/aggs/ticker/NVDA/range/1/minute/1/2?cursor=YWRq&x=<y>"
		}
		ticker := []string{"NVDA", "A\"B"}[r.IntN(2)]
		got, want := renderMassive(ticker, i%3 == 0, "abc"+strconv.Itoa(i), next, bars), renderMassiveRef(ticker, i%3 == 0, "abc"+strconv.Itoa(i), next, bars)
		if !bytes.Equal(got, want) {
			t.Fatalf("page %d:\n got %s\nwant %s", i, clip(got), clip(want))
		}
	}
}

func renderAlphavantageRef(sym, size string, bars []OHLCV) []byte {
	key := func(b OHLCV) string { return b.Start.In(market.NewYork).Format(time.DateTime) }
	var buf bytes.Buffer
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	buf.WriteString("{\n    \"Meta Data\": {\n")
	fmt.Fprintf(&buf, "        \"1. Information\": %s,\n", q("Intraday (1min) open, high, low, close prices and volume"))
	fmt.Fprintf(&buf, "        \"2. Symbol\": %s,\n", q(sym))
	fmt.Fprintf(&buf, "        \"3. Last Refreshed\": %s,\n", q(key(bars[len(bars)-1])))
	fmt.Fprintf(&buf, "        \"4. Interval\": \"1min\",\n")
	fmt.Fprintf(&buf, "        \"5. Output Size\": %s,\n", q(size))
	fmt.Fprintf(&buf, "        \"6. Time Zone\": \"US/Eastern\"\n    },\n    \"Time Series (1min)\": {\n")
	for i := len(bars) - 1; i >= 0; i-- {
		b := bars[i]
		fmt.Fprintf(&buf, "        %s: {\n", q(key(b)))
		fmt.Fprintf(&buf, "            \"1. open\": %q,\n            \"2. high\": %q,\n            \"3. low\": %q,\n            \"4. close\": %q,\n            \"5. volume\": %q\n        }",
			FixedText(b.O, 4), FixedText(b.H, 4), FixedText(b.L, 4), FixedText(b.C, 4), strconv.FormatInt(b.V, 10))
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
	}
	buf.WriteString("    }\n}")
	return buf.Bytes()
}

func TestRenderAlphavantageMatchesTheFormerWriter(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	start := time.Date(2026, 3, 6, 14, 30, 0, 0, time.UTC)
	for i := range 200 {
		bars := randomBars(r, start, 1+r.IntN(40))
		sym := []string{"NVDA", "X<&>\""}[r.IntN(2)]
		size := []string{"Compact", "Full size"}[i%2]
		if got, want := renderAlphavantage(sym, size, bars), renderAlphavantageRef(sym, size, bars); !bytes.Equal(got, want) {
			t.Fatalf("body %d:\n got %s\nwant %s", i, clip(got), clip(want))
		}
	}
}
