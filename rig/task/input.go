package task

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// A task's input, as the seed defines it: JSON in a data URI, data:application/json,{...}, and
// inputHash = keccak256 of the UTF-8 bytes of that whole string. For job 2 the JSON is
// {"symbol":"NVDA","minute":"2026-11-27T15:30:00Z"}; the minute may also be unix seconds.
//
// The rig never fetches anything: a URI that is not a data URI is an error, whatever it points at.

// DefaultSymbols are the symbols job 2 prices.
var DefaultSymbols = []string{"NVDA", "TSLA", "SPY"}

// MaxInputURI bounds the URI a rig will look at. A canonical job-2 input is about 70 bytes.
const MaxInputURI = 4096

// Errors of task inputs. Every error DecodeInput and ParseInput return wraps ErrInput and,
// where it applies, one of the more specific ones below.
var (
	ErrInput           = errors.New("bad task input")
	ErrInputHash       = errors.New("input hash does not match the input URI")
	ErrNotDataURI      = errors.New("not a data: URI")
	ErrMediaType       = errors.New("data URI media type is not application/json")
	ErrInputEncoding   = errors.New("data URI payload does not decode")
	ErrInputJSON       = errors.New("input is not the expected JSON object")
	ErrUnknownSymbol   = errors.New("unknown symbol")
	ErrBadMinute       = errors.New("bad minute")
	ErrUnalignedMinute = errors.New("minute is not aligned to 60 s")
	ErrBeforeCalendar  = errors.New("minute is before the spec's calendar")
	ErrAfterWindow     = errors.New("minute closes after the task's commit window ends")
)

// Input is a decoded job-2 task input.
type Input struct {
	Symbol string
	Minute time.Time // UTC, a whole minute
}

// InputRules says which inputs a rig accepts. The zero value accepts DefaultSymbols.
type InputRules struct {
	// Symbols accepted, matched exactly (case matters); nil or empty means DefaultSymbols.
	Symbols []string
	// NotBefore is the first minute the spec's calendar knows; an earlier minute is refused.
	// Zero accepts any minute from 1970 on.
	NotBefore time.Time
	// RefusalAnswer is the spec's refusal_answer, the answer committed for a refused task (see
	// Refusal); nil means the spec has no such rule and a refused task is skipped.
	RefusalAnswer *numeric.Scaled
}

// SpecInputRules are the input rules of a spec: its feeds' symbols, its calendar's first day
// (midnight New York time, 1 January of market.FirstTabulatedYear) and its refusal_answer.
func SpecInputRules(spec *feeds.Spec) InputRules {
	return InputRules{
		Symbols:       spec.Symbols(),
		NotBefore:     market.Day(market.FirstTabulatedYear, time.January, 1).Date.UTC(),
		RefusalAnswer: spec.RefusalAnswer,
	}
}

// Refusal says why the spec refuses a task, or nil when it does not: the input does not decode
// under the rules (ErrInput), or its minute closes after commitDeadline (ErrAfterWindow; a zero
// commitDeadline leaves that rule unchecked). Every reason depends only on the task and the
// chain, never on this rig's sources, so every rig that runs the spec reaches the same one and
// they can agree on RefusalAnswer.
func (r InputRules) Refusal(uri string, inputHash common.Hash, commitDeadline time.Time) (Input, error) {
	in, err := r.Decode(uri, inputHash)
	if err != nil {
		return Input{}, err
	}
	return in, r.CheckWindow(in, commitDeadline)
}

// CheckWindow refuses an input whose minute closes after the commit window ends: no rig can
// price a minute that has not closed before it must commit. A zero deadline checks nothing.
func (r InputRules) CheckWindow(in Input, commitDeadline time.Time) error {
	if commitDeadline.IsZero() {
		return nil
	}
	if closes := in.Minute.Add(time.Minute); closes.After(commitDeadline) {
		return inputErr(ErrAfterWindow, "%s closes at %s, the commit window ends at %s", in.Minute.UTC().Format(time.RFC3339),
			closes.UTC().Format(time.RFC3339), commitDeadline.UTC().Format(time.RFC3339))
	}
	return nil
}

// RefusalError is a task input the rules refuse. It is ErrInput (errors.Is) and the rule it broke.
type RefusalError struct {
	// Rule is the rule broken: one of the Err* of task inputs, ErrInput when none is more precise.
	Rule error
	// Reason is what a refusal says: the rule's words and what the input held, without the
	// "bad task input: " of Error.
	Reason string
}

func (e *RefusalError) Error() string { return ErrInput.Error() + ": " + e.Reason }

// Is makes every RefusalError an ErrInput; Unwrap gives the rule.
func (e *RefusalError) Is(target error) bool { return target == ErrInput }
func (e *RefusalError) Unwrap() error        { return e.Rule }

// RefusalText is the reason a refusal gives: a RefusalError's Reason; any other error's text.
func RefusalText(err error) string {
	if ie, ok := errors.AsType[*RefusalError](err); ok {
		return ie.Reason
	}
	return err.Error()
}

