package massive

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources/sim"
)

// Massive (Polygon) aggregates: GET /v2/aggs/ticker/{T}/range/1/minute/{from}/{to} with from and
// to as a New York date (whole days) or unix milliseconds (inclusive), adjusted=true (default,
// split-adjusted) | false, sort=asc|desc, limit (default 5000, at most 50000). The key comes as
// apiKey= or "Authorization: Bearer". A window with more bars than limit carries next_url — the
// same path with from (or to, descending) moved to the next bar and a cursor holding limit, sort
// and adjusted, and without the key, which the client adds again. An empty window has no
// results key; an unknown ticker is an empty window.
var massiveEmulation = &sim.Emulation{
	Name:     "massive",
	Sessions: sim.PreRegPost,
	// Massive publishes a minute's bar when it ends (none for a minute without trades) and
	// re-sends it when a late trade changes it: an off-exchange trade is reported to FINRA
	// "within 10 seconds", late enough to land after its bar was published (massive.com
	// knowledge base, "Why am I receiving a late aggregate bar"). The emulation revises every
	// bar once, 10 s after its minute; the late-trade window it may still do so in is 15
	// minutes (DefaultFinalAfter).
	Publish: sim.Publication{Lag: 0, Revise: 10 * time.Second},
	Auth: func(r *http.Request) sim.AuthState {
		bearer, _ := sim.HeaderKey(r, "Authorization", "Bearer")
		return sim.KeyCheck(r.URL.Query().Get("apiKey"), bearer)
	},
	Denied: func(rq *sim.Request, missing bool) sim.Reply {
		msg := "Unknown API Key"
		if missing {
			msg = "API Key was not provided"
		}
		return sim.JSONReply(http.StatusUnauthorized, map[string]string{"status": "ERROR", "request_id": sim.RequestID(rq), "error": msg})
	},
	Limited: func(rq *sim.Request) sim.Reply {
		return sim.JSONReply(http.StatusTooManyRequests, map[string]string{"status": "ERROR", "request_id": sim.RequestID(rq),
			"error": "You've exceeded the maximum requests per minute, please wait or upgrade your subscription to continue. https://polygon.io/pricing"})
	},
	InBody: func(rq *sim.Request) sim.Reply {
		return sim.JSONReply(http.StatusOK, map[string]string{"status": "NOT_AUTHORIZED", "request_id": sim.RequestID(rq),
			"message": "You are not entitled to this data. Please upgrade your plan at https://massive.com/pricing"})
	},
	Serve: massiveAggs,
}

func massiveError(rq *sim.Request, status int, msg string) sim.Reply {
	return sim.JSONReply(status, map[string]string{"status": "ERROR", "request_id": sim.RequestID(rq), "error": msg})
}

func massiveAggs(rq *sim.Request) sim.Reply {
	rest, ok := strings.CutPrefix(rq.Path, "/v2/aggs/ticker/")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 6 || parts[1] != "range" {
		return sim.RawJSON(http.StatusNotFound, []byte(`{"status":"NOT_FOUND","message":"Not Found"}`))
	}
	ticker, mult, span, fromText, toText := parts[0], parts[2], parts[3], parts[4], parts[5]
	if mult != "1" || span != "minute" {
		return massiveError(rq, http.StatusBadRequest, fmt.Sprintf("the simulator serves 1/minute aggregates, not %s/%s", mult, span))
	}
	from, ok1 := massiveTime(fromText, false)
	to, ok2 := massiveTime(toText, true)
	if !ok1 || !ok2 {
		return massiveError(rq, http.StatusBadRequest, "Could not parse the time parameter: 'from' and 'to' must be YYYY-MM-DD or a millisecond timestamp")
	}
	params := rq.Query
	if c := rq.Query.Get("cursor"); c != "" {
		raw, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil {
			return massiveError(rq, http.StatusBadRequest, "invalid cursor")
		}
		if params, err = url.ParseQuery(string(raw)); err != nil {
			return massiveError(rq, http.StatusBadRequest, "invalid cursor")
		}
	}
	adjusted := params.Get("adjusted") != "false"
	desc := params.Get("sort") == "desc"
	limit := 5000
	if v := params.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return massiveError(rq, http.StatusBadRequest, "limit must be a positive integer")
		}
		limit = min(n, 50000)
	}

	sym := rq.TapeSymbol(strings.ToUpper(ticker))
	var bars []sim.OHLCV // this page and one more, to know whether there is a next
	switch {
	case sym == "":
	case desc:
		bars = sim.Reversed(rq.Latest(sym, from, to, sim.PreRegPost, adjusted, limit+1))
	default:
		bars = rq.First(sym, from, to, sim.PreRegPost, adjusted, limit+1)
	}
	label := strings.ToUpper(ticker)
	if sym != "" {
		label = sym
	}
	nextURL := ""
	if len(bars) > limit {
		next := bars[limit]
		bars = bars[:limit]
		ms := strconv.FormatInt(next.Start.UnixMilli(), 10)
		f, t := ms, toText
		if desc {
			f, t = fromText, ms
		}
		cursor := url.Values{"adjusted": {strconv.FormatBool(adjusted)}, "limit": {strconv.Itoa(limit)}, "sort": {map[bool]string{false: "asc", true: "desc"}[desc]}}
		scheme := "http"
		if rq.R.TLS != nil {
			scheme = "https"
		}
		prefix := strings.TrimSuffix(rq.R.URL.Path, rq.Path)
		nextURL = fmt.Sprintf("%s://%s%s/v2/aggs/ticker/%s/range/1/minute/%s/%s?cursor=%s",
			scheme, rq.R.Host, prefix, ticker, f, t, base64.RawURLEncoding.EncodeToString([]byte(cursor.Encode())))
	}
	return sim.RawJSON(http.StatusOK, renderMassive(label, adjusted, sim.RequestID(rq), nextURL, bars))
}

