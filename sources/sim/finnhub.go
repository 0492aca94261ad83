package sim

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Finnhub: GET /api/v1/stock/candle (also /stock/candle, for a base_url that ends in /api/v1)
// ?symbol=&resolution=1&from=&to= (unix seconds, both inclusive; at most one month of intraday
// is returned per call, from `from`) &token= (or the X-Finnhub-Token header). Intraday candles are
// unadjusted, regular session only. No data is {"s":"no_data"} — also for an unknown symbol.
var finnhubEmulation = &emulation{
	name:     "finnhub",
	sessions: regular,
	auth: func(r *http.Request) authState {
		return keyCheck(r.URL.Query().Get("token"), r.Header.Get("X-Finnhub-Token"))
	},
	denied: func(_ *request, missing bool) reply {
		if missing {
			return rawJSON(http.StatusUnauthorized, []byte(`{"error":"Please use an API key."}`))
		}
		return rawJSON(http.StatusUnauthorized, []byte(`{"error":"Invalid API key."}`))
	},
	limited: func(*request) reply {
		return rawJSON(http.StatusTooManyRequests, []byte(`{"error":"API limit reached. Please try again later. Remaining Limit: 0"}`))
	},
	inBody: func(*request) reply {
		return rawJSON(http.StatusOK, []byte(`{"error":"Internal server error. Please try again later."}`))
	},
	serve: finnhubCandles,
}

func finnhubCandles(s *Server, rq *request) reply {
	if p := strings.TrimPrefix(rq.path, "/api/v1"); p != "/stock/candle" {
		return textReply(http.StatusNotFound, "404 page not found")
	}
	if rq.q.Get("resolution") != "1" {
		return rawJSON(http.StatusUnprocessableEntity, []byte(`{"error":"Wrong resolution (the simulator serves 1)."}`))
	}
	from, ok1 := parseUnix(rq.q.Get("from"))
	to, ok2 := parseUnix(rq.q.Get("to"))
	if !ok1 || !ok2 {
		return rawJSON(http.StatusUnprocessableEntity, []byte(`{"error":"Wrong from/to: unix seconds expected."}`))
	}
	noData := rawJSON(http.StatusOK, []byte(`{"s":"no_data"}`))
	sym := rq.tapeSymbol(strings.ToUpper(rq.q.Get("symbol")))
	if sym == "" {
		return noData
	}
	if month := from.AddDate(0, 1, 0); to.After(month) {
		to = month
	}
	bars := s.series(rq, sym, from, to.Add(time.Nanosecond), regular, false)
	if len(bars) == 0 {
		return noData
	}
	arr := func(f func(ohlcv) string) string {
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
		arr(func(b ohlcv) string { return scaledText(b.c) }), arr(func(b ohlcv) string { return scaledText(b.h) }),
		arr(func(b ohlcv) string { return scaledText(b.l) }), arr(func(b ohlcv) string { return scaledText(b.o) }),
		arr(func(b ohlcv) string { return fmt.Sprint(b.start.Unix()) }), arr(func(b ohlcv) string { return fmt.Sprint(b.v) }))
	return rawJSON(http.StatusOK, []byte(body))
}

func init() {
	register(finnhubEmulation)
}
