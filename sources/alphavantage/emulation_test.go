package alphavantage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
	"github.com/pricerig/pricerig/sources/sim"
)

// The emulation writes its bodies of bars by hand for speed; the render test holds its writer
// to the body the simulator wrote before with encoding/json and fmt (the reference renderer
// below), byte for byte, over random pages.

func renderAlphavantageRef(sym, size string, bars []sim.OHLCV) []byte {
	key := func(b sim.OHLCV) string { return b.Start.In(market.NewYork).Format(time.DateTime) }
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
			sim.FixedText(b.O, 4), sim.FixedText(b.H, 4), sim.FixedText(b.L, 4), sim.FixedText(b.C, 4), strconv.FormatInt(b.V, 10))
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
		bars := adaptertest.RandomBars(r, start, 1+r.IntN(40))
		sym := []string{"NVDA", "X<&>\""}[r.IntN(2)]
		size := []string{"Compact", "Full size"}[i%2]
		if got, want := renderAlphavantage(sym, size, bars), renderAlphavantageRef(sym, size, bars); !bytes.Equal(got, want) {
			t.Fatalf("body %d:\n got %s\nwant %s", i, adaptertest.Clip(got), adaptertest.Clip(want))
		}
	}
}
