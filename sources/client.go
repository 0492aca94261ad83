package sources

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-resty/resty/v2"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/pricerig/pricerig/internal/clock"
	"github.com/pricerig/pricerig/redact"
)

// BrowserUserAgent is sent to providers that turn away non-browser clients (Yahoo answers
// curl's agent with 429).
const BrowserUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"

// Defaults of the shared HTTP plumbing.
const (
	DefaultTimeout = 10 * time.Second
	DefaultRetries = 2
	// NoRetries in Settings.Retries turns retries off (sources.yaml's retries: 0); the zero
	// value means DefaultRetries.
	NoRetries  = -1
	maxBackoff = 30 * time.Second
	// MaxBody is the most any response body may be: what Get reads at most. GetCapped reads
	// less, what the asked window can hold (BodyCap).
	MaxBody = 64 << 20
	// MaxRedirects is how many same-origin redirects one request follows.
	MaxRedirects = 3
)

// ErrRedirect is the cause of an *Error (kind ErrBadResponse) when a provider redirected a
// request where the client does not follow: to another origin (scheme, host or port) than the
// source's own, or more than MaxRedirects times. Following would hand the source's key headers,
// its key query parameter and a Referer quoting them to whoever the Location names.
var ErrRedirect = errors.New("redirect not followed")

// ErrBodyTooLarge is the cause of an *Error (kind ErrBadResponse) when a response body was
// larger than its cap: the provider's fault (an endless or padded body), so it is not asked
// again, and reading stops at the cap.
var ErrBodyTooLarge = errors.New("response body larger than its cap")

// Body caps: a bar costs at most BarBytes of body in any provider's format (the widest, Alpha
// Vantage's pretty-printed object per minute, is under 250), plus bodyOverhead of envelope.
const (
	BarBytes     = 512
	bodyOverhead = 64 << 10
)

// BodyCap is the most a body answering for series symbols' minutes in [from, to) can need: every
// minute a bar, each BarBytes, plus the envelope, and never more than MaxBody. Adapters pass it
// to GetCapped with the span the request really asks for (whole dates or a calendar month
// where the provider takes those).
func BodyCap(from, to time.Time, series int) int64 {
	minutes := int64(to.Sub(from)/time.Minute) + 1
	if minutes < 1 {
		minutes = 1
	}
	if series < 1 {
		series = 1
	}
	if minutes > MaxBody/BarBytes/int64(series) {
		return MaxBody
	}
	return min(MaxBody, bodyOverhead+minutes*int64(series)*BarBytes)
}

// ClientOptions are an adapter's needs of the shared client.
type ClientOptions struct {
	BrowserUA bool              // send BrowserUserAgent instead of pricerig's own
	Header    map[string]string // headers on every request (auth headers go here; they are redacted)
	// Origins are origins besides base_url's own ("https://api.polygon.io") that the provider
	// is documented to answer on: a redirect or a next-page link there is followed with the
	// key, as to the base. Any other origin is refused (see Trusted).
	Origins []string
	// ReadError is how the provider writes an error body, for ResponseError: its message ("":
	// ProviderMessage finds it) and the kind its words or codes say (nil: the status, then the
	// words, decide). Nil for a provider whose errors ProviderMessage reads.
	ReadError func(status int, body []byte) (msg string, kind error)
}

// Client is the HTTP plumbing every adapter shares: one resty client per source with a timeout,
// a rate limiter from the source's rate, retries with backoff and jitter on timeouts, 5xx and 429
// (honouring Retry-After and X-RateLimit-Reset), coalescing of identical in-flight requests, and
// redaction of every secret from errors and logs.
type Client struct {
	name    string
	base    string
	origins []string // scheme://host:port the key may go to, base_url's first
	rc      *resty.Client
	limiter *rate.Limiter
	retries int
	deps    Deps
	flight  singleflight.Group
	callers atomic.Int64 // Get calls in the flight (sent or joined), so tests can tell when callers have queued
	secrets []string
	readErr func(status int, body []byte) (string, error)
	// Sleep waits between retries; tests replace it to run without real waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Response is what a request came back with. Adapters read the body even on errors: providers
// hide errors in 200 bodies and explain 4xx in theirs.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	URL    string // redacted
}

