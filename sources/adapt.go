package sources

// Helpers the adapters share, next to Windows and Tidy in client.go: date ranges for providers
// that take dates, checks of parsed bars, the options every generic adapter reads, and turning a
// provider's words into an error kind. They are plain functions so each adapter's parser stays
// pure and testable.

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/tidwall/gjson"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/redact"
)

// DateRange is a run of calendar dates, both inclusive, as UTC midnights; format them with
// time.DateOnly.
type DateRange struct{ First, Last time.Time }

// DateRanges lists the calendar dates a provider that takes whole dates (startDate=2024-01-02)
// must be asked for to cover [from, to), in runs of at most days dates each. Providers differ on
// whether they read a date in UTC or in New York, so the runs cover both readings: they start at
// the New York date of from (never later than its UTC date) and end at the UTC date of the last
// instant before to (never earlier than its New York date). The adapter filters to [from, to).
func DateRanges(from, to time.Time, days int) []DateRange {
	if !to.After(from) {
		return nil
	}
	if days < 1 {
		days = 1
	}
	first := dateOf(from.In(market.NewYork))
	last := dateOf(to.Add(-time.Nanosecond).UTC())
	var out []DateRange
	for d := first; !d.After(last); d = d.AddDate(0, 0, days) {
		end := d.AddDate(0, 0, days-1)
		if end.After(last) {
			end = last
		}
		out = append(out, DateRange{d, end})
	}
	return out
}

func dateOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// CeilUnix is the first whole unix second at or after t: the inclusive lower bound a provider
// that takes seconds needs for [t, …). The inclusive upper bound for […, to) is CeilUnix(to)-1.
func CeilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// CheckAligned makes sure every bar starts on a whole minute. One that does not means the
// adapter misread the provider's clock (seconds for milliseconds, a wrong zone, end for start),
// and no answer from that body can be trusted.
func CheckAligned(bars []Bar) error {
	for _, b := range bars {
		if err := Aligned(b.Start); err != nil {
			return err
		}
	}
	return nil
}

