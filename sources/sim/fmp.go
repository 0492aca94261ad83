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
var fmpEmulation = &emulation{
	name:     "fmp",
	sessions: regular,
	auth: func(r *http.Request) authState {
		return keyCheck(r.URL.Query().Get("apikey"), r.Header.Get("apikey"))
	},
	denied: func(*request, bool) reply {
		return fmpMessage(http.StatusUnauthorized, "Invalid API KEY. Feel free to create a Free API Key or visit https://site.financialmodelingprep.com/faqs?search=why-is-my-api-key-invalid for more information.")
	},
	limited: func(*request) reply {
		return fmpMessage(http.StatusTooManyRequests, "Limit Reach . Please upgrade your plan or visit our documentation for more details at https://site.financialmodelingprep.com/")
	},
	inBody: func(*request) reply {
		return fmpMessage(http.StatusOK, "Limit Reach . Please upgrade your plan or visit our documentation for more details at https://site.financialmodelingprep.com/")
	},
	serve: fmpChart,
}

func fmpMessage(status int, msg string) reply {
	return jsonReply(status, map[string]string{"Error Message": msg})
}

type fmpBar struct {
	Date   string `json:"date"`
	Open   num    `json:"open"`
	Low    num    `json:"low"`
	High   num    `json:"high"`
	Close  num    `json:"close"`
	Volume num    `json:"volume"`
}

func fmpChart(s *Server, rq *request) reply {
	name := rq.q.Get("symbol")
	switch p := strings.TrimPrefix(rq.path, "/stable"); {
	case p == "/historical-chart/1min":
	case strings.HasPrefix(rq.path, "/api/v3/historical-chart/1min/"):
		name = strings.TrimPrefix(rq.path, "/api/v3/historical-chart/1min/")
	default:
		return textReply(http.StatusNotFound, "Not Found")
	}
	if name == "" {
		return fmpMessage(http.StatusBadRequest, "Invalid or missing query parameter - symbol")
	}
	now := rq.now.In(market.NewYork)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, market.NewYork)
	from, to := today.AddDate(0, 0, -3), nextDay(today)
	if v := rq.q.Get("from"); v != "" {
		d, ok := nyDate(v)
		if !ok {
			return fmpMessage(http.StatusBadRequest, "Invalid query parameter - from (YYYY-MM-DD)")
		}
		from = d
	}
	if v := rq.q.Get("to"); v != "" {
		d, ok := nyDate(v)
		if !ok {
			return fmpMessage(http.StatusBadRequest, "Invalid query parameter - to (YYYY-MM-DD)")
		}
		to = nextDay(d)
	}
	if to.Sub(from) > maxSpan {
		return fmpMessage(http.StatusBadRequest, tooWide)
	}
	out := []fmpBar{}
	if sym := rq.tapeSymbol(strings.ToUpper(name)); sym != "" {
		bars := s.series(rq, sym, from, to, regular, rq.q.Get("nonadjusted") != "true")
		for i := len(bars) - 1; i >= 0; i-- {
			b := bars[i]
			out = append(out, fmpBar{
				Date: b.start.In(market.NewYork).Format(time.DateTime),
				Open: num(scaledText(b.o)), Low: num(scaledText(b.l)), High: num(scaledText(b.h)), Close: num(scaledText(b.c)),
				Volume: intNum(b.v),
			})
		}
	}
	return jsonReply(http.StatusOK, out)
}

func init() {
	register(fmpEmulation)
}