// NewClient builds the client of one source.
func NewClient(s Settings, d Deps, o ClientOptions) *Client {
	d = d.WithDefaults()
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// Zero retries means the default, as a zero timeout does; a negative count turns retries off.
	retries := s.Retries
	switch {
	case retries == 0:
		retries = DefaultRetries
	case retries < 0:
		retries = 0
	}
	rc := resty.New().SetTimeout(timeout).SetRetryCount(0)
	if d.Transport != nil {
		rc.SetTransport(d.Transport)
	}
	ua := "pricerig/1 (+https://github.com/pricerig/pricerig)"
	if o.BrowserUA {
		ua = BrowserUserAgent
	}
	rc.SetHeader("User-Agent", ua)
	rc.SetHeader("Accept", "application/json, text/plain, */*")
	var secrets []string
	for _, v := range []string{s.Key, s.Secret} {
		if v != "" {
			secrets = append(secrets, v)
		}
	}
	for k, v := range o.Header {
		rc.SetHeader(k, v)
		if isSecretHeader(k) && v != "" {
			secrets = append(secrets, v)
			if _, tail, ok := strings.Cut(v, " "); ok && tail != "" {
				secrets = append(secrets, tail)
			}
		}
	}
	// every output of the process (logs, --json, stored rows) redacts them too, not only this
	// client's errors
	redact.Register(secrets...)
	c := &Client{
		name:    s.Name,
		base:    strings.TrimRight(s.BaseURL, "/"),
		rc:      rc,
		limiter: s.Rate.Limiter(),
		retries: retries,
		deps:    d,
		secrets: redact.Secrets(secrets...),
		readErr: o.ReadError,
		Sleep:   clock.Sleep,
	}
	for _, o := range append([]string{s.BaseURL}, o.Origins...) {
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			c.origins = append(c.origins, Origin(u))
		}
	}
	rc.SetRedirectPolicy(resty.RedirectPolicyFunc(c.checkRedirect))
	return c
}

// Origin is a URL's scheme://host:port, lower case, with the scheme's default port written out,
// so https://Api.Example.com and https://api.example.com:443 are one origin.
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Trusted reports whether the source's key may be sent to u: u is http(s) and its origin is
// base_url's or one the adapter declared (ClientOptions.Origins). It is the one rule for both a
// redirect the client is asked to follow and a next-page URL a body names.
func (c *Client) Trusted(u *url.URL) bool {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	o := Origin(u)
	for _, have := range c.origins {
		if o == have {
			return true
		}
	}
	return false
}

// redirectError is why a redirect was not followed; it unwraps to ErrRedirect.
type redirectError struct{ why string }

func (e *redirectError) Error() string { return e.why }
func (e *redirectError) Unwrap() error { return ErrRedirect }

// checkRedirect is the client's redirect policy: a redirect is followed only to a trusted
// origin, at most MaxRedirects times. A refused one ends the request with ErrRedirect; the key
// never leaves for another origin, not in a header, not in the query, not in a Referer.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return &redirectError{fmt.Sprintf("more than %d redirects", MaxRedirects)}
	}
	if !c.Trusted(req.URL) {
		return &redirectError{fmt.Sprintf("redirected to another origin (%s): not followed, the key is not sent there", Origin(req.URL))}
	}
	return nil
}

// Name is the source's name.
func (c *Client) Name() string { return c.name }

// Get fetches path (relative to the source's base URL, or an absolute URL such as a provider's
// next-page link) with the query. It waits for the rate limiter and retries timeouts, connection
// errors, 5xx and 429 with exponential backoff and jitter, waiting at least what Retry-After or
// X-RateLimit-Reset asks. It returns the Response of the status it stopped at, 2xx or not, so the
// adapter can read the provider's own words; it returns an *Error only when no response came, or
// when retries ran out on 429 (ErrRateLimited) or 5xx (ErrUnavailable). Identical requests in
// flight at the same time are sent once, and share one Response: callers must not modify it.
func (c *Client) Get(ctx context.Context, path string, query url.Values) (*Response, error) {
	return c.GetCapped(ctx, path, query, MaxBody)
}

