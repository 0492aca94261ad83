package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/pricerig/pricerig/market"
)

// Alpha Vantage: GET /query?function=TIME_SERIES_INTRADAY&symbol=&interval=1min&month=YYYY-MM
// (one calendar month of New York time per call, from 2000-01; without it the trailing 30 days)
// &outputsize=compact (latest 100) | full &extended_hours=true (default: 04:00–20:00) | false
// &adjusted=true (default, split-adjusted: the tape has no dividends) | false &datatype=json|csv
// &apikey=. Everything comes back with HTTP 200: errors and throttling are a different top-level
// key ("Error Message", "Information"). Keys are New York wall-clock strings, newest first, and
// label each bar by its START minute, as Alpha Vantage does today (its 2020 extended-history
// CSV was end-labelled: 09:31 held the 09:30 bar). Prices print with 4 decimals.
var alphavantageEmulation = &emulation{
	name:     "alphavantage",
	sessions: preRegPost,
	auth:     func(r *http.Request) authState { return keyCheck(r.URL.Query().Get("apikey")) },
	denied: func(*request, bool) reply {
		return avBody(http.StatusOK, "Error Message", "the parameter apikey is invalid or missing. Please claim your free API key on (https://www.alphavantage.co/support/#api-key). It should take less than 20 seconds.")
	},
	limited: func(*request) reply { return avBody(http.StatusTooManyRequests, "Information", avThrottle) },
	inBody:  func(*request) reply { return avBody(http.StatusOK, "Information", avThrottle) },
	serve:   alphavantageIntraday,
}

const avThrottle = "Thank you for using Alpha Vantage! Our standard API rate limit is 25 requests per day. Please subscribe to any of the premium plans at https://www.alphavantage.co/premium/ to instantly remove all daily rate limits."

func avBody(status int, key, msg string) reply {
	b, _ := json.MarshalIndent(map[string]string{key: msg}, "", "    ")
	return rawJSON(status, b)
}

func avInvalid() reply {
	return avBody(http.StatusOK, "Error Message", "Invalid API call. Please retry or visit the documentation (https://www.alphavantage.co/documentation/) for TIME_SERIES_INTRADAY.")
}

func alphavantageIntraday(s *Server, rq *request) reply {
	if rq.path != "/query" {
		return textReply(http.StatusNotFound, "Not Found")
	}
	if f := rq.q.Get("function"); f != "TIME_SERIES_INTRADAY" {
		return avBody(http.StatusOK, "Error Message", fmt.Sprintf("This API function (%s) does not exist.", f))
	}
	if rq.q.Get("interval") != "1min" {
		return avInvalid()
	}
	sym := rq.tapeSymbol(rq.q.Get("symbol"))
	if sym == "" {
		return avInvalid()
	}
	from, to := rq.now.Add(-30*24*time.Hour), rq.now
	if m := rq.q.Get("month"); m != "" {
		t, err := time.ParseInLocation("2006-01", m, market.NewYork)
		if err != nil || t.Year() < 2000 {
			return avInvalid()
		}
		from, to = t, t.AddDate(0, 1, 0)
	}
	sessions := preRegPost
	if rq.q.Get("extended_hours") == "false" {
		sessions = regular
	}
	full := rq.q.Get("outputsize") == "full"
	adjusted := rq.q.Get("adjusted") != "false"
	var bars []ohlcv
	if full {
		bars = s.series(rq, sym, from, to, sessions, adjusted)
	} else {
		bars = s.latest(rq, sym, from, to, sessions, adjusted, 100) // compact: the latest 100
	}
	if len(bars) == 0 {
		return avInvalid()
	}
	key := func(b ohlcv) string { return b.start.In(market.NewYork).Format(time.DateTime) }
	if rq.q.Get("datatype") == "csv" {
		var buf bytes.Buffer
		buf.WriteString("timestamp,open,high,low,close,volume\r\n")
		for i := len(bars) - 1; i >= 0; i-- {
			b := bars[i]
			fmt.Fprintf(&buf, "%s,%s,%s,%s,%s,%d\r\n", key(b), fixedText(b.o, 4), fixedText(b.h, 4), fixedText(b.l, 4), fixedText(b.c, 4), b.v)
		}
		return reply{status: http.StatusOK, header: http.Header{"Content-Type": {"application/x-download"}}, body: buf.Bytes()}
	}
	size := "Compact"
	if full {
		size = "Full size"
	}
	return rawJSON(http.StatusOK, renderAlphavantage(sym, size, bars))
}

// renderAlphavantage writes an intraday body as Alpha Vantage does, indented, its keys newest
// first (which a Go map would sort away, so it is written by hand).
func renderAlphavantage(sym, size string, bars []ohlcv) []byte {
	buf := make([]byte, 0, 512+len(bars)*260)
	key := func(buf []byte, b ohlcv) []byte {
		return append(b.start.In(market.NewYork).AppendFormat(append(buf, '"'), time.DateTime), '"')
	}
	buf = append(buf, "{\n    \"Meta Data\": {\n"...)
	buf = append(buf, "        \"1. Information\": \"Intraday (1min) open, high, low, close prices and volume\",\n"...)
	buf = append(appendJSONString(append(buf, "        \"2. Symbol\": "...), sym), ",\n"...)
	buf = append(key(append(buf, "        \"3. Last Refreshed\": "...), bars[len(bars)-1]), ",\n"...)
	buf = append(buf, "        \"4. Interval\": \"1min\",\n"...)
	buf = append(appendJSONString(append(buf, "        \"5. Output Size\": "...), size), ",\n"...)
	buf = append(buf, "        \"6. Time Zone\": \"US/Eastern\"\n    },\n    \"Time Series (1min)\": {\n"...)
	for i := len(bars) - 1; i >= 0; i-- {
		b := bars[i]
		buf = append(key(append(buf, "        "...), b), ": {\n"...)
		buf = append(appendFixed(append(buf, "            \"1. open\": \""...), b.o, 4), "\",\n"...)
		buf = append(appendFixed(append(buf, "            \"2. high\": \""...), b.h, 4), "\",\n"...)
		buf = append(appendFixed(append(buf, "            \"3. low\": \""...), b.l, 4), "\",\n"...)
		buf = append(appendFixed(append(buf, "            \"4. close\": \""...), b.c, 4), "\",\n"...)
		buf = append(strconv.AppendInt(append(buf, "            \"5. volume\": \""...), b.v, 10), "\"\n        }"...)
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
	}
	return append(buf, "    }\n}"...)
}

func init() {
	register(alphavantageEmulation)
}