// Aligned is CheckAligned of one bar start, for a stream decoder to check every bar of a body,
// the ones outside the window it keeps too.
func Aligned(t time.Time) error {
	if !t.Truncate(time.Minute).Equal(t) {
		return fmt.Errorf("bar time %s is not on a whole minute", t.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// ParseVolumeBytes is ParseVolume of a body's raw JSON value: a plain count of up to 18 digits,
// quoted or not, is read in place with no copy; anything else goes to ParseVolume.
func ParseVolumeBytes(raw []byte) (int64, error) {
	s := raw
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	if len(s) == 0 || len(s) > 18 || string(s) == "null" {
		return ParseVolume(string(raw))
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return ParseVolume(string(raw))
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

// ParseVolume reads a share count as a provider prints it: an integer, the same quoted, a decimal
// (some providers send 720121.0 or fractional shares, which are truncated), or null for unknown
// (0). Volume is informational, never on the value path, but a negative or non-numeric one is
// still a bad body.
func ParseVolume(text string) (int64, error) {
	s := strings.TrimSpace(text)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if s == "" || s == "null" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("volume %q is negative", clipText(text))
		}
		return n, nil
	}
	d, err := decimal.NewFromString(s)
	if err != nil || len(s) > 40 {
		return 0, fmt.Errorf("volume %q is not a number", clipText(text))
	}
	if d.Sign() < 0 {
		return 0, fmt.Errorf("volume %q is negative", clipText(text))
	}
	if d.GreaterThan(decimal.NewFromInt(1 << 62)) {
		return 0, fmt.Errorf("volume %q is absurdly large", clipText(text))
	}
	return d.IntPart(), nil
}

// ParseSpan reads a duration option: Go durations ("24h", "90m") plus whole days ("29d"), which
// is how providers state their limits. "" and "0" are zero (no limit).
func ParseSpan(text string) (time.Duration, error) {
	s := strings.TrimSpace(text)
	if s == "" || s == "0" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 100*366 {
			return 0, fmt.Errorf("%q is not a whole number of days like 7d", text)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration like 24h or 7d", text)
	}
	return d, nil
}

// ParseAdjustment reads an adjustment option. Only raw and splits are accepted: feeds can undo a
// split, but not a dividend adjustment, so a source returning those could never be reconciled.
func ParseAdjustment(text string) (Adjustment, error) {
	switch a := Adjustment(strings.TrimSpace(text)); a {
	case Raw, SplitAdjusted:
		return a, nil
	}
	return "", fmt.Errorf("%q is not an adjustment (want raw or splits)", text)
}

// ParseSessionList reads a comma-separated sessions option such as "pre,regular,post".
func ParseSessionList(text string) ([]market.Session, error) {
	var names []string
	for n := range strings.SplitSeq(text, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, errors.New("no sessions listed")
	}
	return market.ParseSessions(names)
}

// CheckBaseURL requires base_url to be an http(s) URL; adapters with a provider default fill it
// in first, the generic ones have none.
func CheckBaseURL(s Settings) error {
	u, err := url.Parse(s.BaseURL)
	if s.BaseURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("source %s: base_url %q must be an http(s) URL", s.Name, s.BaseURL)
	}
	return nil
}

// CheckWindow refuses what no provider can answer: an empty symbol, an inverted window, or one
// reaching further back than the source's lookback (asking would only spend the rate budget on
// an answer that is missing bars).
func CheckWindow(name, symbol string, from, to time.Time, lookback time.Duration, now time.Time) error {
	if strings.TrimSpace(symbol) == "" {
		return Errorf(name, ErrUnknownSymbol, "empty symbol")
	}
	if to.Before(from) {
		return Errorf(name, ErrUnsupportedWindow, "window ends (%s) before it starts (%s)", to.UTC().Format(time.RFC3339), from.UTC().Format(time.RFC3339))
	}
	if lookback > 0 && to.After(from) && from.Before(now.Add(-lookback)) {
		return Errorf(name, ErrUnsupportedWindow, "%s is older than the %s of 1-minute history the source keeps", from.UTC().Format(time.RFC3339), lookback)
	}
	return nil
}

// CheckOptions refuses options a factory does not declare (a typo in sources.yaml should not
// silently fall back to a default) and required ones that are missing. The error names the key.
func CheckOptions(s Settings, f Factory) error {
	if err := checkOptions(s, f); err != nil {
		return err
	}
	return nil
}

// OptionError is a source's option that is refused: unknown to its type, missing while required,
// or with a value the type cannot read. Key is the option's name, so a config loader can point
// at its line without reading the text.
type OptionError struct {
	Source, Key, Msg string
}

func (e *OptionError) Error() string {
	return "source " + e.Source + ": option " + e.Key + ": " + e.Msg
}

// OptionErrorf builds the *OptionError of a source's option.
func OptionErrorf(source, key, format string, args ...any) *OptionError {
	return &OptionError{Source: source, Key: key, Msg: fmt.Sprintf(format, args...)}
}

func checkOptions(s Settings, f Factory) *OptionError {
	keys := make([]string, 0, len(s.Options))
	for k := range s.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, ok := f.Options[k]; !ok {
			known := make([]string, 0, len(f.Options))
			for o := range f.Options {
				known = append(known, o)
			}
			slices.Sort(known)
			if len(known) == 0 {
				return OptionErrorf(s.Name, k, "unknown for type %s, which takes no options", s.Type)
			}
			return OptionErrorf(s.Name, k, "unknown for type %s (known: %s)", s.Type, strings.Join(known, ", "))
		}
	}
	for _, k := range f.Required {
		if strings.TrimSpace(s.Options[k]) == "" {
			return OptionErrorf(s.Name, k, "required")
		}
	}
	return nil
}

// messageKinds maps words providers use in error bodies to the kind of failure, checked in
// order: "API limit reached" is a rate limit although it says API, and "Premium … symbol … not
// available" is a plan limit although it says symbol.
var messageKinds = []struct {
	kind  error
	words []string
}{
	{ErrRateLimited, []string{"rate limit", "too many", "limit reach", "api limit", "request allocation", "quota", "exceeded", "throttl"}},
	{ErrUnauthorized, []string{"api key", "apikey", "api_key", "token", "unauthori", "entitle", "permission", "access", "subscription", "restricted", "premium", "forbidden", "upgrade"}},
	{ErrUnknownSymbol, []string{"unknown symbol", "symbol not found", "invalid symbol", "no such symbol", "unknown ticker", "invalid ticker"}},
}

// ClassifyMessage tells the kind of failure from a provider's own words, for errors that arrive
// in a 200 body or under a status that does not say (400, 404). ErrBadResponse when nothing
// matches.
func ClassifyMessage(msg string) error {
	m := strings.ToLower(msg)
	for _, mk := range messageKinds {
		for _, w := range mk.words {
			if strings.Contains(m, w) {
				return mk.kind
			}
		}
	}
	// "Error: Ticker 'XYZ' not found", but not a bare "Not Found" from a wrong path
	if strings.Contains(m, "not found") && (strings.Contains(m, "ticker") || strings.Contains(m, "symbol")) {
		return ErrUnknownSymbol
	}
	return ErrBadResponse
}

// messageKeys are where providers put the explanation of an error in a JSON body.
var messageKeys = []string{"errmsg", "error", "detail", "Error Message", "message", "Information", "Note", "msg"}

// ProviderMessage picks the provider's explanation out of an error body: the first of the usual
// message keys of a JSON object, a JSON string body, or else the first line of the text.
func ProviderMessage(body []byte) string {
	if gjson.ValidBytes(body) {
		root := gjson.ParseBytes(body)
		switch {
		case root.IsObject():
			for _, k := range messageKeys {
				v := root.Get(gjson.Escape(k))
				switch {
				case v.Type == gjson.String && v.Str != "":
					return clipText(v.Str)
				case v.IsObject() && v.Get("message").Type == gjson.String:
					return clipText(v.Get("message").Str)
				}
			}
		case root.Type == gjson.String:
			return clipText(root.Str)
		}
	}
	return FirstLine(body)
}

// ResponseError is the error of a response whose status is not a success: StatusError with the
// provider's explanation, in the kind the provider's own error shape says (ClientOptions.
// ReadError), else sharpened by its words when the status alone does not say (a 404 "Ticker not
// found" is an unknown symbol, a 400 "Invalid API key" is unauthorized).
func (c *Client) ResponseError(r *Response) *Error {
	var msg string
	var kind error
	if c.readErr != nil {
		msg, kind = c.readErr(r.Status, r.Body)
	}
	if msg == "" {
		msg = ProviderMessage(r.Body)
	}
	e := c.StatusError(r, msg)
	switch {
	case kind != nil:
		e.Kind = kind
	case e.Kind == ErrBadResponse && r.Status >= 400 && r.Status < 500:
		e.Kind = ClassifyMessage(msg)
	}
	if e.Kind == ErrRateLimited && e.RetryAfter == 0 {
		e.RetryAfter = RetryAfter(r.Header, c.deps.Now())
	}
	return e
}

// OK reports whether a response status is a success.
func (r *Response) OK() bool {
	return r.Status >= http.StatusOK && r.Status < http.StatusMultipleChoices
}

// Adopt gives an error a pure parser returned (an *Error without a source, see Errorf) this
// source's name and the response status, redacting its message; any other error becomes
// ErrBadResponse. nil stays nil.
func (c *Client) Adopt(status int, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Source != "" {
			return e
		}
		out := c.Fail(e.Kind, status, e.Msg)
		out.RetryAfter = e.RetryAfter
		if e.Err != nil {
			out.Err = errors.New(c.Redact(e.Err.Error()))
		}
		return out
	}
	return c.Fail(ErrBadResponse, status, err.Error())
}

