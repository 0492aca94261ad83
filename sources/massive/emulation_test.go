package massive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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

// TestEmulationPagesWithoutTheKey reads SPY from Friday to Monday at 500 results a page: each
// next_url carries no key (asked as is, it is a 401), every page that has one holds the limit,
// and the pages joined are the tape's raw bars.
func TestEmulationPagesWithoutTheKey(t *testing.T) {
	now := time.Date(2026, 11, 24, 18, 0, 30, 0, time.UTC) // a Tuesday
	from, to := time.Date(2026, 11, 20, 0, 0, 0, 0, market.NewYork), time.Date(2026, 11, 24, 0, 0, 0, 0, market.NewYork)
	s, get := adaptertest.Emulation(t, "massive", now)
	path := fmt.Sprintf("/v2/aggs/ticker/SPY/range/1/minute/%d/%d", from.UnixMilli(), to.UnixMilli()-1)
	q := url.Values{"adjusted": {"false"}, "limit": {"500"}, "apiKey": {sim.Key}}
	var all []sources.Bar
	for pages := 0; ; pages++ {
		status, raw := get(path, q, nil)
		var body struct {
			Results []struct {
				T int64       `json:"t"`
				C json.Number `json:"c"`
				V int64       `json:"v"`
			} `json:"results"`
			NextURL string `json:"next_url"`
		}
		if status != http.StatusOK || json.Unmarshal(raw, &body) != nil {
			t.Fatalf("page %d: HTTP %d %s", pages, status, adaptertest.Clip(raw))
		}
		for _, b := range body.Results {
			all = append(all, sources.Bar{Start: time.UnixMilli(b.T).UTC(), Close: numeric.MustPrice(b.C.String()), Volume: b.V})
		}
		if body.NextURL == "" {
			if pages < 2 {
				t.Fatalf("%d pages", pages+1)
			}
			break
		}
		if len(body.Results) != 500 {
			t.Fatalf("page %d with a next_url holds %d results", pages, len(body.Results))
		}
		u, err := url.Parse(body.NextURL)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(body.NextURL, sim.Key) || u.Query().Has("apiKey") {
			t.Fatalf("next_url carries the key: %s", body.NextURL)
		}
		path, q = strings.TrimPrefix(u.Path, "/massive"), u.Query()
		if status, _ := get(path, q, nil); status != http.StatusUnauthorized {
			t.Fatalf("next_url without the key: HTTP %d", status)
		}
		q.Set("apiKey", sim.Key)
	}
	adaptertest.SameBars(t, "SPY over the pages", all, adaptertest.TapeBars(s.Tape(), "SPY", from, to, sim.PreRegPost))
}
