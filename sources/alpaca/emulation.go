package alpaca

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources/sim"
)

// Alpaca market data v2: GET /v2/stocks/bars?symbols=A,B and /v2/stocks/{symbol}/bars with
// timeframe=1Min, start/end (RFC 3339 or a New York date, both inclusive), limit (1–10000,
// default 1000, counted across symbols), page_token/next_page_token, sort, feed and
// adjustment=raw (default) | split | dividend | spin-off | all. Keys go in APCA-API-KEY-ID and
// APCA-API-SECRET-KEY. feed=sip (explicit) with an end less than 15 minutes old is refused with
// Alpaca's 403; without a feed the end defaults to 15 minutes ago. feed=boats serves the
// overnight session; the others pre, regular and post. The tape has no dividends, so the
// dividend adjustments change nothing.
var alpacaEmulation = &sim.Emulation{
	Name:     "alpaca",
	Sessions: sim.PreRegPost,
	// Alpaca calculates a minute bar 1 s after the minute and recalculates it 30 s later for
	// trades reported late ("Bars are calculated, and available, 1 second after the close of
	// each minute … the bar is then recalculated after 30 seconds", alpaca.markets/learn-api/
	// stock-minute-bars). The emulation revises every bar once, at 30 s.
	Publish: sim.Publication{Lag: time.Second, Revise: 30 * time.Second},
	Auth: func(r *http.Request) sim.AuthState {
		id, secret := r.Header.Get("APCA-API-KEY-ID"), r.Header.Get("APCA-API-SECRET-KEY")
		switch {
		case id == "" && secret == "":
			return sim.AuthMissing
		case id == sim.Key && secret == sim.Secret:
			return sim.AuthOK
		}
		return sim.AuthWrong
	},
	Denied: func(_ *sim.Request, missing bool) sim.Reply {
		if missing {
			return sim.RawJSON(http.StatusUnauthorized, []byte(`{"message":"unauthorized."}`))
		}
		return sim.RawJSON(http.StatusForbidden, []byte(`{"message":"forbidden."}`))
	},
	Limited: func(*sim.Request) sim.Reply {
		return sim.RawJSON(http.StatusTooManyRequests, []byte(`{"code":42910000,"message":"rate limit exceeded"}`))
	},
	InBody: func(*sim.Request) sim.Reply {
		return sim.RawJSON(http.StatusOK, []byte(`{"code":50010000,"message":"internal server error occurred"}`))
	},
	Headers: func(rq *sim.Request) http.Header {
		limit, used := rq.Limit, rq.Used
		if limit <= 0 {
			return nil
		}
		reset := rq.Now.Truncate(time.Minute).Add(time.Minute).Unix()
		return http.Header{
			"X-Ratelimit-Limit":     {strconv.Itoa(limit)},
			"X-Ratelimit-Remaining": {strconv.Itoa(max(0, limit-used))},
			"X-Ratelimit-Reset":     {strconv.FormatInt(reset, 10)},
		}
	},
	Serve: alpacaBars,
}

func alpacaError(status, code int, msg string) sim.Reply {
	return sim.JSONReply(status, map[string]any{"code": code, "message": msg})
}

type alpacaItem struct {
	sym string
	bar sim.OHLCV
}

