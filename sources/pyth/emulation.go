package pyth

import (
	"net/http"
	"strings"

	"github.com/pricerig/pricerig/sources/sim"
)

// Pyth Pro History: GET /v1/{channel}/history (also /{channel}/history, for a base_url that
// already ends in /v1) ?symbol=Equity.US.NVDA/USD (any case) &resolution=1 &from=&to= (unix
// seconds, both inclusive). "Authorization: Bearer <key>" is required. TradingView UDF answers:
// s "ok" with arrays (empty when there is nothing: never "no_data"), s "error" with errmsg.
// Raw prices (a split applies from the next pre-market), all four sessions including
// overnight, volume always 0 (aggregate prices, not trades). At most 31 days per request.
var pythEmulation = &sim.Emulation{
	Name:     "pyth",
	Sessions: sim.AllDay,
	Symbol:   func(ticker string) string { return "Equity.US." + ticker + "/USD" },
	Auth: func(r *http.Request) sim.AuthState {
		v, _ := sim.HeaderKey(r, "Authorization", "Bearer")
		return sim.KeyCheck(v)
	},
	Denied: func(_ *sim.Request, missing bool) sim.Reply {
		if missing {
			return sim.TextReply(http.StatusUnauthorized, "Unauthorized: missing API key")
		}
		return sim.TextReply(http.StatusUnauthorized, "Unauthorized: invalid API key")
	},
	Limited: func(*sim.Request) sim.Reply { return sim.TextReply(http.StatusTooManyRequests, "Too Many Requests") },
	InBody:  sim.UDFInBody,
	// a trial key asking a feed it is not entitled to ("403 Not entitled: feed 1314" for NVDA,
	// ../shared/research/quote-sources.md)
	NotEntitled: func(rq *sim.Request) sim.Reply {
		return sim.TextReply(http.StatusForbidden, "Not entitled: feed 1314")
	},
	Serve: func(rq *sim.Request) sim.Reply {
		p := strings.TrimPrefix(rq.Path, "/v1")
		channel, tail, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if channel == "" || tail != "history" {
			return sim.TextReply(http.StatusNotFound, "Not Found")
		}
		return sim.UDFHistory(rq, sim.AllDay, false)
	},
}

func init() { sim.Register(pythEmulation) }