// GetCapped is Get reading at most limit bytes of body (BodyCap of the window asked). A body
// over it ends the request with ErrBodyTooLarge, without a retry.
func (c *Client) GetCapped(ctx context.Context, path string, query url.Values, limit int64) (*Response, error) {
	res, err := c.get(ctx, path, query, limit, "", nil)
	if err != nil {
		return nil, err
	}
	return res.resp, nil
}

// result is what one request came back with: the response, and the value decode made of a 2xx
// body (whose Body is then nil: it was read as a stream).
type result struct {
	resp *Response
	val  any
}

// get is GetCapped with an optional stream decoder for a 2xx body (see Fetch); keep tells
// decodes of one URL for different windows apart.
func (c *Client) get(ctx context.Context, path string, query url.Values, limit int64, keep string, decode func(*Stream) (any, error)) (*result, error) {
	if limit <= 0 || limit > MaxBody {
		limit = MaxBody
	}
	target := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		target = c.base + "/" + strings.TrimLeft(path, "/")
	} else if u, err := url.Parse(path); err != nil || !c.Trusted(u) {
		return nil, &Error{Source: c.name, Kind: ErrBadResponse, Msg: c.message("asked to fetch " + path + " on another origin: not sent, the key is not sent there"), Err: ErrRedirect}
	}
	if len(query) > 0 {
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		target += sep + query.Encode()
	}
	key := strconv.FormatInt(limit, 10) + " " + target
	if decode != nil {
		key = "stream " + keep + " " + key
	}
	// DoChan rather than Do: a caller is counted only once the flight knows it (as the sender or
	// a joiner), so a test that waits for n callers knows they share one request; counted before
	// Do, a caller could still be on its way in when the request ended, and send its own.
	ch := c.flight.DoChan(key, func() (any, error) { return c.fetch(ctx, target, limit, decode) })
	c.callers.Add(1)
	defer c.callers.Add(-1)
	r := <-ch
	v, err, shared := r.Val, r.Err, r.Shared
	if err != nil && shared && ctx.Err() == nil && cancelled(err) {
		// The request we joined was cancelled by the caller that sent it (a reconciler that
		// stopped on an early quorum), not by us: send our own.
		v, err = c.fetch(ctx, target, limit, decode)
	}
	if err != nil {
		return nil, err
	}
	return v.(*result), nil
}

// cancelled reports whether err is transportError's word for a cancelled context.
func cancelled(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == ErrUnavailable && e.Status == 0 && e.Msg == cancelledMsg
}

func (c *Client) fetch(ctx context.Context, target string, limit int64, decode func(*Stream) (any, error)) (*result, error) {
	for attempt := 0; ; attempt++ {
		if err := c.wait(ctx); err != nil {
			return nil, c.transportError(err)
		}
		start := time.Now()
		raw, err := c.rc.R().SetContext(ctx).SetDoNotParseResponse(true).Get(target)
		var resp *Response
		var val any
		if err == nil {
			if decode != nil && raw.IsSuccess() {
				resp, val, err = c.stream(raw, target, limit, decode)
			} else {
				resp, err = c.read(raw, target, limit)
			}
		}
		if err != nil {
			if errors.Is(err, ErrBodyTooLarge) {
				// the provider's fault, not a transient one: another try would read as much again
				msg := fmt.Sprintf("more than %d bytes, all the window asked can hold: not read further", limit)
				return nil, &Error{Source: c.name, Kind: ErrBadResponse, Status: raw.StatusCode(), Msg: msg, Err: ErrBodyTooLarge}
			}
			if errors.Is(err, ErrRedirect) {
				// the provider's answer, not a transient failure: asking again gets it again
				var re *redirectError
				errors.As(err, &re)
				return nil, &Error{Source: c.name, Kind: ErrBadResponse, Msg: c.message(re.why), Err: ErrRedirect}
			}
			pause := c.backoff(attempt, 0)
			if ctx.Err() != nil || attempt >= c.retries || !c.fits(ctx, pause) {
				return nil, c.transportError(err)
			}
			c.log("retrying after transport error", attempt, 0, err)
			if err := c.Sleep(ctx, pause); err != nil {
				return nil, c.transportError(err)
			}
			continue
		}
		c.deps.Logger.Debug("source request", "source", c.name, "url", resp.URL, "status", resp.Status, "took", time.Since(start).Round(time.Millisecond))
		if ve, ok := val.(decodeError); ok {
			// the body is not what the provider should send: asking again gets it again
			return nil, c.adoptStream(resp, ve.err)
		}
		retryable := resp.Status == http.StatusTooManyRequests || resp.Status >= 500
		if !retryable {
			return &result{resp: resp, val: val}, nil
		}
		wait := RetryAfter(resp.Header, c.deps.Now())
		// A provider that asks for a longer pause than we would ever back off is told so by
		// its caller, which can schedule around it, rather than asked again too early.
		pause := c.backoff(attempt, wait)
		if attempt >= c.retries || wait > maxBackoff || !c.fits(ctx, pause) {
			e := c.StatusError(resp, FirstLine(resp.Body))
			e.RetryAfter = wait
			return nil, e
		}
		c.log("retrying after HTTP status", attempt, resp.Status, nil)
		if err := c.Sleep(ctx, pause); err != nil {
			return nil, c.transportError(err)
		}
	}
}