func alpacaBars(rq *sim.Request) sim.Reply {
	var symbols []string
	single := ""
	switch {
	case rq.Path == "/v2/stocks/bars":
		for _, t := range strings.Split(rq.Query.Get("symbols"), ",") {
			if t = strings.TrimSpace(strings.ToUpper(t)); t != "" {
				symbols = append(symbols, t)
			}
		}
		if len(symbols) == 0 {
			return alpacaError(http.StatusBadRequest, 40010001, "symbols is required")
		}
	case strings.HasPrefix(rq.Path, "/v2/stocks/") && strings.HasSuffix(rq.Path, "/bars"):
		single = strings.ToUpper(strings.TrimSuffix(strings.TrimPrefix(rq.Path, "/v2/stocks/"), "/bars"))
		if single == "" || strings.Contains(single, "/") {
			return sim.TextReply(http.StatusNotFound, "Not Found")
		}
		symbols = []string{single}
	default:
		return sim.TextReply(http.StatusNotFound, "Not Found")
	}
	if tf := rq.Query.Get("timeframe"); tf != "1Min" && tf != "1T" {
		return alpacaError(http.StatusUnprocessableEntity, 42210000, fmt.Sprintf("invalid timeframe %q (the simulator serves 1Min)", tf))
	}
	feed := strings.ToLower(rq.Query.Get("feed"))
	sessions := sim.PreRegPost
	switch feed {
	case "", "sip", "iex", "otc", "delayed_sip":
	case "boats", "overnight":
		sessions = []market.Session{market.Overnight}
	default:
		return alpacaError(http.StatusBadRequest, 40010001, fmt.Sprintf("invalid feed %q", feed))
	}
	start := rq.Now.In(market.NewYork)
	start = time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, market.NewYork)
	if v := rq.Query.Get("start"); v != "" {
		t, ok := alpacaTime(v, false)
		if !ok {
			return alpacaError(http.StatusUnprocessableEntity, 42210000, "invalid start: "+v)
		}
		start = t
	}
	end := rq.Now
	if v := rq.Query.Get("end"); v != "" {
		t, ok := alpacaTime(v, true)
		if !ok {
			return alpacaError(http.StatusUnprocessableEntity, 42210000, "invalid end: "+v)
		}
		end = t
		if feed == "sip" && end.After(rq.Now.Add(-15*time.Minute)) {
			return sim.RawJSON(http.StatusForbidden, []byte(`{"code":42210000,"message":"subscription does not permit querying recent SIP data"}`))
		}
	}
	if feed == "" && end.After(rq.Now.Add(-15*time.Minute)) {
		end = rq.Now.Add(-15 * time.Minute)
	}
	if end.Before(start) && rq.Query.Get("end") != "" {
		return alpacaError(http.StatusUnprocessableEntity, 42210000, "end should not be before start")
	}
	limit := 1000
	if v := rq.Query.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			return alpacaError(http.StatusUnprocessableEntity, 42210000, "invalid limit: must be between 1 and 10000")
		}
		limit = n
	}
	adjusted := false
	for _, a := range strings.Split(rq.Query.Get("adjustment"), ",") {
		switch strings.TrimSpace(a) {
		case "", "raw", "dividend", "spin-off":
		case "split", "all":
			adjusted = true
		default:
			return alpacaError(http.StatusUnprocessableEntity, 42210000, fmt.Sprintf("invalid adjustment %q", a))
		}
	}
	desc := rq.Query.Get("sort") == "desc"

	var served []string
	for _, name := range symbols {
		if sym := rq.TapeSymbol(name); sym != "" && !slices.Contains(served, sym) {
			served = append(served, sym)
		}
	}
	sort.Strings(served)
	var tokSym string
	var tokAt time.Time
	hasTok := false
	if tok := rq.Query.Get("page_token"); tok != "" {
		if tokSym, tokAt, hasTok = decodeAlpacaToken(tok); !hasTok {
			return alpacaError(http.StatusBadRequest, 40010001, "invalid page token")
		}
	}
	// the bars of this page and one more, by symbol then time, resuming at the token
	var items []alpacaItem
	want := limit + 1
	for _, sym := range served {
		if hasTok && sym < tokSym {
			continue
		}
		lo, hi := start, end.Add(time.Nanosecond)
		if hasTok && sym == tokSym {
			if desc {
				hi = tokAt.Add(time.Nanosecond)
			} else {
				lo = tokAt
			}
		}
		var bars []sim.OHLCV
		if desc {
			bars = sim.Reversed(rq.Latest(sym, lo, hi, sessions, adjusted, want-len(items)))
		} else {
			bars = rq.First(sym, lo, hi, sessions, adjusted, want-len(items))
		}
		for _, b := range bars {
			items = append(items, alpacaItem{sym, b})
		}
		if len(items) >= want {
			break
		}
	}
	page := items
	next := ""
	if len(page) > limit {
		n := page[limit]
		next = encodeAlpacaToken(n.sym, n.bar.Start)
		page = page[:limit]
	}
	name := "" // the single-symbol endpoint's "symbol"
	if single != "" {
		name = single
		if len(served) == 1 {
			name = served[0]
		}
	}
	return sim.RawJSON(http.StatusOK, renderAlpaca(page, single != "", name, next))
}

