package udf

import (
	"net/http"

	"github.com/pricerig/pricerig/sources/sim"
)

// UDF: a generic TradingView UDF history endpoint, GET /history?symbol=NVDA&resolution=1&from=&to=,
// with an optional bearer key (none is fine; a wrong one is 401). Raw prices, pre, regular and
// post, real volumes. At most 31 days per request.
var udfEmulation = &sim.Emulation{
	Name:     "udf",
	Sessions: sim.PreRegPost,
	Auth: func(r *http.Request) sim.AuthState {
		v, present := sim.HeaderKey(r, "Authorization", "Bearer")
		if !present || v == sim.Key {
			return sim.AuthOK
		}
		return sim.AuthWrong
	},
	Denied: func(*sim.Request, bool) sim.Reply {
		return sim.JSONReply(http.StatusUnauthorized, map[string]string{"s": "error", "errmsg": "unauthorized"})
	},
	Limited: func(*sim.Request) sim.Reply {
		return sim.JSONReply(http.StatusTooManyRequests, map[string]string{"s": "error", "errmsg": "too many requests"})
	},
	InBody: sim.UDFInBody,
	Serve: func(rq *sim.Request) sim.Reply {
		if rq.Path != "/history" {
			return sim.TextReply(http.StatusNotFound, "Not Found")
		}
		return sim.UDFHistory(rq, sim.PreRegPost, true)
	},
}

func init() { sim.Register(udfEmulation) }
