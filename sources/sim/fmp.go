package sim

import (
	"net/http"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
)

// Financial Modeling Prep: GET /stable/historical-chart/1min?symbol= (also /historical-chart/1min
// for a base_url ending in /stable, and the legacy /api/v3/historical-chart/1min/{SYMBOL})
// &from=&to= (New York dates, both inclusive; default the last three days) &nonadjusted=true
// (raw; default split-adjusted) &apikey= (or an apikey header). Newest first; dates are New York
// wall clock, bar start; regular session only; no data (and an unknown symbol) is []. At most
// 31 days per request.
var fmpEmulation = &Emulation{
	Name:     "fmp",
	Sessions: Regular,
	Auth: func(r *http.Request) AuthState {
		return KeyCheck(r.URL.Query().Get("apikey"), r.Header.Get("apikey"))
	},
	Denied: func(*Request, bool) Reply {
		return fmpMessage(http.StatusUnauthorized, "Invalid API KEY. Feel free to create a Free API Key or visit https://site.financialmodelingprep.com/faqs?search=why-is-my-api-key-invalid for more information.")
	},
	Limited: func(*Request) Reply {
		return fmpMessage(http.StatusTooManyRequests, "Limit Reach . Please upgrade your plan or visit our documentation for more details at https://site.financialmodelingprep.com/")
	},
	InBody: func(*Request) Reply {
		return fmpMessage(http.StatusOK, "Limit Reach . Please upgrade your plan or visit our documentation for more details at https://site.financialmodelingprep.com/")
	},
	Serve: fmpChart,
}

func fmpMessage(status int, msg string) Reply {
	return JSONReply(status, map[string]string{"Error Message": msg})
}

type fmpBar struct {
	Date   string `json:"date"`
	Open   Num    `json:"open"`
	Low    Num    `json:"low"`
	High   Num    `json:"high"`
	Close  Num    `json:"close"`
	Volume Num    `json:"volume"`
}

func fmpChart(rq *Request) Reply {
	name := rq.Query.Get("symbol")
	switch p := strings.TrimPrefix(rq.Path, "/stable"); {
	case p == "/historical-chart/1min":
	case strings.HasPrefix(rq.Path, "/api/v3/historical-chart/1min/"):
		name = strings.TrimPrefix(rq.Path, "/api/v3/historical-chart/1min/")
	default:
		return TextReply(http.StatusNotFound, "Not Found")
	}
	if name == "" {
		return fmpMessage(http.StatusBadRequest, "Invalid or missing query parameter - symbol")
	}
	now := rq.Now.In(market.NewYork)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, market.NewYork)
	from, to := today.AddDate(0, 0, -3), NextDay(today)
	if v := rq.Query.Get("from"); v != "" {
		d, ok := NYDate(v)
		if !ok {
			return fmpMessage(http.StatusBadRequest, "Invalid query parameter - from (YYYY-MM-DD)")
		}
		from = d
	}
	if v := rq.Query.Get("to"); v != "" {
		d, ok := NYDate(v)
		if !ok {
			return fmpMessage(http.StatusBadRequest, "Invalid query parameter - to (YYYY-MM-DD)")
		}
		to = NextDay(d)
	}
	if to.Sub(from) > MaxSpan {
		return fmpMessage(http.StatusBadRequest, TooWide)
	}
	out := []fmpBar{}
	if sym := rq.TapeSymbol(strings.ToUpper(name)); sym != "" {
		bars := rq.Series(sym, from, to, Regular, rq.Query.Get("nonadjusted") != "true")
		for i := len(bars) - 1; i >= 0; i-- {
			b := bars[i]
			out = append(out, fmpBar{
				Date: b.Start.In(market.NewYork).Format(time.DateTime),
				Open: Num(ScaledText(b.O)), Low: Num(ScaledText(b.L)), High: Num(ScaledText(b.H)), Close: Num(ScaledText(b.C)),
				Volume: IntNum(b.V),
			})
		}
	}
	return JSONReply(http.StatusOK, out)
}

func init() {
	Register(fmpEmulation)
}
