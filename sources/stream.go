package sources

// Streaming decoding of response bodies. A body is read token by token as it arrives (jsontext,
// the tokenizer of encoding/json/v2), and an adapter keeps only the bars inside the window it
// asked for: a body of 1.5 million bars of which a few thousand are in the window costs the few
// thousand, not the body. Fetch is the one way adapters ask for bars; Stream is the walker their
// decoders use; Fields reads one row object without allocating; Column holds a column-array
// body's column (UDF's c, Yahoo's close) as compactly as its order allows.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Request is one GET an adapter makes for bars: the path (or a trusted absolute next-page URL)
// and query, the body cap (BodyCap of the span the request asks for), and Keep, the window whose
// bars the caller keeps. Keep is part of the coalescing key: two callers asking the same URL for
// different windows each get their own decode.
type Request struct {
	Path  string
	Query url.Values
	Limit int64
	Keep  Window
}

// Fetch sends r and decodes a 2xx body with decode as it arrives, never holding the body whole.
// A non-2xx answer is read (within the cap) and turned into ResponseError. decode's error is
// adopted (Adopt) as a bad response of this source; a body over the cap is ErrBodyTooLarge and
// a body whose reading failed mid-way is a transport error, retried like one. Identical requests
// in flight share one decode, so the value must not be modified by callers.
func Fetch[T any](ctx context.Context, c *Client, r Request, decode func(s *Stream) (T, error)) (T, error) {
	var zero T
	res, err := c.get(ctx, r.Path, r.Query, r.Limit, r.Keep.key(), func(s *Stream) (any, error) { return decode(s) })
	if err != nil {
		return zero, err
	}
	if !res.resp.OK() {
		e := c.ResponseError(res.resp)
		c.refusedAs(ctx, e)
		return zero, e
	}
	return res.val.(T), nil
}

// DecodeBytes runs a stream decoder over a body held in memory: for tests, fuzzing, and
// recorded bodies. Errors are those decode returns, or a bad response for trailing data.
func DecodeBytes[T any](body []byte, decode func(s *Stream) (T, error)) (T, error) {
	s := NewStream(bytes.NewReader(body))
	v, err := decode(s)
	if err == nil {
		err = s.End()
	}
	return v, err
}

// AllTime is the window that keeps every bar, for decoding a whole recorded body.
var AllTime = Window{From: time.Unix(0, 0).UTC(), To: time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)}

// Has reports whether t is in the window [From, To).
func (w Window) Has(t time.Time) bool { return !t.Before(w.From) && t.Before(w.To) }

// Widen is the window grown by d on both sides: for a decoder that can only place a bar
// roughly before it has read the whole body (a time zone or a label it learns later).
func (w Window) Widen(d time.Duration) Window { return Window{w.From.Add(-d), w.To.Add(d)} }

func (w Window) key() string {
	return strconv.FormatInt(w.From.UnixNano(), 10) + "-" + strconv.FormatInt(w.To.UnixNano(), 10)
}

// headSize is how much of a body's start a Stream keeps, to quote a provider that answered
// in plain text where JSON was due.
const headSize = 4 << 10

// Stream walks a JSON body as it is read. Its methods return *Error values of kind
// ErrBadResponse (without a source, see Adopt) for a body that is not the JSON expected,
// truncated included.
type Stream struct {
	what string // what the body should be, for messages ("a UDF history body")
	dec  *jsontext.Decoder
	head []byte
	name []byte // the unquoted name of an object member with escapes
}

