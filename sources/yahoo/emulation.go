package yahoo

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/sim"
)

// Yahoo chart v8: GET /v8/finance/chart/{SYMBOL}?period1=&period2=&interval=1m&includePrePost=.
// No key, but a browser User-Agent (curl's gets 429 "Edge: Too Many Requests"). 1-minute
// starts must be less than 30 days old and a request may span at most 8 days (422 with Yahoo's
// words). Prices are split-adjusted float32s printed as float64; period2 is exclusive; a minute
// with no trade in the regular session is a null entry, elsewhere it is left out; with
// includePrePost=false the latest regular close gets Yahoo's synthetic volume-0 bar.
var yahooEmulation = &sim.Emulation{
	Name:     "yahoo",
	Sessions: sim.PreRegPost,
	// Yahoo serves the minute in progress, its close the price so far (yfinance drops a
	// trailing bar because Yahoo "often appends latest price even if after end date",
	// research §1), final once the minute ends.
	Publish: sim.Publication{Lag: sim.MinLag, Revise: 0},
	Denied: func(*sim.Request, bool) sim.Reply {
		return sim.RawJSON(http.StatusUnauthorized, []byte(`{"finance":{"result":null,"error":{"code":"Unauthorized","description":"Invalid Crumb"}}}`))
	},
	Limited: func(*sim.Request) sim.Reply {
		return sim.TextReply(http.StatusTooManyRequests, "Edge: Too Many Requests")
	},
	InBody: func(*sim.Request) sim.Reply {
		return sim.RawJSON(http.StatusOK, []byte(`{"chart":{"result":null,"error":{"code":"Internal Server Error","description":"Will be right back"}}}`))
	},
	Serve: yahooChart,
}

func yahooError(status int, code, description string) sim.Reply {
	type yerr struct {
		Code        string `json:"code"`
		Description string `json:"description"`
	}
	type chart struct {
		Result any  `json:"result"`
		Error  yerr `json:"error"`
	}
	return sim.JSONReply(status, map[string]chart{"chart": {Error: yerr{code, description}}})
}

// yahoo instrument facts for meta.
var yahooInfo = map[string]struct {
	exchange, fullExchange, kind string
	firstTrade                   int64
}{
	"NVDA": {"NMS", "NasdaqGS", "EQUITY", 917015400},
	"TSLA": {"NMS", "NasdaqGS", "EQUITY", 1277818200},
	"SPY":  {"PCX", "NYSEArca", "ETF", 728317800},
}