// RefusalKind names the rule an input error broke, for metric labels: hash, uri, json, symbol,
// minute, calendar, window; "input" for anything else.
func RefusalKind(err error) string {
	for _, k := range []struct {
		err  error
		kind string
	}{
		{ErrInputHash, "hash"}, {ErrNotDataURI, "uri"}, {ErrMediaType, "uri"}, {ErrInputEncoding, "uri"},
		{ErrInputJSON, "json"}, {ErrBadMinute, "json"}, {ErrUnknownSymbol, "symbol"},
		{ErrUnalignedMinute, "minute"}, {ErrBeforeCalendar, "calendar"}, {ErrAfterWindow, "window"},
	} {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return "input"
}

func (r InputRules) symbols() []string {
	if len(r.Symbols) == 0 {
		return DefaultSymbols
	}
	return r.Symbols
}

// InputHash is keccak256 of the URI's UTF-8 bytes, the inputHash an order carries.
func InputHash(uri string) common.Hash {
	return crypto.Keccak256Hash([]byte(uri))
}

// DecodeInput verifies the URI against the order's inputHash, then parses it with the default
// rules. See InputRules.Decode.
func DecodeInput(uri string, inputHash common.Hash) (Input, error) {
	return InputRules{}.Decode(uri, inputHash)
}

// ParseInput parses a URI with the default rules, without a hash to check it against.
func ParseInput(uri string) (Input, error) { return InputRules{}.Parse(uri) }

// EncodeInput builds the canonical URI and its hash with the default rules.
func EncodeInput(symbol string, minute time.Time) (string, common.Hash, error) {
	return InputRules{}.Encode(symbol, minute)
}

// Decode checks keccak256(uri) against inputHash before looking inside the URI, then parses it.
func (r InputRules) Decode(uri string, inputHash common.Hash) (Input, error) {
	if got := InputHash(uri); got != inputHash {
		return Input{}, inputErr(ErrInputHash, "keccak256 of the URI is %s, the order says %s", got.Hex(), inputHash.Hex())
	}
	return r.Parse(uri)
}

// Parse reads a data:application/json URI (plain, percent-encoded or ;base64) holding exactly
// {"symbol": S, "minute": M}: S one of the accepted symbols, M an RFC 3339 time or unix seconds
// (an integer), on a whole UTC minute. Anything else is an error wrapping ErrInput.
func (r InputRules) Parse(uri string) (Input, error) {
	payload, err := dataPayload(uri)
	if err != nil {
		return Input{}, err
	}
	symbol, minute, err := inputFields(payload)
	if err != nil {
		return Input{}, err
	}
	if !slices.Contains(r.symbols(), symbol) {
		return Input{}, inputErr(ErrUnknownSymbol, "%q (want one of %s)", clip(symbol), strings.Join(r.symbols(), ", "))
	}
	if minute.Before(r.NotBefore) {
		return Input{}, inputErr(ErrBeforeCalendar, "%s is before %s", minute.Format(time.RFC3339), r.NotBefore.UTC().Format(time.RFC3339))
	}
	return Input{Symbol: symbol, Minute: minute}, nil
}

// Encode builds the canonical input URI for a symbol and minute and its inputHash: the payload
// {"symbol":"NVDA","minute":"2026-11-27T15:30:00Z"} after "data:application/json,", unescaped.
func (r InputRules) Encode(symbol string, minute time.Time) (string, common.Hash, error) {
	if !slices.Contains(r.symbols(), symbol) {
		return "", common.Hash{}, inputErr(ErrUnknownSymbol, "%q (want one of %s)", clip(symbol), strings.Join(r.symbols(), ", "))
	}
	if err := checkMinute(minute); err != nil {
		return "", common.Hash{}, err
	}
	payload, err := json.Marshal(struct {
		Symbol string `json:"symbol"`
		Minute string `json:"minute"`
	}{symbol, minute.UTC().Format(time.RFC3339)})
	if err != nil {
		return "", common.Hash{}, err
	}
	uri := dataPrefix + "application/json," + string(payload)
	return uri, InputHash(uri), nil
}

const dataPrefix = "data:"

// dataPayload returns the bytes a data URI carries (RFC 2397), insisting on application/json.
func dataPayload(uri string) ([]byte, error) {
	if len(uri) > MaxInputURI {
		return nil, inputErr(ErrInput, "URI is %d bytes, more than %d", len(uri), MaxInputURI)
	}
	if len(uri) < len(dataPrefix) || !strings.EqualFold(uri[:len(dataPrefix)], dataPrefix) {
		return nil, inputErr(ErrNotDataURI, "%q (the rig only reads inputs carried in the URI and never fetches one)", clip(uri))
	}
	header, data, ok := strings.Cut(uri[len(dataPrefix):], ",")
	if !ok {
		return nil, inputErr(ErrNotDataURI, "%q has no comma before its data", clip(uri))
	}
	params := strings.Split(header, ";")
	mediaType := strings.TrimSpace(params[0])
	isBase64 := false
	if n := len(params); n > 1 && strings.EqualFold(strings.TrimSpace(params[n-1]), "base64") {
		isBase64 = true
		params = params[:n-1]
	}
	// An empty media type means text/plain by RFC 2397, which is not JSON.
	if !strings.EqualFold(mediaType, "application/json") {
		return nil, inputErr(ErrMediaType, "got %q", clip(mediaType))
	}
	for _, p := range params[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if !strings.EqualFold(k, "charset") || !strings.EqualFold(strings.Trim(v, `"`), "utf-8") {
			return nil, inputErr(ErrMediaType, "unsupported parameter %q (only charset=utf-8)", clip(p))
		}
	}
	// RFC 2397 data is URL-encoded octets in both forms; PathUnescape keeps '+' as '+', which
	// base64 needs and JSON text may contain.
	raw, err := url.PathUnescape(data)
	if err != nil {
		return nil, inputErr(ErrInputEncoding, "bad percent-encoding: %v", err)
	}
	if !isBase64 {
		return []byte(raw), nil
	}
	decoded, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, inputErr(ErrInputEncoding, "bad base64: %v", err)
	}
	return decoded, nil
}