func (c *Client) rateText() string {
	if lim := c.limiter.Limit(); lim != rate.Inf && lim > 0 {
		return fmt.Sprintf("one request every %s", time.Duration(float64(time.Second)/float64(lim)).Round(time.Millisecond))
	}
	return "unlimited"
}

// fits reports whether a pause of d, and then the rate limiter's next free request, end before
// ctx's deadline: a retry that could only be sent after the command gave up is not made (a
// source paced at 250/day would otherwise hold a failed request for minutes).
func (c *Client) fits(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	if !ok {
		return true
	}
	at := time.Now().Add(d)
	if lim := c.limiter.Limit(); lim != rate.Inf && lim > 0 {
		if tokens := c.limiter.TokensAt(at); tokens < 1 {
			at = at.Add(time.Duration((1 - tokens) / float64(lim) * float64(time.Second)))
		}
	}
	return at.Before(dl)
}

// wait takes a token from the rate limiter, waiting through Sleep so that tests see the pause
// instead of living it.
func (c *Client) wait(ctx context.Context) error {
	r := c.limiter.Reserve()
	if !r.OK() {
		return errors.New("rate limiter refused the request")
	}
	d := r.Delay()
	if d <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Now().Add(d).After(dl) {
		// the request could only be sent after the caller gave up: give the slot back now
		// rather than hold it until the deadline
		r.Cancel()
		return fmt.Errorf("the rate (%s) has no request free before the deadline: %w", c.rateText(), context.DeadlineExceeded)
	}
	if err := c.Sleep(ctx, d); err != nil {
		r.Cancel()
		return err
	}
	return nil
}

// decodeError is a 2xx body its decoder refused.
type decodeError struct{ err error }

// stream decodes a 2xx body of at most limit bytes as it arrives. A body over the cap is
// ErrBodyTooLarge and a failure of the body's reading is returned as such (the caller retries
// it as a transport error), whatever the decoder made of them; the decoder's own refusal comes
// back as a decodeError value.
func (c *Client) stream(raw *resty.Response, target string, limit int64, decode func(*Stream) (any, error)) (*Response, any, error) {
	body := raw.RawBody()
	defer body.Close()
	if n := raw.RawResponse.ContentLength; n > limit {
		return nil, nil, ErrBodyTooLarge
	}
	cr := &capReader{r: body, left: limit}
	s := NewStream(cr)
	val, err := decode(s)
	if err == nil {
		err = s.End()
	}
	readErr := cr.err
	if err != nil && !cr.over && readErr == nil {
		// a body over its cap is that, whatever else is wrong with it: read on (keeping
		// nothing) to tell an endless body from a short bad one
		_, _ = io.Copy(io.Discard, cr)
	}
	switch {
	case cr.over:
		return nil, nil, ErrBodyTooLarge
	case readErr != nil:
		return nil, nil, readErr
	}
	resp := &Response{Status: raw.StatusCode(), Header: raw.Header(), URL: c.Redact(target)}
	if err != nil {
		return resp, decodeError{err}, nil
	}
	return resp, val, nil
}

// adoptStream is Adopt of a decoder's error, with the Retry-After of a rate limit a provider
// reported in a 2xx body.
func (c *Client) adoptStream(resp *Response, err error) error {
	out := c.Adopt(resp.Status, err)
	if e, ok := out.(*Error); ok && e.Kind == ErrRateLimited && e.RetryAfter == 0 {
		e.RetryAfter = RetryAfter(resp.Header, c.deps.Now())
	}
	return out
}