// FirstLine is the first line of a body, trimmed: the provider's words for an error that has no
// message field. It is not cut to an error's length here: the client redacts the whole of it
// first (Fail, StatusError), and only bounds it at maxText so a huge line costs little.
func FirstLine(body []byte) string {
	if len(body) > 2*maxText {
		body = body[:2*maxText]
	}
	s := strings.TrimSpace(string(body))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clipText(s)
}

// BodyText is a whole body as the text of an error message, trimmed and bounded at maxText; the
// client redacts it before it cuts it to MaxMessage.
func BodyText(body []byte) string {
	if len(body) > 2*maxText {
		body = body[:2*maxText]
	}
	return clipText(string(body))
}

// maxText bounds text lifted from a body before it is redacted. The ellipsis of that cut tells the
// redactor to drop a secret's start standing before it; the error's own cut (MaxMessage) comes
// after redaction.
const maxText = 4096

func clipText(s string) string {
	return redact.Clip(strings.TrimSpace(s), maxText)
}

// Keyed is the prologue every adapter shares, run by its Factory's New (see Adapter) on the
// factory f the adapter registers: the name defaulted to f.Type, the options checked against f
// (an *OptionError naming the key), the key and secret required when f needs them (f.KeyHelp
// says what is missing), base_url defaulted to f.BaseURL and checked, and the rate defaulted to
// f.DefaultRate (the client paces at it, Coverage reports it), the quota to f.DefaultQuota (the
// client counts every request against it), and final_after defaulted to f.FinalAfter. It
// returns the settings to build the source with.
func Keyed(s Settings, f Factory) (Settings, error) {
	if s.Name == "" {
		s.Name = f.Type
	}
	if err := checkOptions(s, f); err != nil {
		return s, err
	}
	if (f.NeedsKey && s.Key == "") || (f.NeedsSecret && s.Secret == "") {
		help, what := f.KeyHelp, "the variable key_env names"
		if help == "" {
			help = f.Type + " needs an API key"
		}
		if f.NeedsSecret {
			if f.KeyHelp == "" {
				help += " and a secret"
			}
			what = "the variables key_env and secret_env name"
		}
		return s, Errorf(s.Name, ErrNoKey, "%s in %s", help, what)
	}
	if s.BaseURL == "" {
		s.BaseURL = f.BaseURL
	}
	if err := CheckBaseURL(s); err != nil {
		return s, err
	}
	s.Rate = s.Rate.Or(f.DefaultRate)
	s.Quota = s.Quota.Or(f.DefaultQuota)
	if s.FinalAfter == 0 {
		s.FinalAfter = f.FinalAfter
	}
	return s, nil
}

