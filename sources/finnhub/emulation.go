package finnhub

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pricerig/pricerig/sources/sim"
)

// Finnhub: GET /api/v1/stock/candle (also /stock/candle, for a base_url that ends in /api/v1)
// ?symbol=&resolution=1&from=&to= (unix seconds, both inclusive; at most one month of intraday
// is returned per call, from `from`) &token= (or the X-Finnhub-Token header). Intraday candles are
// unadjusted, regular session only. No data is {"s":"no_data"} — also for an unknown symbol.
var finnhubEmulation = &sim.Emulation{
	Name:     "finnhub",
	Sessions: sim.Regular,
	Auth: func(r *http.Request) sim.AuthState {
		return sim.KeyCheck(r.URL.Query().Get("token"), r.Header.Get("X-Finnhub-Token"))
	},
	Denied: func(_ *sim.Request, missing bool) sim.Reply {
		if missing {
			return sim.RawJSON(http.StatusUnauthorized, []byte(`{"error":"Please use an API key."}`))
		}
		return sim.RawJSON(http.StatusUnauthorized, []byte(`{"error":"Invalid API key."}`))
	},
	Limited: func(*sim.Request) sim.Reply {
		return sim.RawJSON(http.StatusTooManyRequests, []byte(`{"error":"API limit reached. Please try again later. Remaining Limit: 0"}`))
	},
	InBody: func(*sim.Request) sim.Reply {
		return sim.RawJSON(http.StatusOK, []byte(`{"error":"Internal server error. Please try again later."}`))
	},
	// a free key's answer to stock/candle, as recorded in
	// ../shared/samples/finnhub-error-403-no-access.json
	NotEntitled: func(*sim.Request) sim.Reply {
		return sim.RawJSON(http.StatusForbidden, []byte(`{"error": "You don't have access to this resource."}`))
	},
	Serve: finnhubCandles,
}

func finnhubCandles(rq *sim.Request) sim.Reply {
	if p := strings.TrimPrefix(rq.Path, "/api/v1"); p != "/stock/candle" {
		return sim.TextReply(http.StatusNotFound, "404 page not found")
	}
	if rq.Query.Get("resolution") != "1" {
		return sim.RawJSON(http.StatusUnprocessableEntity, []byte(`{"error":"Wrong resolution (the simulator serves 1)."}`))
	}
	from, ok1 := sim.ParseUnix(rq.Query.Get("from"))
	to, ok2 := sim.ParseUnix(rq.Query.Get("to"))
	if !ok1 || !ok2 {
		return sim.RawJSON(http.StatusUnprocessableEntity, []byte(`{"error":"Wrong from/to: unix seconds expected."}`))
	}
	noData := sim.RawJSON(http.StatusOK, []byte(`{"s":"no_data"}`))
	sym := rq.TapeSymbol(strings.ToUpper(rq.Query.Get("symbol")))
	if sym == "" {
		return noData
	}
	if month := from.AddDate(0, 1, 0); to.After(month) {
		to = month
	}
	bars := rq.Series(sym, from, to.Add(time.Nanosecond), sim.Regular, false)
	if len(bars) == 0 {
		return noData
	}
	arr := func(f func(sim.OHLCV) string) string {
		var b bytes.Buffer
		b.WriteByte('[')
		for i, x := range bars {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f(x))
		}
		b.WriteByte(']')
		return b.String()
	}
	body := fmt.Sprintf(`{"c":%s,"h":%s,"l":%s,"o":%s,"s":"ok","t":%s,"v":%s}`,
		arr(func(b sim.OHLCV) string { return sim.ScaledText(b.C) }), arr(func(b sim.OHLCV) string { return sim.ScaledText(b.H) }),
		arr(func(b sim.OHLCV) string { return sim.ScaledText(b.L) }), arr(func(b sim.OHLCV) string { return sim.ScaledText(b.O) }),
		arr(func(b sim.OHLCV) string { return fmt.Sprint(b.Start.Unix()) }), arr(func(b sim.OHLCV) string { return fmt.Sprint(b.V) }))
	return sim.RawJSON(http.StatusOK, []byte(body))
}

func init() { sim.Register(finnhubEmulation) }
