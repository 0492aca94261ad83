// Package jsonsrc is the generic source type "json": a provider described in sources.yaml by a
// URL template and gjson paths to its bars, times and prices, so a user can add a JSON API
// without Go code. Prices are read from the raw JSON text of each value, never through a float.
package jsonsrc

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/udf"
)

// Type is the source type sources.yaml names.
const Type = "json"

var options = map[string]string{
	"url":           "path and query under base_url with {symbol}, {from}, {to} and {key} placeholders (required)",
	"from_format":   "how {from} is written: unix (default), unixms, rfc3339 or date",
	"to_format":     "how {to} is written: unix (default), unixms, rfc3339 or date",
	"bars_path":     `gjson path to the array of bars ("" for a body that is the array; the default)`,
	"bars_optional": "true when the provider leaves bars_path out of a window without trades (default false: a missing array is an error)",
	"time_path":     "gjson path to a bar's time, relative to the bar (required)",
	"time_format":   "unix (default), unixms, rfc3339, or et for New York wall clock 2006-01-02 15:04:05",
	"label":         "start (default) or end: whether a bar's time is the start or the end of its minute",
	"price_path":    "gjson path to a bar's close, relative to the bar (required)",
	"volume_path":   "gjson path to a bar's volume, relative to the bar (optional)",
	"error_path":    "gjson path whose presence in a body means an error (optional)",
	"symbol_path":   "gjson path where the body echoes the symbol; another symbol is a bad response (optional)",
	"auth_header":   "header that carries the key when url has no {key} (default Authorization)",
	"auth_scheme":   "word before the key in auth_header (default Bearer for Authorization)",
	"sessions":      "comma-separated sessions the bars include (default regular)",
	"lookback":      "how far back 1-minute history reaches, like 30d (default unlimited)",
	"max_window":    "widest span one request may ask for, like 24h or 7d (default 24h)",
	"adjustment":    "raw or splits (default raw)",
}

var required = []string{"url", "time_path", "price_path"}

// DefaultFinalAfter: a generic endpoint says nothing about when its bars are final;
// sources.UndocumentedFinalAfter unless sources.yaml sets final_after.
const DefaultFinalAfter = sources.UndocumentedFinalAfter

// factory is the type's one Factory: registered, and what its sources are built with.
var factory = sources.Adapter(sources.Factory{Type: Type, Options: options, Required: required, FinalAfter: DefaultFinalAfter}, build)

// Spec says where a body keeps its bars and how to read them; Parse needs nothing else.
type Spec struct {
	BarsPath     string // "" for the root
	BarsOptional bool
	TimePath     string
	TimeFormat   string // unix, unixms, rfc3339, et
	LabelEnd     bool   // times label the end of the minute
	PricePath    string
	VolumePath   string
	ErrorPath    string
	SymbolPath   string
}

// Source is a json source.
type Source struct {
	sources.Base
	spec       Spec
	tmpl       string
	fromFormat string
	toFormat   string
}

var placeholder = regexp.MustCompile(`\{[^{}]*\}`)

var boundFormats = map[string]bool{"unix": true, "unixms": true, "rfc3339": true, "date": true}
var timeFormats = map[string]bool{"unix": true, "unixms": true, "rfc3339": true, "et": true}

