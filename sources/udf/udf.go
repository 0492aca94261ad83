// Package udf reads TradingView UDF history endpoints ({"s":"ok","t":[…],"c":[…]}): the generic
// source type "udf" for any such endpoint, and the body parser and request loop that pyth and
// finnhub, which speak the same format, share.
package udf

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/sources"
)

// Type is the source type sources.yaml names.
const Type = "udf"

// options are the "udf" type's own keys in sources.yaml.
var options = map[string]string{
	"history_path": "path of the history endpoint under base_url (default /history)",
	"symbol_param": "query parameter that carries the symbol (default symbol)",
	"resolution":   "value of the resolution parameter that asks for 1-minute bars (default 1)",
	"auth_header":  "header that carries the key from key_env (default Authorization when a key is set)",
	"auth_scheme":  "word before the key in auth_header (default Bearer for Authorization, none otherwise)",
	"sessions":     "comma-separated sessions the bars include: overnight, pre, regular, post (default regular)",
	"lookback":     "how far back 1-minute history reaches, like 30d (default unlimited)",
	"max_window":   "widest span one request may ask for, like 24h or 7d (default 24h)",
	"adjustment":   "raw or splits: the adjustment of the prices returned (default raw)",
}

// DefaultFinalAfter: a generic endpoint says nothing about when its bars are final;
// sources.UndocumentedFinalAfter unless sources.yaml sets final_after.
const DefaultFinalAfter = sources.UndocumentedFinalAfter

// factory is the type's one Factory: registered, and what its sources are built with. A generic endpoint
// has no known rate limit and maybe no key: sources.yaml sets both.
var factory = sources.Adapter(sources.Factory{Type: Type, Options: options, FinalAfter: DefaultFinalAfter}, build)

// Config is where a UDF source asks, beyond its Base (client and coverage).
type Config struct {
	HistoryPath string // path under the base URL
	SymbolParam string // query parameter of the symbol
	Resolution  string // resolution value of 1-minute bars
}

// Source asks a UDF history endpoint for 1-minute bars.
type Source struct {
	sources.Base
	cfg Config
}

// NewSource builds a UDF source over a Base; pyth and finnhub build theirs with it.
func NewSource(b sources.Base, cfg Config) *Source {
	return &Source{Base: b, cfg: cfg}
}

// build makes a "udf" source from its sources.yaml settings.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	opt := func(k, def string) string { return Option(s, k, def) }
	cov, err := CoverageOptions(s.Name, s.Options, "regular", 24*time.Hour)
	if err != nil {
		return nil, err
	}
	header, err := AuthHeader(s, opt("auth_header", ""), opt("auth_scheme", ""))
	if err != nil {
		return nil, err
	}
	return NewSource(sources.NewBase(s, d, sources.ClientOptions{Header: header}, cov), Config{
		HistoryPath: opt("history_path", "/history"),
		SymbolParam: opt("symbol_param", "symbol"),
		Resolution:  opt("resolution", "1"),
	}), nil
}

// Option is a generic type's option k, trimmed, or def when it is not set.
func Option(s sources.Settings, k, def string) string {
	if v := strings.TrimSpace(s.Options[k]); v != "" {
		return v
	}
	return def
}

// AuthHeader is the header that carries the key of a generic source: none without a key,
// "Authorization: Bearer <key>" by default, or the header and scheme sources.yaml names.
func AuthHeader(s sources.Settings, header, scheme string) (map[string]string, error) {
	if s.Key == "" {
		if header != "" || scheme != "" {
			return nil, sources.OptionErrorf(s.Name, "auth_header", "auth_header/auth_scheme are set but key_env gives no key")
		}
		return nil, nil
	}
	if header == "" {
		header = "Authorization"
		if scheme == "" {
			scheme = "Bearer"
		}
	}
	if strings.ContainsAny(header, " :\r\n") {
		return nil, sources.OptionErrorf(s.Name, "auth_header", "%q is not a header name", header)
	}
	if strings.ContainsAny(scheme, " \r\n") {
		return nil, sources.OptionErrorf(s.Name, "auth_scheme", "%q must be one word", scheme)
	}
	v := s.Key
	if scheme != "" {
		v = scheme + " " + s.Key
	}
	return map[string]string{header: v}, nil
}