// Finish is the last step of Bars for a provider whose bar times the adapter cannot check as it
// parses: every bar on a whole minute (CheckAligned), then Tidy to [from, to).
func (c *Client) Finish(all []Bar, from, to time.Time) ([]Bar, error) {
	if err := CheckAligned(all); err != nil {
		return nil, c.Fail(ErrBadResponse, 0, err.Error())
	}
	return Tidy(all, from, to), nil
}

// DelayHelp is the help of the delay option (DelayOption) of a provider whose free plan serves
// its bars at the end of the day, and whose paid plans are delayed less or not at all.
const DelayHelp = "how long after a minute its bar is served on your plan: 24h (default, free plan), 15m, 0"

// DelayOption reads a source's delay option (how long after a minute its bar is served on the
// user's plan), def when it is not set.
func DelayOption(s Settings, def time.Duration) (time.Duration, error) {
	v, ok := s.Options["delay"]
	if !ok {
		return def, nil
	}
	d, err := time.ParseDuration(strings.ToLower(strings.TrimSpace(v)))
	if err != nil || d < 0 {
		return 0, OptionErrorf(s.Name, "delay", "%q is not a duration like 15m", v)
	}
	return d, nil
}

// ChoiceOption reads an option whose value is one of choices (in any case, spaces trimmed), the
// first of them when it is not set; another value is an *OptionError that lists them.
func ChoiceOption(s Settings, key string, choices ...string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(s.Options[key]))
	switch {
	case v == "":
		return choices[0], nil
	case slices.Contains(choices, v):
		return v, nil
	case len(choices) == 2:
		return "", OptionErrorf(s.Name, key, "%q is not %s or %s", v, choices[0], choices[1])
	}
	return "", OptionErrorf(s.Name, key, "%q is not one of %s", v, strings.Join(choices, ", "))
}

// ClosedBy is the end of a window [from, to) that has closed by now: to, or the start of now's
// minute when that is earlier (a provider's bar of the minute in progress is not a bar yet).
func ClosedBy(to, now time.Time) time.Time {
	if m := now.UTC().Truncate(time.Minute); m.Before(to) {
		return m
	}
	return to
}

// KeepRow adds bar i of a row-per-bar body, starting at start, to bars when it starts in keep
// (RowBar of its close and volume); a start off the minute is an error wherever it lies.
func KeepRow(bars *[]Bar, keep Window, i int, start time.Time, close, volume []byte) error {
	if err := Aligned(start); err != nil {
		return Errorf("", ErrBadResponse, "bar %d: %v", i, err)
	}
	if !keep.Has(start) {
		return nil
	}
	bar, ok, err := RowBar(i, start, close, volume)
	if ok {
		*bars = append(*bars, bar)
	}
	return err
}

// ParseBar builds the bar that starts at start from the raw JSON text of its close and volume. Its
// errors are bare (the caller names the bar in its own words: "value <datetime>: …"); a close's
// is "close: …", a volume's is ParseVolumeBytes'. Nothing is allocated unless it fails.
func ParseBar(start time.Time, close, volume []byte) (Bar, error) {
	price, err := numeric.ParsePriceBytes(close)
	if err != nil {
		return Bar{}, fmt.Errorf("close: %v", err)
	}
	vol, err := ParseVolumeBytes(volume)
	if err != nil {
		return Bar{}, err
	}
	return Bar{Start: start, Close: price, Volume: vol}, nil
}

// RowBar builds bar i of a row-per-bar JSON body from its start and the raw JSON text of its close
// and volume. A null close is a minute with no trade: ok is false and there is no error.
func RowBar(i int, start time.Time, close, volume []byte) (bar Bar, ok bool, err error) {
	if len(close) == 0 {
		return bar, false, Errorf("", ErrBadResponse, "bar %d has no close", i)
	}
	if string(close) == "null" {
		return bar, false, nil
	}
	price, err := numeric.ParsePriceBytes(close)
	if err != nil {
		return bar, false, Errorf("", ErrBadResponse, "bar %d close: %v", i, err)
	}
	vol, err := ParseVolumeBytes(volume)
	if err != nil {
		return bar, false, Errorf("", ErrBadResponse, "bar %d: %v", i, err)
	}
	return Bar{Start: start.UTC(), Close: price, Volume: vol}, true, nil
}
