package sim

// What the emulations share besides the Request: numbers as providers print them (for their
// hand-written bodies), request ids, time and credential parsing, the span and session lists.

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"encoding/json"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// divRound divides rounding half away from zero (a, b > 0 here).
func divRound(a, b int64) int64 {
	if b == 1 {
		return a
	}
	return (2*a + b) / (2 * b)
}

// scaledText prints a scaled price as the shortest decimal: 103.64, 3380, 0.0123.
func ScaledText(p numeric.Scaled) string { return decimalText(int64(p), numeric.Scale) }

// fixedText prints a scaled price with exactly n decimals (n ≤ 8), rounding half away from zero:
// Twelve Data's "177.91010", Alpha Vantage's "86.4900".
func FixedText(p numeric.Scaled, n int) string {
	unit := int64(1)
	for i := n; i < numeric.Scale; i++ {
		unit *= 10
	}
	q := divRound(int64(p), unit)
	pow := int64(1)
	for i := 0; i < n; i++ {
		pow *= 10
	}
	if n == 0 {
		return strconv.FormatInt(q, 10)
	}
	return fmt.Sprintf("%d.%0*d", q/pow, n, q%pow)
}

// float32Text prints a price the way Yahoo does: the float32 it stores, widened to float64 and
// printed in full (103.64 → "103.63999938964844").
func Float32Text(p numeric.Scaled) string {
	f, err := strconv.ParseFloat(ScaledText(p), 32) // rounds the decimal straight to float32
	if err != nil {
		panic("sim: " + err.Error())
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Bodies of bars are written by hand into one buffer (appendDecimal, appendFixed,
// appendJSONString): the simulator shares the machine with what a benchmark measures, and
// encoding/json's reflection over a struct of text per field cost it about a third of its CPU.
// The render tests hold each hand-written body to encoding/json's, byte for byte.

// appendDecimal appends decimalText(v, scale).
func AppendDecimal(dst []byte, v int64, scale int) []byte {
	pow := ipow10(scale)
	dst = strconv.AppendInt(dst, v/pow, 10)
	frac := v % pow
	if frac == 0 {
		return dst
	}
	n := scale // the fraction's digits, once its trailing zeros are gone
	for frac%10 == 0 {
		frac /= 10
		n--
	}
	return appendPadded(append(dst, '.'), frac, n)
}

// appendPadded appends v (≥ 0) zero-padded to n digits.
func appendPadded(dst []byte, v int64, n int) []byte {
	for d := ipow10(n - 1); d > 1 && v < d; d /= 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, v, 10)
}

// appendFixed appends fixedText(p, n).
func AppendFixed(dst []byte, p numeric.Scaled, n int) []byte {
	unit := int64(1)
	for i := n; i < numeric.Scale; i++ {
		unit *= 10
	}
	q := divRound(int64(p), unit)
	if n == 0 {
		return strconv.AppendInt(dst, q, 10)
	}
	pow := ipow10(n)
	dst = strconv.AppendInt(dst, q/pow, 10)
	return appendPadded(append(dst, '.'), q%pow, n)
}

func ipow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// appendJSONString appends s as encoding/json writes a string.
func AppendJSONString(dst []byte, s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic("sim: " + err.Error())
	}
	return append(dst, b...)
}

// num is JSON number text written as is.
type Num string

func (n Num) MarshalJSON() ([]byte, error) { return []byte(n), nil }

func IntNum(v int64) Num { return Num(strconv.FormatInt(v, 10)) }

// requestID is a hex id in the shape providers print, derived from the request so answers stay
// deterministic.
func RequestID(rq *Request) string {
	h := mix64(uint64(len(rq.R.URL.RawQuery)) ^ uint64(rq.Now.UnixNano()))
	for _, c := range rq.R.URL.String() {
		h = mix64(h ^ uint64(c))
	}
	return fmt.Sprintf("%016x%016x", h, mix64(h))
}

// parseUnix reads whole unix seconds.
func ParseUnix(text string) (time.Time, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(n, 0).UTC(), true
}

// nyDate reads YYYY-MM-DD as midnight New York.
func NYDate(text string) (time.Time, bool) {
	d, err := time.ParseInLocation(time.DateOnly, strings.TrimSpace(text), market.NewYork)
	return d, err == nil
}

// nextDay is midnight New York of the day after the New York date of t.
func NextDay(t time.Time) time.Time {
	y, m, d := t.In(market.NewYork).Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, market.NewYork)
}

// headerKey reads a credential from a header that carries "<scheme> <key>" (scheme may be "").
func HeaderKey(r *http.Request, header, scheme string) (string, bool) {
	v := strings.TrimSpace(r.Header.Get(header))
	if v == "" {
		return "", false
	}
	if scheme != "" {
		word, rest, ok := strings.Cut(v, " ")
		if !ok || !strings.EqualFold(word, scheme) {
			return v, true // present but not in the scheme: a wrong key
		}
		v = strings.TrimSpace(rest)
	}
	return v, true
}

// keyCheck turns the credentials found into an authState.
func KeyCheck(values ...string) AuthState {
	for _, v := range values {
		if v == Key {
			return AuthOK
		}
	}
	for _, v := range values {
		if v != "" {
			return AuthWrong
		}
	}
	return AuthMissing
}

// maxSpan bounds the window of the providers with no documented limit (tiingo, pyth, fmp, udf),
// which their adapters stay well inside (a week at a time): it keeps one stray request from
// walking, and printing, a year of minutes.
const MaxSpan = 31 * 24 * time.Hour

const TooWide = "Error: the simulator serves at most 31 days per request"

var (
	PreRegPost = []market.Session{market.Pre, market.Regular, market.Post}
	Regular    = []market.Session{market.Regular}
	AllDay     = []market.Session{market.Overnight, market.Pre, market.Regular, market.Post}
)