// CoverageOptions reads the coverage options the generic types share (sessions, lookback,
// max_window, adjustment) of source name with the given defaults; errors are *sources.OptionError.
func CoverageOptions(name string, opts map[string]string, sessions string, maxWindow time.Duration) (sources.Coverage, error) {
	cov := sources.Coverage{MaxWindow: maxWindow, Adjustment: sources.Raw}
	var err error
	text := sessions
	if v := strings.TrimSpace(opts["sessions"]); v != "" {
		text = v
	}
	if cov.Sessions, err = sources.ParseSessionList(text); err != nil {
		return cov, sources.OptionErrorf(name, "sessions", "%v", err)
	}
	if v, ok := opts["lookback"]; ok {
		if cov.Lookback, err = sources.ParseSpan(v); err != nil {
			return cov, sources.OptionErrorf(name, "lookback", "%v", err)
		}
	}
	if v, ok := opts["max_window"]; ok && strings.TrimSpace(v) != "" {
		if cov.MaxWindow, err = sources.ParseSpan(v); err != nil {
			return cov, sources.OptionErrorf(name, "max_window", "%v", err)
		}
		if cov.MaxWindow < time.Minute {
			return cov, sources.OptionErrorf(name, "max_window", "%q is shorter than one bar", v)
		}
	}
	if v, ok := opts["adjustment"]; ok && strings.TrimSpace(v) != "" {
		if cov.Adjustment, err = sources.ParseAdjustment(v); err != nil {
			return cov, sources.OptionErrorf(name, "adjustment", "%v", err)
		}
	}
	return cov, nil
}

// Bars asks the history endpoint for [from, to) one window of at most MaxWindow at a time. UDF
// from and to are both inclusive seconds, so each window [a, b) is asked as from=a, to=b-1s: the
// bar starting at b belongs to the next window and is never fetched twice.
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	if err := s.Check(symbol, from, to); err != nil {
		return nil, err
	}
	var all []sources.Bar
	for _, w := range sources.Windows(from, to, s.Coverage().MaxWindow) {
		lo, hi := sources.CeilUnix(w.From), sources.CeilUnix(w.To)-1
		if hi < lo {
			continue
		}
		q := url.Values{}
		q.Set(s.cfg.SymbolParam, symbol)
		q.Set("resolution", s.cfg.Resolution)
		q.Set("from", strconv.FormatInt(lo, 10))
		q.Set("to", strconv.FormatInt(hi, 10))
		req := sources.Request{Path: s.cfg.HistoryPath, Query: q, Limit: sources.BodyCap(w.From, w.To, 1), Keep: w}
		bars, err := sources.Fetch(ctx, s.Client(), req, func(st *sources.Stream) ([]sources.Bar, error) { return Decode(st, w) })
		if err != nil {
			return nil, err
		}
		all = append(all, bars...)
	}
	return s.Client().Finish(all, from, to)
}

// Parse reads a whole UDF history body held in memory (a recorded one), keeping every bar.
func Parse(body []byte) ([]sources.Bar, error) {
	return sources.DecodeBytes(body, func(s *sources.Stream) ([]sources.Bar, error) { return Decode(s, sources.AllTime) })
}

