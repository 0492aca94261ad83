package twelvedata

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/sim"
)

// Twelve Data: GET /time_series?symbol=&interval=1min&start_date=&end_date= (both inclusive, read
// in timezone=, default the exchange's) &timezone=Exchange|UTC|<IANA> &outputsize=1…5000
// (default 30, or 5000 with dates: the latest that many bars of the window) &order=desc|asc
// &adjust=splits (default) | all | dividends | none. The key comes as apikey= or "Authorization:
// apikey <key>". Errors are JSON with status "error" and the real code in the body, most with
// HTTP 200: an empty window is {"code":400,"message":"No data is available on the specified
// dates…"}. Datetimes print in the asked time zone, numbers as strings with 5 decimals. Regular
// session only (pre/post are a Pro-plan option the simulator does not grant).
var twelvedataEmulation = &sim.Emulation{
	Name:     "twelvedata",
	Sessions: sim.Regular,
	Auth: func(r *http.Request) sim.AuthState {
		h, _ := sim.HeaderKey(r, "Authorization", "apikey")
		return sim.KeyCheck(r.URL.Query().Get("apikey"), h)
	},
	Denied: func(*sim.Request, bool) sim.Reply {
		return tdError(http.StatusUnauthorized, 401, "apikey parameter is incorrect or not specified. You can get your free API key instantly following this link: https://twelvedata.com/pricing. If you believe that everything is correct, you can contact us at https://twelvedata.com/contact/customer")
	},
	Limited: func(rq *sim.Request) sim.Reply {
		return tdError(http.StatusTooManyRequests, 429, fmt.Sprintf("You have run out of API credits for the current minute. %d API credits were used, with the current limit being %d. Wait for the next minute or consider switching to a higher tier plan at https://twelvedata.com/pricing", rq.Used, rq.Limit))
	},
	InBody: func(*sim.Request) sim.Reply {
		return tdError(http.StatusOK, 500, "We are having an internal error. Please try again later.")
	},
	Serve: twelvedataSeries,
}

func tdError(status, code int, msg string) sim.Reply {
	return sim.JSONReply(status, map[string]any{"code": code, "message": msg, "status": "error"})
}

var tdInfo = map[string]struct{ exchange, mic, kind string }{
	"NVDA": {"NASDAQ", "XNGS", "Common Stock"},
	"TSLA": {"NASDAQ", "XNGS", "Common Stock"},
	"SPY":  {"NYSE", "ARCX", "ETF"},
}

type tdValue struct {
	Datetime string `json:"datetime"`
	Open     string `json:"open"`
	High     string `json:"high"`
	Low      string `json:"low"`
	Close    string `json:"close"`
	Volume   string `json:"volume"`
}

var tdLayouts = []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", time.DateOnly}

func twelvedataSeries(rq *sim.Request) sim.Reply {
	if rq.Path != "/time_series" {
		return tdError(http.StatusNotFound, 404, "Not Found")
	}
	name := strings.TrimSpace(rq.Query.Get("symbol"))
	if name == "" {
		return tdError(http.StatusOK, 400, "**symbol** parameter is missing or invalid. Please provide a valid symbol according to API documentation: https://twelvedata.com/docs#reference-data")
	}
	if iv := rq.Query.Get("interval"); iv != "1min" {
		return tdError(http.StatusOK, 400, fmt.Sprintf("**interval** %q is not supported by the simulator, which serves 1min", iv))
	}
	sym := rq.TapeSymbol(strings.ToUpper(name))
	if sym == "" {
		return tdError(http.StatusOK, 404, fmt.Sprintf("**symbol** not found: %s. Please specify it correctly according to API Documentation.", name))
	}
	loc := market.NewYork
	switch tz := rq.Query.Get("timezone"); tz {
	case "", "Exchange", "exchange":
	case "UTC", "utc":
		loc = time.UTC
	default:
		l, err := time.LoadLocation(tz)
		if err != nil {
			return tdError(http.StatusOK, 400, fmt.Sprintf("**timezone** %q is invalid", tz))
		}
		loc = l
	}
	parse := func(key string) (time.Time, bool, sim.Reply) {
		v := strings.TrimSpace(rq.Query.Get(key))
		if v == "" {
			return time.Time{}, false, sim.Reply{}
		}
		for _, layout := range tdLayouts {
			if t, err := time.ParseInLocation(layout, v, loc); err == nil {
				return t, true, sim.Reply{}
			}
		}
		return time.Time{}, false, tdError(http.StatusOK, 400, fmt.Sprintf("**%s** %q is not in the format 2006-01-02 or 2006-01-02 15:04:05", key, v))
	}
	start, hasStart, bad := parse("start_date")
	if bad.Status != 0 {
		return bad
	}
	end, hasEnd, bad := parse("end_date")
	if bad.Status != 0 {
		return bad
	}
	if !hasEnd {
		end = rq.Now
	}
	if d := rq.Query.Get("date"); d != "" {
		now := rq.Now.In(loc)
		day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
		switch d {
		case "today":
		case "yesterday":
			day = day.AddDate(0, 0, -1)
		default:
			t, err := time.ParseInLocation(time.DateOnly, d, loc)
			if err != nil {
				return tdError(http.StatusOK, 400, fmt.Sprintf("**date** %q is not in the format 2006-01-02", d))
			}
			day = t
		}
		start, end, hasStart, hasEnd = day, day.AddDate(0, 0, 1).Add(-time.Second), true, true
	}
	size := 30
	if hasStart || hasEnd {
		size = 5000
	}
	if v := rq.Query.Get("outputsize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 5000 {
			return tdError(http.StatusOK, 400, "**outputsize** parameter must be between 1 and 5000")
		}
		size = n
	}
	if !hasStart {
		start = sim.TapeStart()
	}
	adjusted := true
	switch rq.Query.Get("adjust") {
	case "", "splits", "all":
	case "none", "dividends":
		adjusted = false
	default:
		return tdError(http.StatusOK, 400, "**adjust** must be one of all, splits, dividends, none")
	}
	bars := rq.Latest(sym, start, end.Add(time.Nanosecond), sim.Regular, adjusted, size) // the latest size bars
	if len(bars) == 0 {
		return tdError(http.StatusOK, 400, "No data is available on the specified dates. Try setting different start/end dates.")
	}
	values := make([]tdValue, len(bars))
	desc := !strings.EqualFold(rq.Query.Get("order"), "asc")
	for i, b := range bars {
		j := i
		if desc {
			j = len(bars) - 1 - i
		}
		values[j] = tdValue{
			Datetime: b.Start.In(loc).Format("2006-01-02 15:04:05"),
			Open:     sim.FixedText(b.O, 5), High: sim.FixedText(b.H, 5), Low: sim.FixedText(b.L, 5), Close: sim.FixedText(b.C, 5),
			Volume: strconv.FormatInt(b.V, 10),
		}
	}
	info := tdInfo[sym]
	type tdMeta struct {
		Symbol           string `json:"symbol"`
		Interval         string `json:"interval"`
		Currency         string `json:"currency"`
		ExchangeTimezone string `json:"exchange_timezone"`
		Exchange         string `json:"exchange"`
		MIC              string `json:"mic_code"`
		Type             string `json:"type"`
	}
	return sim.JSONReply(http.StatusOK, struct {
		Meta   tdMeta    `json:"meta"`
		Values []tdValue `json:"values"`
		Status string    `json:"status"`
	}{tdMeta{sym, "1min", "USD", "America/New_York", info.exchange, info.mic, info.kind}, values, "ok"})
}

func init() { sim.Register(twelvedataEmulation) }
