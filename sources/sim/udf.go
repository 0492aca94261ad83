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
var pythEmulation = &Emulation{
	Name:     "pyth",
	Sessions: AllDay,
	Symbol:   func(ticker string) string { return "Equity.US." + ticker + "/USD" },
	Auth: func(r *http.Request) AuthState {
		v, _ := HeaderKey(r, "Authorization", "Bearer")
		return KeyCheck(v)
	},
	Denied: func(_ *Request, missing bool) Reply {
		if missing {
			return TextReply(http.StatusUnauthorized, "Unauthorized: missing API key")
		}
		return TextReply(http.StatusUnauthorized, "Unauthorized: invalid API key")
	},
	Limited: func(*Request) Reply { return TextReply(http.StatusTooManyRequests, "Too Many Requests") },
	InBody:  udfInBody,
	Serve: func(rq *Request) Reply {
		p := strings.TrimPrefix(rq.Path, "/v1")
		channel, tail, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if channel == "" || tail != "history" {
			return TextReply(http.StatusNotFound, "Not Found")
		}
		return udfHistory(rq, AllDay, false)
	},
}

// UDF: a generic TradingView UDF history endpoint, GET /history?symbol=NVDA&resolution=1&from=&to=,
// with an optional bearer key (none is fine; a wrong one is 401). Raw prices, pre, regular and
// post, real volumes. At most 31 days per request.
var udfEmulation = &Emulation{
	Name:     "udf",
	Sessions: PreRegPost,
	Auth: func(r *http.Request) AuthState {
		v, present := HeaderKey(r, "Authorization", "Bearer")
		if !present || v == Key {
			return AuthOK
		}
		return AuthWrong
	},
	Denied: func(*Request, bool) Reply {
		return JSONReply(http.StatusUnauthorized, map[string]string{"s": "error", "errmsg": "unauthorized"})
	},
	Limited: func(*Request) Reply {
		return JSONReply(http.StatusTooManyRequests, map[string]string{"s": "error", "errmsg": "too many requests"})
	},
	InBody: udfInBody,
	Serve: func(rq *Request) Reply {
		if rq.Path != "/history" {
			return TextReply(http.StatusNotFound, "Not Found")
		}
		return udfHistory(rq, PreRegPost, true)
	},
}

func udfInBody(*Request) Reply {
	return RawJSON(http.StatusOK, []byte(`{"s":"error","errmsg":"An error occured."}`))
}

func udfError(msg string) Reply {
	return JSONReply(http.StatusOK, map[string]string{"s": "error", "errmsg": msg})
}

// udfHistory answers a UDF history request over [from, to], both inclusive.
func udfHistory(rq *Request, sessions []market.Session, volume bool) Reply {
	sym := rq.TapeSymbol(rq.Query.Get("symbol"))
	if sym == "" {
		return udfError("unknown_symbol")
	}
	if rq.Query.Get("resolution") != "1" {
		return udfError("unsupported resolution: the simulator serves 1")
	}
	from, ok1 := ParseUnix(rq.Query.Get("from"))
	to, ok2 := ParseUnix(rq.Query.Get("to"))
	if !ok1 || !ok2 {
		return JSONReply(http.StatusUnprocessableEntity, map[string]string{"s": "error", "errmsg": "from and to must be unix seconds"})
	}
	if to.Sub(from) > MaxSpan {
		return udfError(TooWide)
	}
	bars := rq.Series(sym, from, to.Add(time.Nanosecond), sessions, false)
	t, o, h, l, c, v := []Num{}, []Num{}, []Num{}, []Num{}, []Num{}, []Num{}
	for _, b := range bars {
		t = append(t, IntNum(b.Start.Unix()))
		o, h, l, c = append(o, Num(ScaledText(b.O))), append(h, Num(ScaledText(b.H))), append(l, Num(ScaledText(b.L))), append(c, Num(ScaledText(b.C)))
		vol := int64(0)
		if volume {
			vol = b.V
		}
		v = append(v, IntNum(vol))
	}
	return JSONReply(http.StatusOK, struct {
		S string `json:"s"`
		T []Num  `json:"t"`
		O []Num  `json:"o"`
		H []Num  `json:"h"`
		L []Num  `json:"l"`
		C []Num  `json:"c"`
		V []Num  `json:"v"`
	}{"ok", t, o, h, l, c, v})
}

func init() {
	Register(pythEmulation)
	Register(udfEmulation)
}