// Decode reads a UDF history body as it arrives into the bars that start in keep, in the order
// given, with t taken as the bar start in unix seconds. s:"ok" with empty arrays and s:"no_data"
// (whatever its nextTime) are no bars; s:"error", a body without s, and anything malformed are
// errors: an *sources.Error without a source, whose kind comes from the provider's words (see
// sources.ClassifyMessage). A null close is a minute without a price and gives no bar; a null
// time is malformed. Finnhub writes its arrays in name order, c before t: that column is held
// (compactly) until t says which rows to keep; columns after t keep only those rows.
func Decode(s *sources.Stream, keep sources.Window) ([]sources.Bar, error) {
	var status, errMsg, errText *string
	var times []int64 // of the kept rows
	var rows sources.Rows
	nt := 0
	var closes, volumes sources.Column
	s.Expect("a UDF history body")
	err := s.Object(func(name []byte) error {
		switch string(name) {
		case "s":
			v, err := s.String()
			if err != nil {
				return err
			}
			status = &v
		case "errmsg", "error":
			v, err := s.Raw()
			if err != nil {
				return err
			}
			msg := text(v)
			if string(name) == "errmsg" {
				errMsg = &msg
			} else {
				errText = &msg
			}
		case "t":
			times, rows, nt = times[:0], sources.Rows{}, 0 // rows not nil: c and v filter
			return s.Array(func(i int) error {
				nt++
				raw, err := s.Raw()
				if err != nil {
					return err
				}
				sec, err := unixBytes(raw)
				if err != nil {
					return sources.Errorf("", sources.ErrBadResponse, "t[%d]: %v", i, err)
				}
				if sec%60 != 0 {
					return sources.Errorf("", sources.ErrBadResponse, "t[%d]: %v", i, sources.Aligned(time.Unix(sec, 0)))
				}
				if keep.Has(time.Unix(sec, 0)) {
					rows = append(rows, i)
					times = append(times, sec)
				}
				return nil
			})
		case "c":
			return closes.Read(s, rows)
		case "v":
			return volumes.Read(s, rows)
		default:
			return s.Skip()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	pick := func(ps ...*string) string {
		for _, p := range ps {
			if p != nil && strings.TrimSpace(*p) != "" {
				return *p
			}
		}
		return ""
	}
	if status == nil {
		if msg := pick(errText, errMsg); msg != "" {
			return nil, sources.Errorf("", sources.ClassifyMessage(msg), "%s", msg)
		}
		return nil, sources.Errorf("", sources.ErrBadResponse, "UDF history body has no s field")
	}
	switch *status {
	case "ok":
	case "no_data":
		return []sources.Bar{}, nil
	case "error":
		msg := pick(errMsg, errText)
		if msg == "" {
			msg = "s is error, without errmsg"
		}
		return nil, sources.Errorf("", sources.ClassifyMessage(msg), "%s", msg)
	default:
		return nil, sources.Errorf("", sources.ErrBadResponse, "UDF status s=%q", *status)
	}
	if closes.Len() != nt {
		return nil, sources.Errorf("", sources.ErrBadResponse, "UDF arrays differ in length: %d times, %d closes", nt, closes.Len())
	}
	if volumes.Len() != 0 && volumes.Len() != nt {
		return nil, sources.Errorf("", sources.ErrBadResponse, "UDF arrays differ in length: %d times, %d volumes", nt, volumes.Len())
	}
	bars := make([]sources.Bar, 0, len(rows))
	for k, i := range rows {
		c := closes.At(i)
		if string(c) == "null" {
			continue
		}
		var vol []byte // no v array (Pyth's aggregate prices): volume 0
		if volumes.Len() != 0 {
			vol = volumes.At(i)
		}
		bar, err := sources.ParseBar(time.Unix(times[k], 0).UTC(), c, vol)
		if err != nil {
			return nil, sources.Errorf("", sources.ErrBadResponse, "bar %d: %v", i, err)
		}
		bars = append(bars, bar)
	}
	return bars, nil
}

// UnixText reads a unix time in seconds from JSON text: an integer, or the same quoted. It stays
// within years 1970–2200, so a time in milliseconds is caught rather than read as the far future.
func UnixText(raw string) (int64, error) {
	s := strings.TrimSpace(raw)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("time %q is not whole unix seconds", clip(raw))
	}
	if n < 0 || n > maxUnix {
		return 0, fmt.Errorf("time %d is out of range for unix seconds", n)
	}
	return n, nil
}

// unixBytes is UnixText of a raw JSON value, read in place when it is plain digits (quoted or
// not) in range; anything else goes to UnixText, which says what is wrong.
func unixBytes(raw []byte) (int64, error) {
	s := raw
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' || n > maxUnix {
			return UnixText(string(raw))
		}
		n = n*10 + int64(c-'0')
	}
	if len(s) == 0 || n > maxUnix {
		return UnixText(string(raw))
	}
	return n, nil
}

const maxUnix = 7258118400 // 2200-01-01T00:00:00Z

// text is a raw JSON value's string, "" when it is not a string.
func text(raw []byte) string {
	s, err := sources.StringText(raw)
	if err != nil {
		return ""
	}
	return s
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
