package sim

import (
	"net/http"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
)

// Pyth Pro History: GET /v1/{channel}/history (also /{channel}/history, for a base_url that
// already ends in /v1) ?symbol=Equity.US.NVDA/USD (any case) &resolution=1 &from=&to= (unix
// seconds, both inclusive). "Authorization: Bearer <key>" is required. TradingView UDF answers:
// s "ok" with arrays (empty when there is nothing: never "no_data"), s "error" with errmsg.
// Raw prices (a split applies from the next pre-market), all four sessions including
// overnight, volume always 0 (aggregate prices, not trades). At most 31 days per request.
var pythEmulation = &emulation{
	name:     "pyth",
	sessions: allDay,
	symbol:   func(ticker string) string { return "Equity.US." + ticker + "/USD" },
	auth: func(r *http.Request) authState {
		v, _ := headerKey(r, "Authorization", "Bearer")
		return keyCheck(v)
	},
	denied: func(_ *request, missing bool) reply {
		if missing {
			return textReply(http.StatusUnauthorized, "Unauthorized: missing API key")
		}
		return textReply(http.StatusUnauthorized, "Unauthorized: invalid API key")
	},
	limited: func(*request) reply { return textReply(http.StatusTooManyRequests, "Too Many Requests") },
	inBody:  udfInBody,
	serve: func(s *Server, rq *request) reply {
		p := strings.TrimPrefix(rq.path, "/v1")
		channel, tail, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if channel == "" || tail != "history" {
			return textReply(http.StatusNotFound, "Not Found")
		}
		return udfHistory(s, rq, allDay, false)
	},
}

// UDF: a generic TradingView UDF history endpoint, GET /history?symbol=NVDA&resolution=1&from=&to=,
// with an optional bearer key (none is fine; a wrong one is 401). Raw prices, pre, regular and
// post, real volumes. At most 31 days per request.
var udfEmulation = &emulation{
	name:     "udf",
	sessions: preRegPost,
	auth: func(r *http.Request) authState {
		v, present := headerKey(r, "Authorization", "Bearer")
		if !present || v == Key {
			return authOK
		}
		return authWrong
	},
	denied: func(*request, bool) reply {
		return jsonReply(http.StatusUnauthorized, map[string]string{"s": "error", "errmsg": "unauthorized"})
	},
	limited: func(*request) reply {
		return jsonReply(http.StatusTooManyRequests, map[string]string{"s": "error", "errmsg": "too many requests"})
	},
	inBody: udfInBody,
	serve: func(s *Server, rq *request) reply {
		if rq.path != "/history" {
			return textReply(http.StatusNotFound, "Not Found")
		}
		return udfHistory(s, rq, preRegPost, true)
	},
}

func udfInBody(*request) reply {
	return rawJSON(http.StatusOK, []byte(`{"s":"error","errmsg":"An error occured."}`))
}

func udfError(msg string) reply {
	return jsonReply(http.StatusOK, map[string]string{"s": "error", "errmsg": msg})
}

// udfHistory answers a UDF history request over [from, to], both inclusive.
func udfHistory(s *Server, rq *request, sessions []market.Session, volume bool) reply {
	sym := rq.tapeSymbol(rq.q.Get("symbol"))
	if sym == "" {
		return udfError("unknown_symbol")
	}
	if rq.q.Get("resolution") != "1" {
		return udfError("unsupported resolution: the simulator serves 1")
	}
	from, ok1 := parseUnix(rq.q.Get("from"))
	to, ok2 := parseUnix(rq.q.Get("to"))
	if !ok1 || !ok2 {
		return jsonReply(http.StatusUnprocessableEntity, map[string]string{"s": "error", "errmsg": "from and to must be unix seconds"})
	}
	if to.Sub(from) > maxSpan {
		return udfError(tooWide)
	}
	bars := s.series(rq, sym, from, to.Add(time.Nanosecond), sessions, false)
	t, o, h, l, c, v := []num{}, []num{}, []num{}, []num{}, []num{}, []num{}
	for _, b := range bars {
		t = append(t, intNum(b.start.Unix()))
		o, h, l, c = append(o, num(scaledText(b.o))), append(h, num(scaledText(b.h))), append(l, num(scaledText(b.l))), append(c, num(scaledText(b.c)))
		vol := int64(0)
		if volume {
			vol = b.v
		}
		v = append(v, intNum(vol))
	}
	return jsonReply(http.StatusOK, struct {
		S string `json:"s"`
		T []num  `json:"t"`
		O []num  `json:"o"`
		H []num  `json:"h"`
		L []num  `json:"l"`
		C []num  `json:"c"`
		V []num  `json:"v"`
	}{"ok", t, o, h, l, c, v})
}

func init() {
	register(pythEmulation)
	register(udfEmulation)
}