// read reads a body of at most limit bytes. A larger one (by Content-Length, or read past the
// limit) is refused without reading further; the connection is closed, not drained.
func (c *Client) read(raw *resty.Response, target string, limit int64) (*Response, error) {
	body := raw.RawBody()
	defer body.Close()
	tooLarge := ErrBodyTooLarge
	if n := raw.RawResponse.ContentLength; n > limit {
		return nil, tooLarge
	}
	var buf bytes.Buffer
	if n := raw.RawResponse.ContentLength; n > 0 {
		buf.Grow(int(n))
	}
	if _, err := buf.ReadFrom(io.LimitReader(body, limit+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, tooLarge
	}
	return &Response{Status: raw.StatusCode(), Header: raw.Header(), Body: buf.Bytes(), URL: c.Redact(target)}, nil
}

func (c *Client) log(msg string, attempt, status int, err error) {
	args := []any{"source", c.name, "attempt", attempt + 1}
	if status != 0 {
		args = append(args, "status", status)
	}
	if err != nil {
		args = append(args, "error", c.Redact(err.Error()))
	}
	c.deps.Logger.Warn(msg, args...)
}

// backoff is exponential with full jitter on top, never shorter than what the provider asked.
func (c *Client) backoff(attempt int, atLeast time.Duration) time.Duration {
	d := 250 * time.Millisecond << min(attempt, 7)
	d += time.Duration(rand.Int64N(int64(d)))
	if d < atLeast {
		d = atLeast
	}
	return min(d, maxBackoff)
}

const cancelledMsg = "cancelled"

func (c *Client) transportError(err error) *Error {
	kind := ErrUnavailable
	msg := "request failed"
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		msg = "timed out"
	case errors.Is(err, context.Canceled):
		msg = cancelledMsg
	}
	return &Error{Source: c.name, Kind: kind, Msg: msg, Err: errors.New(c.Redact(err.Error()))}
}

// StatusError classifies a response that is not a success into an *Error: 401, 402 and 403 are
// ErrUnauthorized, 429 ErrRateLimited (with its Retry-After), 5xx ErrUnavailable, anything else
// ErrBadResponse. msg is the provider's explanation, which is redacted too.
func (c *Client) StatusError(r *Response, msg string) *Error {
	kind := ErrBadResponse
	switch {
	case r.Status == http.StatusUnauthorized || r.Status == http.StatusPaymentRequired || r.Status == http.StatusForbidden:
		kind = ErrUnauthorized
	case r.Status == http.StatusTooManyRequests:
		kind = ErrRateLimited
	case r.Status >= 500:
		kind = ErrUnavailable
	}
	e := &Error{Source: c.name, Kind: kind, Status: r.Status, Msg: c.message(msg)}
	if kind == ErrRateLimited {
		e.RetryAfter = RetryAfter(r.Header, c.deps.Now())
	}
	return e
}

// Fail builds an *Error of a kind for this source, with the message redacted and then clipped.
func (c *Client) Fail(kind error, status int, msg string) *Error {
	return &Error{Source: c.name, Kind: kind, Status: status, Msg: c.message(msg)}
}

// MaxMessage is how long an error's message may be: the provider's words, redacted, then cut.
const MaxMessage = 200

// message is the one place the sources layer cuts a message for an error: after redacting the
// whole of it, so a secret that straddles the cut is gone, not halved.
func (c *Client) message(msg string) string {
	return redact.Clip(c.Redact(msg), MaxMessage)
}

// RetryAfter reads how long a provider asked us to wait: Retry-After in seconds or as an HTTP
// date, else X-RateLimit-Reset as unix seconds (or seconds from now when small). Zero when the
// headers say nothing usable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
			return time.Duration(secs) * time.Second
		}
		if t, err := http.ParseTime(v); err == nil && t.After(now) {
			return t.Sub(now)
		}
	}
	if v := strings.TrimSpace(h.Get("X-RateLimit-Reset")); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			if n > 1_000_000_000 { // an instant, not a count of seconds
				t := time.Unix(n, 0)
				if t.After(now) {
					return t.Sub(now)
				}
				return 0
			}
			return time.Duration(n) * time.Second
		}
	}
	return 0
}

