package alphavantage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/sim"
)

// Alpha Vantage: GET /query?function=TIME_SERIES_INTRADAY&symbol=&interval=1min&month=YYYY-MM
// (one calendar month of New York time per call, from 2000-01; without it the trailing 30 days)
// &outputsize=compact (latest 100) | full &extended_hours=true (default: 04:00–20:00) | false
// &adjusted=true (default, split-adjusted: the tape has no dividends) | false &datatype=json|csv
// &apikey=. Everything comes back with HTTP 200: errors and throttling are a different top-level
// key ("Error Message", "Information"). Keys are New York wall-clock strings, newest first, and
// label each bar by its START minute, as Alpha Vantage does today (its 2020 extended-history
// CSV was end-labelled: 09:31 held the 09:30 bar). Prices print with 4 decimals.
var alphavantageEmulation = &sim.Emulation{
	Name:     "alphavantage",
	Sessions: sim.PreRegPost,
	Auth:     func(r *http.Request) sim.AuthState { return sim.KeyCheck(r.URL.Query().Get("apikey")) },
	Denied: func(*sim.Request, bool) sim.Reply {
		return avBody(http.StatusOK, "Error Message", "the parameter apikey is invalid or missing. Please claim your free API key on (https://www.alphavantage.co/support/#api-key). It should take less than 20 seconds.")
	},
	Limited: func(*sim.Request) sim.Reply { return avBody(http.StatusTooManyRequests, "Information", avThrottle) },
	InBody:  func(*sim.Request) sim.Reply { return avBody(http.StatusOK, "Information", avThrottle) },
	// a premium endpoint asked with a free key (the adapter's test quotes the body)
	NotEntitled: func(*sim.Request) sim.Reply { return avBody(http.StatusOK, "Information", avPremium) },
	Serve:       alphavantageIntraday,
}

const avPremium = "Thank you for using Alpha Vantage! This is a premium endpoint. You may subscribe to any of the premium plans at https://www.alphavantage.co/premium/ to instantly unlock all premium endpoints"

const avThrottle = "Thank you for using Alpha Vantage! Our standard API rate limit is 25 requests per day. Please subscribe to any of the premium plans at https://www.alphavantage.co/premium/ to instantly remove all daily rate limits."

func avBody(status int, key, msg string) sim.Reply {
	b, _ := json.MarshalIndent(map[string]string{key: msg}, "", "    ")
	return sim.RawJSON(status, b)
}

func avInvalid() sim.Reply {
	return avBody(http.StatusOK, "Error Message", "Invalid API call. Please retry or visit the documentation (https://www.alphavantage.co/documentation/) for TIME_SERIES_INTRADAY.")
}

func alphavantageIntraday(rq *sim.Request) sim.Reply {
	if rq.Path != "/query" {
		return sim.TextReply(http.StatusNotFound, "Not Found")
	}
	if f := rq.Query.Get("function"); f != "TIME_SERIES_INTRADAY" {
		return avBody(http.StatusOK, "Error Message", fmt.Sprintf("This API function (%s) does not exist.", f))
	}
	if rq.Query.Get("interval") != "1min" {
		return avInvalid()
	}
	sym := rq.TapeSymbol(rq.Query.Get("symbol"))
	if sym == "" {
		return avInvalid()
	}
	from, to := rq.Now.Add(-30*24*time.Hour), rq.Now
	if m := rq.Query.Get("month"); m != "" {
		t, err := time.ParseInLocation("2006-01", m, market.NewYork)
		if err != nil || t.Year() < 2000 {
			return avInvalid()
		}
		from, to = t, t.AddDate(0, 1, 0)
	}
	sessions := sim.PreRegPost
	if rq.Query.Get("extended_hours") == "false" {
		sessions = sim.Regular
	}
	full := rq.Query.Get("outputsize") == "full"
	adjusted := rq.Query.Get("adjusted") != "false"
	var bars []sim.OHLCV
	if full {
		bars = rq.Series(sym, from, to, sessions, adjusted)
	} else {
		bars = rq.Latest(sym, from, to, sessions, adjusted, 100) // compact: the latest 100
	}
	if len(bars) == 0 {
		return avInvalid()
	}
	key := func(b sim.OHLCV) string { return b.Start.In(market.NewYork).Format(time.DateTime) }
	if rq.Query.Get("datatype") == "csv" {
		var buf bytes.Buffer
		buf.WriteString("timestamp,open,high,low,close,volume\r\n")
		for i := len(bars) - 1; i >= 0; i-- {
			b := bars[i]
			fmt.Fprintf(&buf, "%s,%s,%s,%s,%s,%d\r\n", key(b), sim.FixedText(b.O, 4), sim.FixedText(b.H, 4), sim.FixedText(b.L, 4), sim.FixedText(b.C, 4), b.V)
		}
		return sim.Reply{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/x-download"}}, Body: buf.Bytes()}
	}
	size := "Compact"
	if full {
		size = "Full size"
	}
	return sim.RawJSON(http.StatusOK, renderAlphavantage(sym, size, bars))
}

// renderAlphavantage writes an intraday body as Alpha Vantage does, indented, its keys newest
// first (which a Go map would sort away, so it is written by hand).
func renderAlphavantage(sym, size string, bars []sim.OHLCV) []byte {
	buf := make([]byte, 0, 512+len(bars)*260)
	key := func(buf []byte, b sim.OHLCV) []byte {
		return append(b.Start.In(market.NewYork).AppendFormat(append(buf, '"'), time.DateTime), '"')
	}
	buf = append(buf, "{\n    \"Meta Data\": {\n"...)
	buf = append(buf, "        \"1. Information\": \"Intraday (1min) open, high, low, close prices and volume\",\n"...)
	buf = append(sim.AppendJSONString(append(buf, "        \"2. Symbol\": "...), sym), ",\n"...)
	buf = append(key(append(buf, "        \"3. Last Refreshed\": "...), bars[len(bars)-1]), ",\n"...)
	buf = append(buf, "        \"4. Interval\": \"1min\",\n"...)
	buf = append(sim.AppendJSONString(append(buf, "        \"5. Output Size\": "...), size), ",\n"...)
	buf = append(buf, "        \"6. Time Zone\": \"US/Eastern\"\n    },\n    \"Time Series (1min)\": {\n"...)
	for i := len(bars) - 1; i >= 0; i-- {
		b := bars[i]
		buf = append(key(append(buf, "        "...), b), ": {\n"...)
		buf = append(sim.AppendFixed(append(buf, "            \"1. open\": \""...), b.O, 4), "\",\n"...)
		buf = append(sim.AppendFixed(append(buf, "            \"2. high\": \""...), b.H, 4), "\",\n"...)
		buf = append(sim.AppendFixed(append(buf, "            \"3. low\": \""...), b.L, 4), "\",\n"...)
		buf = append(sim.AppendFixed(append(buf, "            \"4. close\": \""...), b.C, 4), "\",\n"...)
		buf = append(strconv.AppendInt(append(buf, "            \"5. volume\": \""...), b.V, 10), "\"\n        }"...)
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
	}
	return append(buf, "    }\n}"...)
}

func init() { sim.Register(alphavantageEmulation) }
