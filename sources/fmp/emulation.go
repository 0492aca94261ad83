package fmp

import (
	"net/http"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/sim"
)

// Financial Modeling Prep: GET /stable/historical-chart/1min?symbol= (also /historical-chart/1min
// for a base_url ending in /stable, and the legacy /api/v3/historical-chart/1min/{SYMBOL})
// &from=&to= (New York dates, both inclusive; default the last three days) &nonadjusted=true
// (raw; default split-adjusted) &apikey= (or an apikey header). Newest first; dates are New York
// wall clock, bar start; regular session only; no data (and an unknown symbol) is []. At most
// 31 days per request.
var fmpEmulation = &sim.Emulation{
	Name:     "fmp",
	Sessions: sim.Regular,
	Auth: func(r *http.Request) sim.AuthState {
		return sim.KeyCheck(r.URL.Query().Get("apikey"), r.Header.Get("apikey"))
	},
	Denied: func(*sim.Request, bool) sim.Reply {
		return fmpMessage(http.StatusUnauthorized, "Invalid API KEY. Feel free to create a Free API Key or visit https://site.financialmodelingprep.com/faqs?search=why-is-my-api-key-invalid for more information.")
	},
	Limited: func(*sim.Request) sim.Reply {
		return fmpMessage(http.StatusTooManyRequests, "Limit Reach . Please upgrade your plan or visit our documentation for more details at https://site.financialmodelingprep.com/")
	},
	InBody: func(*sim.Request) sim.Reply {
		return fmpMessage(http.StatusOK, "Limit Reach . Please upgrade your plan or visit our documentation for more details at https://site.financialmodelingprep.com/")
	},
	// the free plan's answer to intraday charts, plain text with HTTP 402, as recorded in
	// ../shared/samples/fmp-error-402-restricted.txt
	NotEntitled: func(*sim.Request) sim.Reply {
		return sim.TextReply(http.StatusPaymentRequired, "Restricted Endpoint: This endpoint is not available under your current subscription")
	},
	Serve: fmpChart,
}

func fmpMessage(status int, msg string) sim.Reply {
	return sim.JSONReply(status, map[string]string{"Error Message": msg})
}

type fmpBar struct {
	Date   string  `json:"date"`
	Open   sim.Num `json:"open"`
	Low    sim.Num `json:"low"`
	High   sim.Num `json:"high"`
	Close  sim.Num `json:"close"`
	Volume sim.Num `json:"volume"`
}

func fmpChart(rq *sim.Request) sim.Reply {
	name := rq.Query.Get("symbol")
	switch p := strings.TrimPrefix(rq.Path, "/stable"); {
	case p == "/historical-chart/1min":
	case strings.HasPrefix(rq.Path, "/api/v3/historical-chart/1min/"):
		name = strings.TrimPrefix(rq.Path, "/api/v3/historical-chart/1min/")
	default:
		return sim.TextReply(http.StatusNotFound, "Not Found")
	}
	if name == "" {
		return fmpMessage(http.StatusBadRequest, "Invalid or missing query parameter - symbol")
	}
	now := rq.Now.In(market.NewYork)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, market.NewYork)
	from, to := today.AddDate(0, 0, -3), sim.NextDay(today)
	if v := rq.Query.Get("from"); v != "" {
		d, ok := sim.NYDate(v)
		if !ok {
			return fmpMessage(http.StatusBadRequest, "Invalid query parameter - from (YYYY-MM-DD)")
		}
		from = d
	}
	if v := rq.Query.Get("to"); v != "" {
		d, ok := sim.NYDate(v)
		if !ok {
			return fmpMessage(http.StatusBadRequest, "Invalid query parameter - to (YYYY-MM-DD)")
		}
		to = sim.NextDay(d)
	}
	if to.Sub(from) > sim.MaxSpan {
		return fmpMessage(http.StatusBadRequest, sim.TooWide)
	}
	out := []fmpBar{}
	if sym := rq.TapeSymbol(strings.ToUpper(name)); sym != "" {
		bars := rq.Series(sym, from, to, sim.Regular, rq.Query.Get("nonadjusted") != "true")
		for i := len(bars) - 1; i >= 0; i-- {
			b := bars[i]
			out = append(out, fmpBar{
				Date: b.Start.In(market.NewYork).Format(time.DateTime),
				Open: sim.Num(sim.ScaledText(b.O)), Low: sim.Num(sim.ScaledText(b.L)), High: sim.Num(sim.ScaledText(b.H)), Close: sim.Num(sim.ScaledText(b.C)),
				Volume: sim.IntNum(b.V),
			})
		}
	}
	return sim.JSONReply(http.StatusOK, out)
}

func init() { sim.Register(fmpEmulation) }