// build makes a json source and checks its template and paths.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	opt := func(k, def string) string { return udf.Option(s, k, def) }
	bad := func(k, format string, args ...any) error {
		return sources.OptionErrorf(s.Name, k, format, args...)
	}
	tmpl := opt("url", "")
	if strings.Contains(tmpl, "://") {
		return nil, bad("url", "%q must be a path and query under base_url, not a full URL", tmpl)
	}
	hasKey := false
	for _, p := range placeholder.FindAllString(tmpl, -1) {
		switch p {
		case "{symbol}", "{from}", "{to}":
		case "{key}":
			hasKey = true
		default:
			return nil, bad("url", "unknown placeholder %s (want {symbol}, {from}, {to}, {key})", p)
		}
	}
	if !strings.Contains(tmpl, "{symbol}") {
		return nil, bad("url", "%q has no {symbol}", tmpl)
	}
	if hasKey && s.Key == "" {
		return nil, bad("url", "uses {key} but key_env gives no key")
	}
	src := &Source{tmpl: tmpl}
	src.fromFormat, src.toFormat = opt("from_format", "unix"), opt("to_format", "unix")
	for k, v := range map[string]string{"from_format": src.fromFormat, "to_format": src.toFormat} {
		if !boundFormats[v] {
			return nil, bad(k, "%q is not unix, unixms, rfc3339 or date", v)
		}
	}
	spec := Spec{
		BarsPath:   opt("bars_path", ""),
		TimePath:   opt("time_path", ""),
		TimeFormat: opt("time_format", "unix"),
		PricePath:  opt("price_path", ""),
		VolumePath: opt("volume_path", ""),
		ErrorPath:  opt("error_path", ""),
		SymbolPath: opt("symbol_path", ""),
	}
	if !timeFormats[spec.TimeFormat] {
		return nil, bad("time_format", "%q is not unix, unixms, rfc3339 or et", spec.TimeFormat)
	}
	switch v := opt("label", "start"); v {
	case "start":
	case "end":
		spec.LabelEnd = true
	default:
		return nil, bad("label", "%q is not start or end", v)
	}
	switch v := opt("bars_optional", "false"); v {
	case "true", "false":
		spec.BarsOptional = v == "true"
	default:
		return nil, bad("bars_optional", "%q is not true or false", v)
	}
	for k, v := range map[string]string{"bars_path": spec.BarsPath, "time_path": spec.TimePath, "price_path": spec.PricePath,
		"volume_path": spec.VolumePath, "error_path": spec.ErrorPath, "symbol_path": spec.SymbolPath} {
		if strings.ContainsAny(v, "\r\n") {
			return nil, bad(k, "%q spans lines", v)
		}
	}
	src.spec = spec
	cov, err := udf.CoverageOptions(s.Name, s.Options, "regular", 24*time.Hour)
	if err != nil {
		return nil, err
	}
	var header map[string]string
	if !hasKey {
		if header, err = udf.AuthHeader(s, opt("auth_header", ""), opt("auth_scheme", "")); err != nil {
			return nil, err
		}
	} else if opt("auth_header", "") != "" || opt("auth_scheme", "") != "" {
		return nil, bad("auth_header", "the key already goes in url as {key}; set one or the other")
	}
	readError := func(_ int, body []byte) (string, error) {
		return errorAt(body, spec.ErrorPath), nil // the message at error_path, when the body has one
	}
	src.Base = sources.NewBase(s, d, sources.ClientOptions{Header: header, ReadError: readError}, cov)
	return src, nil
}

// Bars asks the URL for [from, to) one window of at most max_window at a time. It cannot know
// whether the provider reads {to} as inclusive, so it sends the window's bounds as they are and
// keeps only the bars inside; a bar fetched twice at a shared bound is dropped by Tidy.
func (s *Source) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	if err := s.Check(symbol, from, to); err != nil {
		return nil, err
	}
	symbol = strings.TrimSpace(symbol)
	var all []sources.Bar
	for _, w := range sources.Windows(from, to, s.Coverage().MaxWindow) {
		target := Expand(s.tmpl, map[string]string{
			"symbol": symbol,
			"from":   FormatBound(w.From, w.To, s.fromFormat, false),
			"to":     FormatBound(w.From, w.To, s.toFormat, true),
			"key":    s.Key(),
		})
		// a provider that takes dates answers whole days: a day either side is room for them
		req := sources.Request{Path: target, Limit: sources.BodyCap(w.From.AddDate(0, 0, -1), w.To.AddDate(0, 0, 1), 1), Keep: w}
		bars, err := sources.Fetch(ctx, s.Client(), req, func(st *sources.Stream) ([]sources.Bar, error) { return Decode(st, s.spec, symbol, w) })
		if err != nil {
			return nil, err
		}
		all = append(all, bars...)
	}
	return s.Client().Finish(all, from, to)
}