// renderAlpaca writes a bars page as Alpaca's Go backend does (encoding/json of a map, so its
// keys sorted): "bars" a list and "symbol" on the single-symbol endpoint (null, not [], for no
// bars), an object of lists by symbol on the multi-symbol one; next_page_token null on the last
// page. page is sorted by symbol, then time.
func renderAlpaca(page []alpacaItem, single bool, name, next string) []byte {
	buf := make([]byte, 0, 64+len(page)*150)
	buf = append(buf, `{"bars":`...)
	switch {
	case single && len(page) == 0:
		buf = append(buf, "null"...)
	case !single:
		buf = append(buf, '{')
	}
	for i, it := range page {
		if i == 0 || it.sym != page[i-1].sym {
			if i > 0 {
				buf = append(buf, "],"...)
			}
			if !single {
				buf = append(sim.AppendJSONString(buf, it.sym), ':')
			}
			buf = append(buf, '[')
		} else {
			buf = append(buf, ',')
		}
		b := it.bar
		vw := (int64(b.H) + int64(b.L) + int64(b.C)) / 3 / 100 * 100 // 6 decimals, like Alpaca's
		buf = append(buf, `{"t":"`...)
		buf = b.Start.UTC().AppendFormat(buf, time.RFC3339)
		buf = sim.AppendDecimal(append(buf, `","o":`...), int64(b.O), numeric.Scale)
		buf = sim.AppendDecimal(append(buf, `,"h":`...), int64(b.H), numeric.Scale)
		buf = sim.AppendDecimal(append(buf, `,"l":`...), int64(b.L), numeric.Scale)
		buf = sim.AppendDecimal(append(buf, `,"c":`...), int64(b.C), numeric.Scale)
		buf = strconv.AppendInt(append(buf, `,"v":`...), b.V, 10)
		buf = strconv.AppendInt(append(buf, `,"n":`...), b.V/97+1, 10)
		buf = sim.AppendDecimal(append(buf, `,"vw":`...), vw, numeric.Scale)
		buf = append(buf, '}')
	}
	if len(page) > 0 {
		buf = append(buf, ']')
	}
	if !single {
		buf = append(buf, '}')
	}
	buf = append(buf, `,"next_page_token":`...)
	if next == "" {
		buf = append(buf, "null"...)
	} else {
		buf = sim.AppendJSONString(buf, next)
	}
	if single {
		buf = sim.AppendJSONString(append(buf, `,"symbol":`...), name)
	}
	return append(buf, '}')
}

// alpacaTime reads RFC 3339 or a date (midnight New York; as an end, the whole day).
func alpacaTime(v string, end bool) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, true
	}
	d, ok := sim.NYDate(v)
	if ok && end {
		d = sim.NextDay(d).Add(-time.Nanosecond)
	}
	return d, ok
}

// Page tokens are opaque base64 like Alpaca's ("R0V8RHwxNzEy…" is "GE|D|1712…"): symbol, the
// timeframe letter and the start of the next bar in nanoseconds.
func encodeAlpacaToken(sym string, at time.Time) string {
	return base64.StdEncoding.EncodeToString([]byte(sym + "|M|" + strconv.FormatInt(at.UnixNano(), 10)))
}

func decodeAlpacaToken(tok string) (string, time.Time, bool) {
	raw, err := base64.StdEncoding.DecodeString(tok)
	if err != nil {
		return "", time.Time{}, false
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 3 {
		return "", time.Time{}, false
	}
	ns, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return "", time.Time{}, false
	}
	return parts[0], time.Unix(0, ns).UTC(), true
}

func init() { sim.Register(alpacaEmulation) }