// renderMassive writes an aggregates page as Massive does (encoding/json of a map, so its keys
// sorted): next_url only when there is a next page, results only when there are bars.
func renderMassive(ticker string, adjusted bool, requestID, nextURL string, bars []sim.OHLCV) []byte {
	buf := make([]byte, 0, 256+len(bars)*140)
	buf = strconv.AppendBool(append(buf, `{"adjusted":`...), adjusted)
	buf = strconv.AppendInt(append(buf, `,"count":`...), int64(len(bars)), 10)
	if nextURL != "" {
		buf = sim.AppendJSONString(append(buf, `,"next_url":`...), nextURL)
	}
	buf = strconv.AppendInt(append(buf, `,"queryCount":`...), int64(len(bars)), 10)
	buf = sim.AppendJSONString(append(buf, `,"request_id":`...), requestID)
	if len(bars) > 0 {
		buf = append(buf, `,"results":[`...)
		for i, b := range bars {
			if i > 0 {
				buf = append(buf, ',')
			}
			vw := (int64(b.H) + int64(b.L) + int64(b.C)) / 3 / 10_000 * 10_000
			buf = sim.AppendDecimal(append(buf, `{"c":`...), int64(b.C), numeric.Scale)
			buf = sim.AppendDecimal(append(buf, `,"h":`...), int64(b.H), numeric.Scale)
			buf = sim.AppendDecimal(append(buf, `,"l":`...), int64(b.L), numeric.Scale)
			buf = strconv.AppendInt(append(buf, `,"n":`...), b.V/97+1, 10)
			buf = sim.AppendDecimal(append(buf, `,"o":`...), int64(b.O), numeric.Scale)
			buf = strconv.AppendInt(append(buf, `,"t":`...), b.Start.UnixMilli(), 10)
			buf = strconv.AppendInt(append(buf, `,"v":`...), b.V, 10)
			buf = sim.AppendDecimal(append(buf, `,"vw":`...), vw, numeric.Scale)
			buf = append(buf, '}')
		}
		buf = append(buf, ']')
	}
	buf = strconv.AppendInt(append(buf, `,"resultsCount":`...), int64(len(bars)), 10)
	buf = sim.AppendJSONString(append(buf, `,"status":"OK","ticker":`...), ticker)
	return append(buf, '}')
}

// massiveTime reads a from/to path segment: unix milliseconds (inclusive) or a New York date
// (from: its midnight; to: the whole day).
func massiveTime(text string, end bool) (time.Time, bool) {
	if ms, err := strconv.ParseInt(text, 10, 64); err == nil {
		t := time.UnixMilli(ms).UTC()
		if end {
			t = t.Add(time.Nanosecond) // inclusive
		}
		return t, true
	}
	d, ok := sim.NYDate(text)
	if ok && end {
		d = sim.NextDay(d)
	}
	return d, ok
}

func init() { sim.Register(massiveEmulation) }