// Expand fills a URL template: values before the first ? are escaped as path segments, values
// after it as query values, so a symbol like Equity.US.NVDA/USD or BRK B survives either place.
func Expand(tmpl string, values map[string]string) string {
	path, query, hasQuery := strings.Cut(tmpl, "?")
	fill := func(part string, esc func(string) string) string {
		return placeholder.ReplaceAllStringFunc(part, func(p string) string {
			v, ok := values[p[1:len(p)-1]]
			if !ok {
				return p
			}
			return esc(v)
		})
	}
	out := fill(path, pathEscape)
	if hasQuery {
		out += "?" + fill(query, queryEscape)
	}
	return out
}

// FormatBound writes the from (end=false) or to (end=true) bound of the window [from, to). Dates
// widen to cover the window whether the provider reads them in UTC or New York and inclusively
// (see sources.DateRanges); the others are the bound itself.
func FormatBound(from, to time.Time, format string, end bool) string {
	t := from
	if end {
		t = to
	}
	switch format {
	case "unixms":
		return strconv.FormatInt(t.UnixMilli(), 10)
	case "rfc3339":
		return t.UTC().Format(time.RFC3339)
	case "date":
		r := sources.DateRanges(from, to, 1<<20)
		if len(r) == 0 {
			return t.UTC().Format(time.DateOnly)
		}
		if end {
			return r[0].Last.Format(time.DateOnly)
		}
		return r[0].First.Format(time.DateOnly)
	default:
		if end {
			return strconv.FormatInt(sources.CeilUnix(t), 10)
		}
		return strconv.FormatInt(t.Unix(), 10)
	}
}

// Parse reads a whole body held in memory (a recorded one) as spec describes it, for symbol,
// keeping every bar.
func Parse(body []byte, spec Spec, symbol string) ([]sources.Bar, error) {
	return sources.DecodeBytes(body, func(s *sources.Stream) ([]sources.Bar, error) { return Decode(s, spec, symbol, sources.AllTime) })
}

