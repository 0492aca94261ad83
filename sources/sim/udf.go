package sim

import (
	"net/http"
	"time"

	"github.com/pricerig/pricerig/market"
)

// UDFInBody is a TradingView UDF error in a 200 body.
func UDFInBody(*Request) Reply {
	return RawJSON(http.StatusOK, []byte(`{"s":"error","errmsg":"An error occured."}`))
}

func udfError(msg string) Reply {
	return JSONReply(http.StatusOK, map[string]string{"s": "error", "errmsg": msg})
}

// UDFHistory answers a TradingView UDF history request (?symbol=&resolution=1&from=&to=, unix
// seconds, both inclusive) with the raw bars of sessions, their volumes when volume is true (0
// otherwise): the format pyth and udf both speak.
func UDFHistory(rq *Request, sessions []market.Session, volume bool) Reply {
	sym := rq.TapeSymbol(rq.Query.Get("symbol"))
	if sym == "" {
		return udfError("unknown_symbol")
	}
	if rq.Query.Get("resolution") != "1" {
		return udfError("unsupported resolution: the simulator serves 1")
	}
	from, ok1 := ParseUnix(rq.Query.Get("from"))
	to, ok2 := ParseUnix(rq.Query.Get("to"))
	if !ok1 || !ok2 {
		return JSONReply(http.StatusUnprocessableEntity, map[string]string{"s": "error", "errmsg": "from and to must be unix seconds"})
	}
	if to.Sub(from) > MaxSpan {
		return udfError(TooWide)
	}
	bars := rq.Series(sym, from, to.Add(time.Nanosecond), sessions, false)
	t, o, h, l, c, v := []Num{}, []Num{}, []Num{}, []Num{}, []Num{}, []Num{}
	for _, b := range bars {
		t = append(t, IntNum(b.Start.Unix()))
		o, h, l, c = append(o, Num(ScaledText(b.O))), append(h, Num(ScaledText(b.H))), append(l, Num(ScaledText(b.L))), append(c, Num(ScaledText(b.C)))
		vol := int64(0)
		if volume {
			vol = b.V
		}
		v = append(v, IntNum(vol))
	}
	return JSONReply(http.StatusOK, struct {
		S string `json:"s"`
		T []Num  `json:"t"`
		O []Num  `json:"o"`
		H []Num  `json:"h"`
		L []Num  `json:"l"`
		C []Num  `json:"c"`
		V []Num  `json:"v"`
	}{"ok", t, o, h, l, c, v})
}