func yahooChart(rq *sim.Request) sim.Reply {
	if !strings.HasPrefix(strings.ToLower(rq.R.Header.Get("User-Agent")), "mozilla/") {
		return sim.TextReply(http.StatusTooManyRequests, "Edge: Too Many Requests")
	}
	text, ok := strings.CutPrefix(rq.Path, "/v8/finance/chart/")
	if !ok || text == "" || strings.Contains(text, "/") {
		return yahooError(http.StatusNotFound, "Not Found", "HTTP 404 Not Found")
	}
	sym := rq.TapeSymbol(strings.ToUpper(text))
	if sym == "" {
		return yahooError(http.StatusNotFound, "Not Found", "No data found, symbol may be delisted")
	}
	if iv := rq.Query.Get("interval"); iv != "1m" {
		if iv == "" {
			iv = "1d"
		}
		return yahooError(http.StatusBadRequest, "Bad Request", fmt.Sprintf("Invalid input - interval=%s is not supported by this simulator. Valid intervals: [1m]", iv))
	}
	now := rq.Now
	var from, to time.Time
	switch {
	case rq.Query.Has("period1"):
		var ok1, ok2 bool
		from, ok1 = sim.ParseUnix(rq.Query.Get("period1"))
		to, ok2 = now, true
		if rq.Query.Has("period2") {
			to, ok2 = sim.ParseUnix(rq.Query.Get("period2"))
		}
		if !ok1 || !ok2 {
			return yahooError(http.StatusBadRequest, "Bad Request", "Invalid input - period1 and period2 must be unix seconds")
		}
	default:
		days := map[string]int{"": 1, "1d": 1, "5d": 5, "7d": 7}[rq.Query.Get("range")]
		if days == 0 {
			return yahooError(http.StatusUnprocessableEntity, "Unprocessable Entity", fmt.Sprintf("1m data not available for range=%s. The requested range must be within the last 30 days.", rq.Query.Get("range")))
		}
		from, to = now.Add(-time.Duration(days)*24*time.Hour), now
	}
	if !to.After(from) {
		return yahooError(http.StatusBadRequest, "Bad Request", fmt.Sprintf("Invalid input - start date cannot be after end date. startDate = %d, endDate = %d", from.Unix(), to.Unix()))
	}
	if now.Sub(from) >= 30*24*time.Hour {
		return yahooError(http.StatusUnprocessableEntity, "Unprocessable Entity", fmt.Sprintf("1m data not available for startTime=%d and endTime=%d. The requested range must be within the last 30 days.", from.Unix(), to.Unix()))
	}
	if to.Sub(from) > 8*24*time.Hour {
		return yahooError(http.StatusUnprocessableEntity, "Unprocessable Entity", "Only 8 days worth of 1m granularity data are allowed to be fetched per request.")
	}
	prePost := rq.Query.Get("includePrePost") == "true"
	sessions := sim.Regular
	if prePost {
		sessions = sim.PreRegPost
	}

	var ts []sim.Num
	var o, h, l, c, v []any
	rq.Walk(sym, from, to, sessions, true, func(b sim.OHLCV, traded bool) bool {
		if !traded {
			if b.Session == market.Regular {
				ts = append(ts, sim.IntNum(b.Start.Unix()))
				o, h, l, c, v = append(o, nil), append(h, nil), append(l, nil), append(c, nil), append(v, nil)
			}
			return true
		}
		ts = append(ts, sim.IntNum(b.Start.Unix()))
		o = append(o, sim.Num(sim.Float32Text(b.O)))
		h = append(h, sim.Num(sim.Float32Text(b.H)))
		l = append(l, sim.Num(sim.Float32Text(b.L)))
		c = append(c, sim.Num(sim.Float32Text(b.C)))
		v = append(v, sim.IntNum(b.V))
		return true
	})
	last, lastOK := lastRegularClose(rq, sym)
	if !prePost && lastOK {
		// Yahoo appends the regular close itself as a bar at the closing minute, volume 0.
		closeAt := market.DayOf(last.Start).Close
		if !closeAt.Before(from) && closeAt.Before(to) && closeAt.Before(now) {
			ts = append(ts, sim.IntNum(closeAt.Unix()))
			p := sim.Num(sim.Float32Text(last.C))
			o, h, l, c, v = append(o, p), append(h, p), append(l, p), append(c, p), append(v, sim.Num("0"))
		}
	}

	info := yahooInfo[sym]
	zone, offset := now.In(market.NewYork).Zone()
	meta := map[string]any{
		"currency": "USD", "symbol": sym, "exchangeName": info.exchange, "fullExchangeName": info.fullExchange,
		"instrumentType": info.kind, "firstTradeDate": info.firstTrade, "hasPrePostMarketData": true,
		"gmtoffset": offset, "timezone": zone, "exchangeTimezoneName": "America/New_York",
		"scale": 3, "priceHint": 2, "dataGranularity": "1m", "range": "",
		"validRanges": []string{"1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max"},
	}
	if lastOK {
		meta["regularMarketTime"] = last.Start.Add(time.Minute).Unix()
		meta["regularMarketPrice"] = sim.Num(sim.ScaledText(last.C))
	}
	if period := yahooTradingPeriod(now); period != nil {
		meta["currentTradingPeriod"] = period
	}
	type quote struct {
		Open   []any `json:"open,omitempty"`
		High   []any `json:"high,omitempty"`
		Low    []any `json:"low,omitempty"`
		Close  []any `json:"close,omitempty"`
		Volume []any `json:"volume,omitempty"`
	}
	type result struct {
		Meta       map[string]any `json:"meta"`
		Timestamp  []sim.Num      `json:"timestamp,omitempty"` // absent, not empty, when there are no bars
		Indicators struct {
			Quote []quote `json:"quote"`
		} `json:"indicators"`
	}
	res := result{Meta: meta, Timestamp: ts}
	res.Indicators.Quote = []quote{{o, h, l, c, v}} // {} when empty, as Yahoo sends
	type chart struct {
		Result []result `json:"result"`
		Error  any      `json:"error"`
	}
	return sim.JSONReply(http.StatusOK, map[string]chart{"chart": {Result: []result{res}}})
}

// lastRegularClose finds the latest regular-session bar before now (split-adjusted), looking
// back at most ten days.
func lastRegularClose(rq *sim.Request, sym string) (sim.OHLCV, bool) {
	t := rq.Now.Truncate(time.Minute)
	floor := t.Add(-10 * 24 * time.Hour)
	for t.After(floor) {
		m, ok := market.PrevSessionMinute(t, sim.Regular, t.Sub(floor))
		if !ok {
			break
		}
		if b, ok := rq.Bar(sym, m, true); ok {
			return b, true
		}
		t = m
	}
	return sim.OHLCV{}, false
}

// yahooTradingPeriod is meta.currentTradingPeriod: the sessions of now's trading day, or the next
// one.
func yahooTradingPeriod(now time.Time) map[string]any {
	for d := 0; d < 10; d++ {
		ny := now.In(market.NewYork)
		day := market.Day(ny.Year(), ny.Month(), ny.Day()+d)
		if !day.Trading {
			continue
		}
		out := map[string]any{}
		for name, sess := range map[string]market.Session{"pre": market.Pre, "regular": market.Regular, "post": market.Post} {
			start, end, _ := day.Bounds(sess)
			zone, offset := start.In(market.NewYork).Zone()
			out[name] = map[string]any{"timezone": zone, "start": start.Unix(), "end": end.Unix(), "gmtoffset": offset}
		}
		return out
	}
	return nil
}

func init() { sim.Register(yahooEmulation) }