// Decode reads a body as spec describes it, for symbol, keeping the bars that start in keep. An
// error_path that is present (and not null or false) makes the body an error, its kind taken
// from its words; a symbol_path that names another symbol is a bad response. The array at
// bars_path may be empty or null (no bars), or missing when spec.BarsOptional. A bar without a
// time or price is malformed; a null price is a minute without a price and gives no bar. Errors
// are *sources.Error without a source.
//
// Paths of plain member names (data.bars) are followed as the body arrives, holding one bar at a
// time; a path using more of gjson's syntax (wildcards, array indexes, queries) needs the whole
// body, which is then read within the body's cap and searched by gjson.
func Decode(s *sources.Stream, spec Spec, symbol string, keep sources.Window) ([]sources.Bar, error) {
	s.Expect("valid JSON")
	if !plainPath(spec.BarsPath) || !plainPath(spec.ErrorPath) || !plainPath(spec.SymbolPath) {
		raw, err := s.Raw()
		if err != nil {
			return nil, err
		}
		return parseWhole(bytes.Clone(raw), spec, symbol, keep)
	}
	var errVal, symVal gjson.Result
	var arrKind jsontext.Kind // of the value at bars_path; 0: not there
	bars := []sources.Bar{}
	var barErr error
	readBars := func() error {
		if arrKind = s.Kind(); arrKind != '[' {
			return s.Skip()
		}
		return s.Array(func(i int) error {
			raw, err := s.Raw()
			if err != nil || barErr != nil {
				return err
			}
			b, skip, err := parseBar(gjson.ParseBytes(raw), spec)
			if err == nil && !skip {
				err = sources.Aligned(b.Start)
			}
			switch {
			case err != nil:
				barErr = sources.Errorf("", sources.ErrBadResponse, "bar %d: %v", i, err)
			case !skip && keep.Has(b.Start):
				bars = append(bars, b)
			}
			return nil
		})
	}
	var walk func(path string) error
	walk = func(path string) error {
		if path == spec.BarsPath {
			return readBars()
		}
		if s.Kind() != '{' {
			return s.Skip()
		}
		return s.Object(func(name []byte) error {
			p := string(name)
			if path != "" {
				p = path + "." + p
			}
			switch {
			case p == spec.ErrorPath || p == spec.SymbolPath:
				raw, err := s.Raw()
				if err != nil {
					return err
				}
				r := gjson.ParseBytes(bytes.Clone(raw))
				if p == spec.ErrorPath {
					errVal = r
				}
				if p == spec.SymbolPath {
					symVal = r
				}
				return nil
			case p == spec.BarsPath, under(p, spec.BarsPath), under(p, spec.ErrorPath), under(p, spec.SymbolPath):
				return walk(p)
			}
			return s.Skip()
		})
	}
	if err := walk(""); err != nil {
		return nil, err
	}
	if msg := errorText(errVal, spec.ErrorPath); msg != "" {
		return nil, sources.Errorf("", sources.ClassifyMessage(msg), "%s", msg)
	}
	if err := checkSymbol(symVal, symbol); err != nil {
		return nil, err
	}
	switch {
	case arrKind == 0 && spec.BarsOptional, arrKind == 'n':
		return []sources.Bar{}, nil
	case arrKind == 0:
		return nil, sources.Errorf("", sources.ErrBadResponse, "no bars at bars_path %q", spec.BarsPath)
	case arrKind != '[':
		return nil, sources.Errorf("", sources.ErrBadResponse, "bars_path %q is not an array", spec.BarsPath)
	}
	if barErr != nil {
		return nil, barErr
	}
	return bars, nil
}

// plainPath reports whether a gjson path is only member names joined by dots, which the
// stream can follow: no wildcards, escapes, array indexes, queries or modifiers.
func plainPath(path string) bool {
	if path == "" {
		return true
	}
	for seg := range strings.SplitSeq(path, ".") {
		if !plainSegment.MatchString(seg) {
			return false
		}
	}
	return true
}

var plainSegment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// under reports whether path is an ancestor of target.
func under(path, target string) bool {
	return target != "" && strings.HasPrefix(target, path+".")
}

func checkSymbol(got gjson.Result, symbol string) error {
	if got.Exists() && got.Type != gjson.Null && !strings.EqualFold(got.String(), symbol) {
		return sources.Errorf("", sources.ErrBadResponse, "body is for symbol %q, not %q", clip(got.String()), symbol)
	}
	return nil
}

// parseWhole reads a body held whole with gjson, for paths the stream cannot follow.
func parseWhole(body []byte, spec Spec, symbol string, keep sources.Window) ([]sources.Bar, error) {
	root := gjson.ParseBytes(body)
	if msg := errorAt(body, spec.ErrorPath); msg != "" {
		return nil, sources.Errorf("", sources.ClassifyMessage(msg), "%s", msg)
	}
	if spec.SymbolPath != "" {
		if err := checkSymbol(root.Get(spec.SymbolPath), symbol); err != nil {
			return nil, err
		}
	}
	arr := root
	if spec.BarsPath != "" {
		arr = root.Get(spec.BarsPath)
	}
	switch {
	case !arr.Exists() && spec.BarsOptional, arr.Type == gjson.Null && arr.Exists():
		return []sources.Bar{}, nil
	case !arr.Exists():
		return nil, sources.Errorf("", sources.ErrBadResponse, "no bars at bars_path %q", spec.BarsPath)
	case !arr.IsArray():
		return nil, sources.Errorf("", sources.ErrBadResponse, "bars_path %q is not an array", spec.BarsPath)
	}
	bars := []sources.Bar{}
	var failure error
	arr.ForEach(func(i, bar gjson.Result) bool {
		b, skip, err := parseBar(bar, spec)
		if err == nil && !skip {
			err = sources.Aligned(b.Start)
		}
		if err != nil {
			failure = sources.Errorf("", sources.ErrBadResponse, "bar %d: %v", i.Int(), err)
			return false
		}
		if !skip && keep.Has(b.Start) {
			bars = append(bars, b)
		}
		return true
	})
	if failure != nil {
		return nil, failure
	}
	return bars, nil
}