// inputFields reads exactly {"symbol": string, "minute": string|integer} with no other, missing
// or repeated key. encoding/json alone would accept "Symbol", duplicates and unknown keys, so
// the object is walked token by token.
func inputFields(payload []byte) (string, time.Time, error) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return "", time.Time{}, inputErr(ErrInputJSON, "%v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return "", time.Time{}, inputErr(ErrInputJSON, "want an object, got %s", describeToken(tok))
	}
	var (
		symbol           string
		minute           time.Time
		haveSym, haveMin bool
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", time.Time{}, inputErr(ErrInputJSON, "%v", err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return "", time.Time{}, inputErr(ErrInputJSON, "value of %q: %v", clip(key), err)
		}
		switch key {
		case "symbol":
			if haveSym {
				return "", time.Time{}, inputErr(ErrInputJSON, `"symbol" appears twice`)
			}
			haveSym = true
			if err := json.Unmarshal(raw, &symbol); err != nil || raw[0] != '"' {
				return "", time.Time{}, inputErr(ErrInputJSON, `"symbol" must be a string, got %s`, clip(string(raw)))
			}
		case "minute":
			if haveMin {
				return "", time.Time{}, inputErr(ErrInputJSON, `"minute" appears twice`)
			}
			haveMin = true
			if minute, err = parseMinute(raw); err != nil {
				return "", time.Time{}, err
			}
		default:
			return "", time.Time{}, inputErr(ErrInputJSON, "unexpected field %q (only symbol and minute)", clip(key))
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return "", time.Time{}, inputErr(ErrInputJSON, "%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", time.Time{}, inputErr(ErrInputJSON, "data after the object")
	}
	switch {
	case !haveSym:
		return "", time.Time{}, inputErr(ErrInputJSON, `missing "symbol"`)
	case !haveMin:
		return "", time.Time{}, inputErr(ErrInputJSON, `missing "minute"`)
	}
	return symbol, minute, nil
}

// Bounds of a minute: the unix epoch up to the last minute RFC 3339 can write (year 9999).
var (
	minMinute = time.Unix(0, 0).UTC()
	maxMinute = time.Date(9999, 12, 31, 23, 59, 0, 0, time.UTC)
)

// parseMinute reads an RFC 3339 string (any offset, converted to UTC) or integer unix seconds.
func parseMinute(raw json.RawMessage) (time.Time, error) {
	var t time.Time
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return time.Time{}, inputErr(ErrBadMinute, "%v", err)
		}
		parsed, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Time{}, inputErr(ErrBadMinute, "%q is not an RFC 3339 time", clip(s))
		}
		t = parsed
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		secs, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return time.Time{}, inputErr(ErrBadMinute, "%s is not whole unix seconds", clip(string(raw)))
		}
		if secs < minMinute.Unix() || secs > maxMinute.Unix() {
			return time.Time{}, inputErr(ErrBadMinute, "%d is outside 1970..9999", secs)
		}
		t = time.Unix(secs, 0)
	default:
		return time.Time{}, inputErr(ErrBadMinute, "want an RFC 3339 string or unix seconds, got %s", clip(string(raw)))
	}
	t = t.UTC()
	if err := checkMinute(t); err != nil {
		return time.Time{}, err
	}
	return t, nil
}

func checkMinute(t time.Time) error {
	t = t.UTC()
	if t.Before(minMinute) || t.After(maxMinute) {
		return inputErr(ErrBadMinute, "%s is outside 1970..9999", t.Format(time.RFC3339Nano))
	}
	if t.Nanosecond() != 0 || t.Unix()%60 != 0 {
		return inputErr(ErrUnalignedMinute, "%s", t.Format(time.RFC3339Nano))
	}
	return nil
}

// inputErr is a RefusalError of rule kind whose reason starts with kind's own words.
func inputErr(kind error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if kind != ErrInput {
		msg = kind.Error() + ": " + msg
	}
	return &RefusalError{Rule: kind, Reason: msg}
}

func describeToken(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return string(v)
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// clip keeps error messages short when the input is long; outside bytes can be anything.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