var secretHeaderWords = []string{"authorization", "key", "secret", "token"}

func isSecretHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretHeaderWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Redact removes the source's secrets from a string: every literal key or secret value (as is
// and query-escaped), every secret the process registered, the value of any apiKey=, apikey=,
// token=, key=, secret= query parameter, and the start of a secret a clip cut through (see
// package redact).
func (c *Client) Redact(s string) string {
	return redact.With(s, c.secrets)
}

// Redact removes every registered secret and the values of secret-looking query parameters from
// a string.
func Redact(s string) string {
	return redact.String(s)
}

// Window is a half-open span of time [From, To).
type Window struct{ From, To time.Time }

// Room is the most bars a page of at most page bars can hold of one series in w (the minutes
// of w, up to page): what a decoder sizes its slice for, so that a page's bars are not copied
// again each time the slice grows.
func (w Window) Room(page int) int {
	minutes := w.To.Sub(w.From) / time.Minute
	if minutes <= 0 || page <= 0 {
		return 0
	}
	return int(min(int64(page), int64(minutes)))
}

// Windows splits [from, to) into consecutive windows no wider than max, for adapters whose
// provider caps the span of one request. An empty or inverted span gives no windows; a max of
// zero or less gives the span whole.
func Windows(from, to time.Time, max time.Duration) []Window {
	if !from.Before(to) {
		return nil
	}
	if max <= 0 {
		return []Window{{from, to}}
	}
	var out []Window
	for start := from; start.Before(to); start = start.Add(max) {
		end := start.Add(max)
		if end.After(to) {
			end = to
		}
		out = append(out, Window{start, end})
	}
	return out
}

// Tidy finishes the bars an adapter collected for [from, to): it keeps those that start in the
// window, sorts them by start and drops repeats of a start (the later one wins: a later page or
// window saw the minute last). The result is never nil, so "no trades" is an empty slice.
//
// Bars that are already tidy (the usual page: ascending, in the window) are returned as they
// are, clipped to their length so an append by the caller copies: the sort and the copy were a
// tenth of a backfill's decode CPU. Tidy never writes to bars.
func Tidy(bars []Bar, from, to time.Time) []Bar {
	if bars != nil && tidy(bars, from, to) {
		return bars[:len(bars):len(bars)]
	}
	out := make([]Bar, 0, len(bars))
	for _, b := range bars {
		if !b.Start.Before(from) && b.Start.Before(to) {
			out = append(out, b)
		}
	}
	switch {
	case ascending(out):
	case descending(out):
		slices.Reverse(out) // newest first (Alpha Vantage's order): no repeats, so no sort
	default:
		slices.SortStableFunc(out, func(a, b Bar) int { return a.Start.Compare(b.Start) })
	}
	kept := out[:0]
	for _, b := range out {
		if n := len(kept); n > 0 && kept[n-1].Start.Equal(b.Start) {
			kept[n-1] = b
			continue
		}
		kept = append(kept, b)
	}
	return kept
}

// Join appends the bars of one more request to those of the ones before. The first request's
// bars are taken as they are, not copied (a backfill asks one request a call), clipped so the
// next Join copies rather than writing into the decoder's slice.
func Join(all, more []Bar) []Bar {
	if all == nil {
		return more[:len(more):len(more)]
	}
	return append(all, more...)
}

// ascending reports whether every bar starts after the one before; descending, before.
func ascending(bars []Bar) bool {
	for i := 1; i < len(bars); i++ {
		if !bars[i-1].Start.Before(bars[i].Start) {
			return false
		}
	}
	return true
}

func descending(bars []Bar) bool {
	for i := 1; i < len(bars); i++ {
		if !bars[i].Start.Before(bars[i-1].Start) {
			return false
		}
	}
	return true
}

// tidy reports whether bars start in [from, to), each after the one before.
func tidy(bars []Bar, from, to time.Time) bool {
	for i := range bars {
		s := bars[i].Start
		if s.Before(from) || !s.Before(to) || (i > 0 && !bars[i-1].Start.Before(s)) {
			return false
		}
	}
	return true
}