func parseBar(bar gjson.Result, spec Spec) (b sources.Bar, skip bool, err error) {
	tr := bar.Get(spec.TimePath)
	if !tr.Exists() || tr.Type == gjson.Null {
		return b, false, fmt.Errorf("no time at %q", spec.TimePath)
	}
	t, err := parseTime(tr, spec.TimeFormat)
	if err != nil {
		return b, false, err
	}
	if spec.LabelEnd {
		t = t.Add(-time.Minute)
	}
	pr := bar.Get(spec.PricePath)
	if !pr.Exists() {
		return b, false, fmt.Errorf("no price at %q", spec.PricePath)
	}
	if pr.Type == gjson.Null {
		return b, true, nil
	}
	if pr.Type != gjson.Number && pr.Type != gjson.String {
		return b, false, fmt.Errorf("price %s is not a number", clip(pr.Raw))
	}
	if b.Close, err = numeric.ParsePrice(pr.Raw); err != nil {
		return b, false, err
	}
	if spec.VolumePath != "" {
		if vr := bar.Get(spec.VolumePath); vr.Exists() {
			if b.Volume, err = sources.ParseVolume(vr.Raw); err != nil {
				return b, false, err
			}
		}
	}
	b.Start = t.UTC()
	return b, false, nil
}

func parseTime(r gjson.Result, format string) (time.Time, error) {
	switch format {
	case "unix":
		sec, err := udf.UnixText(r.Raw)
		if err != nil {
			return time.Time{}, err
		}
		return time.Unix(sec, 0), nil
	case "unixms":
		raw := strings.Trim(strings.TrimSpace(r.Raw), `"`)
		ms, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || ms < 0 || ms > maxUnixMs {
			return time.Time{}, fmt.Errorf("time %q is not unix milliseconds", clip(r.Raw))
		}
		return time.UnixMilli(ms), nil
	case "rfc3339":
		t, err := time.Parse(time.RFC3339Nano, r.String())
		if err != nil || r.Type != gjson.String {
			return time.Time{}, fmt.Errorf("time %q is not RFC 3339", clip(r.Raw))
		}
		return t, nil
	case "et":
		t, err := time.ParseInLocation("2006-01-02 15:04:05", r.String(), market.NewYork)
		if err != nil || r.Type != gjson.String {
			return time.Time{}, fmt.Errorf("time %q is not New York wall clock 2006-01-02 15:04:05", clip(r.Raw))
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("unknown time_format %q", format)
}

const maxUnixMs = 7258118400000 // 2200-01-01

// errorAt is the message at error_path, or "" when there is none (absent, null or false).
func errorAt(body []byte, path string) string {
	if path == "" || !gjson.ValidBytes(body) {
		return ""
	}
	return errorText(gjson.GetBytes(body, path), path)
}

// errorText is the message of the value r found at error_path, "" when it is none.
func errorText(r gjson.Result, path string) string {
	if !r.Exists() || r.Type == gjson.Null || r.Type == gjson.False {
		return ""
	}
	msg := strings.TrimSpace(r.String())
	if msg == "" || r.IsObject() || r.IsArray() {
		msg = clip(r.Raw)
	}
	if msg == "" {
		msg = "error_path " + path + " is present"
	}
	return msg
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func pathEscape(s string) string { return url.PathEscape(s) }

func queryEscape(s string) string { return url.QueryEscape(s) }
