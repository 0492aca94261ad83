package sim

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
)

// Tiingo IEX: GET /iex/{ticker}/prices?startDate=&endDate= (New York dates, both inclusive, or
// RFC 3339 instants) &resampleFreq=1min &afterHours=true (pre and post too; default false:
// regular only) &forceFill=true (carry the last bar into minutes with no trade)
// &columns=open,high,low,close,volume (volume only when asked) &token=. The key comes as token=
// or "Authorization: Token <key>". Raw IEX prices; dates are ISO UTC with milliseconds and Z;
// no data is []; errors are {"detail": "…"}. The simulator serves at most 31 days per request.
var tiingoEmulation = &emulation{
	name:     "tiingo",
	sessions: preRegPost,
	auth: func(r *http.Request) authState {
		h, _ := headerKey(r, "Authorization", "Token")
		return keyCheck(r.URL.Query().Get("token"), h)
	},
	denied: func(_ *request, missing bool) reply {
		if missing {
			return tiingoDetail(http.StatusForbidden, "Please supply a token")
		}
		return tiingoDetail(http.StatusUnauthorized, "Invalid token.")
	},
	limited: func(*request) reply {
		return tiingoDetail(http.StatusTooManyRequests, "Error: You have run over your hourly request allocation. Please upgrade at https://api.tiingo.com/pricing to have your limits increased.")
	},
	inBody: func(*request) reply { return tiingoDetail(http.StatusOK, "Error: temporary database unavailable") },
	serve:  tiingoPrices,
}

func tiingoDetail(status int, msg string) reply {
	return jsonReply(status, map[string]string{"detail": msg})
}

// tiingoTime reads a date (New York; as an end, the whole day) or an RFC 3339 instant.
func tiingoTime(v string, end bool) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		if end {
			t = t.Add(time.Nanosecond)
		}
		return t, true
	}
	d, ok := nyDate(v)
	if ok && end {
		d = nextDay(d)
	}
	return d, ok
}

func tiingoPrices(s *Server, rq *request) reply {
	rest, ok := strings.CutPrefix(rq.path, "/iex/")
	ticker, tail, _ := strings.Cut(rest, "/")
	if !ok || ticker == "" || tail != "prices" {
		return tiingoDetail(http.StatusNotFound, "Not found.")
	}
	sym := rq.tapeSymbol(strings.ToUpper(ticker))
	if sym == "" {
		return tiingoDetail(http.StatusNotFound, fmt.Sprintf("Error: Ticker '%s' not found", ticker))
	}
	if f := strings.ToLower(rq.q.Get("resampleFreq")); f != "1min" {
		return tiingoDetail(http.StatusBadRequest, fmt.Sprintf("Error: resampleFreq %q is not served by the simulator (1min only)", rq.q.Get("resampleFreq")))
	}
	if f := rq.q.Get("format"); f != "" && f != "json" {
		return tiingoDetail(http.StatusBadRequest, "Error: the simulator serves format=json only")
	}
	now := rq.now.In(market.NewYork)
	from := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, market.NewYork)
	to := rq.now
	if v := rq.q.Get("startDate"); v != "" {
		if from, ok = tiingoTime(v, false); !ok {
			return tiingoDetail(http.StatusBadRequest, "Error: startDate must be YYYY-MM-DD")
		}
	}
	if v := rq.q.Get("endDate"); v != "" {
		if to, ok = tiingoTime(v, true); !ok {
			return tiingoDetail(http.StatusBadRequest, "Error: endDate must be YYYY-MM-DD")
		}
	}
	if to.Sub(from) > maxSpan {
		return tiingoDetail(http.StatusBadRequest, tooWide)
	}
	sessions := regular
	if rq.q.Get("afterHours") == "true" {
		sessions = preRegPost
	}
	cols := []string{"open", "high", "low", "close"}
	if v := rq.q.Get("columns"); v != "" {
		cols = nil
		for _, c := range strings.Split(v, ",") {
			switch c = strings.TrimSpace(strings.ToLower(c)); c {
			case "open", "high", "low", "close", "volume":
				cols = append(cols, c)
			case "date", "":
			default:
				return tiingoDetail(http.StatusBadRequest, fmt.Sprintf("Error: unknown column %q", c))
			}
		}
	}
	fill := rq.q.Get("forceFill") == "true"
	var buf bytes.Buffer
	buf.WriteByte('[')
	var last *ohlcv
	n := 0
	s.walk(rq, sym, from, to, sessions, false, func(b ohlcv, traded bool) bool {
		if !traded {
			if !fill || last == nil {
				return true
			}
			b = ohlcv{start: b.start, o: last.c, h: last.c, l: last.c, c: last.c}
		} else {
			last = &b
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		fmt.Fprintf(&buf, `{"date":"%s"`, b.start.UTC().Format("2006-01-02T15:04:05.000Z"))
		for _, c := range cols {
			v := map[string]string{"open": scaledText(b.o), "high": scaledText(b.h), "low": scaledText(b.l), "close": scaledText(b.c)}[c]
			if c == "volume" {
				v = fmt.Sprint(b.v)
			}
			fmt.Fprintf(&buf, `,"%s":%s`, c, v)
		}
		buf.WriteByte('}')
		return true
	})
	buf.WriteByte(']')
	return rawJSON(http.StatusOK, buf.Bytes())
}

func init() {
	register(tiingoEmulation)
}