// NewStream reads r. Duplicate member names are allowed (the later one wins, as with
// encoding/json) and so is invalid UTF-8 in strings: providers are not held to more than that,
// and checking duplicates would keep every name of a huge object.
func NewStream(r io.Reader) *Stream {
	s := &Stream{}
	s.dec = jsontext.NewDecoder(&headReader{r: r, s: s}, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return s
}

type headReader struct {
	r io.Reader
	s *Stream
}

func (h *headReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if room := headSize - len(h.s.head); room > 0 && n > 0 {
		h.s.head = append(h.s.head, p[:min(n, room)]...)
	}
	return n, err
}

// Head is the start of the body as read so far (at most 4 KiB): the provider's words when its
// body is not JSON.
func (s *Stream) Head() []byte { return s.head }

// Expect names what the body should be ("a UDF history body"): the Stream's own errors then
// read "not a UDF history body: …".
func (s *Stream) Expect(what string) { s.what = what }

func (s *Stream) fail(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return s.bad("%v", err)
}

func (s *Stream) bad(format string, args ...any) *Error {
	if s.what != "" {
		return Errorf("", ErrBadResponse, "not "+s.what+": "+format, args...)
	}
	return Errorf("", ErrBadResponse, "body: "+format, args...)
}

// Kind is the kind of the next value: '{', '[', '"', '0' (a number), 'n', 't', 'f', or 0 when
// the body ends or is broken there (the next read says how).
func (s *Stream) Kind() jsontext.Kind { return s.dec.PeekKind() }

// Object reads an object, calling each with every member's name (unquoted, valid only until the
// next read); each must read or skip the member's value.
func (s *Stream) Object(each func(name []byte) error) error {
	if err := s.open('{'); err != nil {
		return err
	}
	for {
		name, more, err := s.member()
		if err != nil {
			return err
		}
		if !more {
			return s.close()
		}
		if err := each(name); err != nil {
			return err
		}
	}
}

// member reads the next member's name inside an open object; more is false at its end (the
// closing brace is left for close). Object and Fields.Read share it: the hot row loop of
// Fields.Read walks members with no closure to allocate.
func (s *Stream) member() (name []byte, more bool, err error) {
	if s.dec.PeekKind() == '}' {
		return nil, false, nil
	}
	raw, err := s.dec.ReadValue()
	if err != nil {
		return nil, false, s.fail(err)
	}
	name = []byte(raw[1 : len(raw)-1])
	if bytes.IndexByte(name, '\\') >= 0 {
		text, err := unquote(raw)
		if err != nil {
			return nil, false, s.fail(err)
		}
		s.name = append(s.name[:0], text...)
		name = s.name
	}
	return name, true, nil
}

// Array reads an array, calling each with every element's index; each must read or skip it.
func (s *Stream) Array(each func(i int) error) error {
	if err := s.open('['); err != nil {
		return err
	}
	for i := 0; s.dec.PeekKind() != ']'; i++ {
		if err := each(i); err != nil {
			return err
		}
	}
	return s.close()
}

func (s *Stream) open(want jsontext.Kind) error {
	tok, err := s.dec.ReadToken()
	if err != nil {
		return s.fail(err)
	}
	if k := tok.Kind(); k != want {
		what := "an object"
		if want == '[' {
			what = "an array"
		}
		return s.bad("%s where %s was due at offset %d", kindName(k), what, s.dec.InputOffset())
	}
	return nil
}

func (s *Stream) close() error {
	if _, err := s.dec.ReadToken(); err != nil {
		return s.fail(err)
	}
	return nil
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "the end"
}

// Skip reads past the next value, however large, without keeping it.
func (s *Stream) Skip() error {
	if err := s.dec.SkipValue(); err != nil {
		return s.fail(err)
	}
	return nil
}

// Raw reads the next value and returns its JSON text, valid only until the next read. Use it
// for values known to be small (a number, a name, a message object); a large one costs its size.
func (s *Stream) Raw() ([]byte, error) {
	v, err := s.dec.ReadValue()
	if err != nil {
		return nil, s.fail(err)
	}
	return v, nil
}

// String reads the next value as a string: its unquoted text, "" for null, and an error for any
// other kind.
func (s *Stream) String() (string, error) {
	raw, err := s.Raw()
	if err != nil {
		return "", err
	}
	if len(raw) == 0 || (raw[0] != '"' && raw[0] != 'n') {
		return "", s.bad("%s where a string was due", clipText(string(raw)))
	}
	return StringText(raw)
}

// StringText is the text of a raw JSON string value ("" for null); any other value is an error.
func StringText(raw []byte) (string, error) {
	switch {
	case string(raw) == "null":
		return "", nil
	case len(raw) < 2 || raw[0] != '"':
		return "", Errorf("", ErrBadResponse, "%s where a string was due", clipText(string(raw)))
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	out, err := unquote(raw)
	if err != nil {
		return "", Errorf("", ErrBadResponse, "string %s: %v", clipText(string(raw)), err)
	}
	return out, nil
}

// PlainString is the text of a raw JSON string value without escapes, in place (ok false for
// any other value): a decoder's hot loop reads it with no copy, and StringText handles the rest.
func PlainString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return nil, false
	}
	return raw[1 : len(raw)-1], true
}

// TextBytes is StringText as bytes: in place for a plain string (PlainString), a copy only for one
// with escapes.
func TextBytes(raw []byte) ([]byte, error) {
	if text, ok := PlainString(raw); ok {
		return text, nil
	}
	text, err := StringText(raw)
	return []byte(text), err
}

// unquote reads a JSON string with escapes as encoding/json does, invalid UTF-8 becoming
// U+FFFD rather than an error (jsontext's own unquoting is strict about it).
func unquote(raw []byte) (string, error) {
	var out string
	err := json.Unmarshal(raw, &out)
	return out, err
}

// Member names a string member of an object and the string its text is read into (Strings,
// Members). A list of them, unlike a map, keeps those strings on the decoder's stack.
type Member struct {
	name string
	into *string
}

// Text is the Member name, read into into.
func Text(name string, into *string) Member { return Member{name, into} }

// Strings reads an object of which only string members matter (a body's meta): each member
// named in into is read into its string, the others skipped. It reports false for null, as if
// the object were absent.
func (s *Stream) Strings(into ...Member) (bool, error) {
	if s.Kind() == 'n' {
		return false, s.Skip()
	}
	err := s.Members(into, nil)
	return err == nil, err
}

// Members reads an object whose string members named in strs are read into their strings (a
// body's status and message words) and whose other members go to other, which must read or skip
// the value; nil other skips them all. It is the top-level loop every adapter's decoder had
// written out as a switch of string cases ending in a skip.
func (s *Stream) Members(strs []Member, other func(name []byte) error) error {
	return s.Object(func(name []byte) error {
		for _, m := range strs {
			if string(name) == m.name {
				var err error
				*m.into, err = s.String()
				return err
			}
		}
		if other == nil {
			return s.Skip()
		}
		return other(name)
	})
}

// End checks that nothing but white space follows the body's value.
func (s *Stream) End() error {
	if _, err := s.dec.ReadToken(); err != io.EOF {
		if err == nil {
			return s.bad("more after its value, at offset %d", s.dec.InputOffset())
		}
		return s.fail(err)
	}
	return nil
}

// capReader reads a body up to its cap: past it, over is set and reading fails with
// ErrBodyTooLarge. A failure of the body itself (a reset, a timeout) is kept in err, so the
// client can tell a transport failure, which it retries, from a body that is not what it should be.
type capReader struct {
	r    io.Reader
	left int64
	over bool
	err  error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// one byte more tells an exact fit from a body that goes on
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			c.over = true
			return 0, ErrBodyTooLarge
		}
		return 0, c.note(err)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, c.note(err)
}

func (c *capReader) note(err error) error {
	if err != nil && !errors.Is(err, io.EOF) && c.err == nil {
		c.err = err
	}
	return err
}

// streamMessage is the words of a Stream's error.
func streamMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}
