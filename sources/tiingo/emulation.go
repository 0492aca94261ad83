package tiingo

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/sim"
)

// Tiingo IEX: GET /iex/{ticker}/prices?startDate=&endDate= (New York dates, both inclusive, or
// RFC 3339 instants) &resampleFreq=1min &afterHours=true (pre and post too; default false:
// regular only) &forceFill=true (carry the last bar into minutes with no trade)
// &columns=open,high,low,close,volume (volume only when asked) &token=. The key comes as token=
// or "Authorization: Token <key>". Raw IEX prices; dates are ISO UTC with milliseconds and Z;
// no data is []; errors are {"detail": "…"}. The simulator serves at most 31 days per request.
var tiingoEmulation = &sim.Emulation{
	Name:     "tiingo",
	Sessions: sim.PreRegPost,
	Auth: func(r *http.Request) sim.AuthState {
		h, _ := sim.HeaderKey(r, "Authorization", "Token")
		return sim.KeyCheck(r.URL.Query().Get("token"), h)
	},
	Denied: func(_ *sim.Request, missing bool) sim.Reply {
		if missing {
			return tiingoDetail(http.StatusForbidden, "Please supply a token")
		}
		return tiingoDetail(http.StatusUnauthorized, "Invalid token.")
	},
	Limited: func(*sim.Request) sim.Reply {
		return tiingoDetail(http.StatusTooManyRequests, "Error: You have run over your hourly request allocation. Please upgrade at https://api.tiingo.com/pricing to have your limits increased.")
	},
	InBody: func(*sim.Request) sim.Reply {
		return tiingoDetail(http.StatusOK, "Error: temporary database unavailable")
	},
	Serve: tiingoPrices,
}

func tiingoDetail(status int, msg string) sim.Reply {
	return sim.JSONReply(status, map[string]string{"detail": msg})
}

// tiingoTime reads a date (New York; as an end, the whole day) or an RFC 3339 instant.
func tiingoTime(v string, end bool) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		if end {
			t = t.Add(time.Nanosecond)
		}
		return t, true
	}
	d, ok := sim.NYDate(v)
	if ok && end {
		d = sim.NextDay(d)
	}
	return d, ok
}

func tiingoPrices(rq *sim.Request) sim.Reply {
	rest, ok := strings.CutPrefix(rq.Path, "/iex/")
	ticker, tail, _ := strings.Cut(rest, "/")
	if !ok || ticker == "" || tail != "prices" {
		return tiingoDetail(http.StatusNotFound, "Not found.")
	}
	sym := rq.TapeSymbol(strings.ToUpper(ticker))
	if sym == "" {
		return tiingoDetail(http.StatusNotFound, fmt.Sprintf("Error: Ticker '%s' not found", ticker))
	}
	if f := strings.ToLower(rq.Query.Get("resampleFreq")); f != "1min" {
		return tiingoDetail(http.StatusBadRequest, fmt.Sprintf("Error: resampleFreq %q is not served by the simulator (1min only)", rq.Query.Get("resampleFreq")))
	}
	if f := rq.Query.Get("format"); f != "" && f != "json" {
		return tiingoDetail(http.StatusBadRequest, "Error: the simulator serves format=json only")
	}
	now := rq.Now.In(market.NewYork)
	from := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, market.NewYork)
	to := rq.Now
	if v := rq.Query.Get("startDate"); v != "" {
		if from, ok = tiingoTime(v, false); !ok {
			return tiingoDetail(http.StatusBadRequest, "Error: startDate must be YYYY-MM-DD")
		}
	}
	if v := rq.Query.Get("endDate"); v != "" {
		if to, ok = tiingoTime(v, true); !ok {
			return tiingoDetail(http.StatusBadRequest, "Error: endDate must be YYYY-MM-DD")
		}
	}
	if to.Sub(from) > sim.MaxSpan {
		return tiingoDetail(http.StatusBadRequest, sim.TooWide)
	}
	sessions := sim.Regular
	if rq.Query.Get("afterHours") == "true" {
		sessions = sim.PreRegPost
	}
	cols := []string{"open", "high", "low", "close"}
	if v := rq.Query.Get("columns"); v != "" {
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
	fill := rq.Query.Get("forceFill") == "true"
	var buf bytes.Buffer
	buf.WriteByte('[')
	var last *sim.OHLCV
	n := 0
	rq.Walk(sym, from, to, sessions, false, func(b sim.OHLCV, traded bool) bool {
		if !traded {
			if !fill || last == nil {
				return true
			}
			b = sim.OHLCV{Start: b.Start, O: last.C, H: last.C, L: last.C, C: last.C}
		} else {
			last = &b
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		fmt.Fprintf(&buf, `{"date":"%s"`, b.Start.UTC().Format("2006-01-02T15:04:05.000Z"))
		for _, c := range cols {
			v := map[string]string{"open": sim.ScaledText(b.O), "high": sim.ScaledText(b.H), "low": sim.ScaledText(b.L), "close": sim.ScaledText(b.C)}[c]
			if c == "volume" {
				v = fmt.Sprint(b.V)
			}
			fmt.Fprintf(&buf, `,"%s":%s`, c, v)
		}
		buf.WriteByte('}')
		return true
	})
	buf.WriteByte(']')
	return sim.RawJSON(http.StatusOK, buf.Bytes())
}

func init() { sim.Register(tiingoEmulation) }
