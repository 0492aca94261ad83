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

// ErrNotEntitled is the cause of an *Error (kind ErrUnauthorized) when the provider knows the key
// but its plan does not include what was asked: a 402 Payment Required (FMP's free plan: "Restricted
// Endpoint"), a 403 Forbidden (RFC 9110 §15.5.4: the server understood the request and refuses it;
// Finnhub's free keys, Alpaca's "subscription does not permit"), Massive's NOT_AUTHORIZED, Alpha
// Vantage's premium endpoint. Another key does not help; another plan does. An adapter whose
// provider answers a wrong key with 403 says so (ClientOptions.ReadError).
var ErrNotEntitled = errors.New("the plan does not include it")

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
	callers atomic.Int64               // Get calls in the flight (sent or joined), so tests can tell when callers have queued
	date    atomic.Pointer[ServerDate] // the last response's Date header (date.go)
	secrets []string
	readErr func(status int, body []byte) (string, error)
	budget  Budget // counts the requests against quota, and keeps the breaker (quota.go)
	account string // what the budget counts by: name, origin, key fingerprint (AccountOf)
	quota   Quota
	// Sleep waits between retries; tests replace it to run without real waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Pacer waits until a source's next request may be sent (its rate's Pace). The client asks it
// before each request, retries included, and sends the request the moment it returns: the
// request's timeout starts when it is sent, never while it waits its turn.
type Pacer interface {
	Wait(ctx context.Context) error
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
	// The rate paces only as far as its Pace: a per-hour or per-day rate is an allowance, spent
	// as needed from the quota. A host's Pacer, when given, paces instead of the client.
	pace := s.Rate.Pace()
	if d.Pacer != nil {
		pace = Rate{}
	}
	// The timeout is http.Client's: it starts when the request is sent, after its pace's wait.
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
		limiter: pace.Limiter(),
		retries: retries,
		deps:    d,
		secrets: redact.Secrets(secrets...),
		readErr: o.ReadError,
		budget:  d.Budget,
		account: AccountOf(s.Name, s.BaseURL, s.Key, s.Secret),
		quota:   s.Quota.With(s.Rate.Allowance()), // an hourly or daily rate is a budget
		Sleep:   clock.Sleep,
	}
	if c.budget == nil {
		c.budget = NewMemoryBudget()
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
		if err := c.pace(ctx); err != nil {
			if errors.Is(err, ErrPaced) {
				return nil, err
			}
			return nil, c.transportError(err)
		}
		if err := c.spend(ctx); err != nil {
			return nil, err // not sent: over quota, or the source's breaker is open
		}
		start, sent := time.Now(), c.deps.Now()
		raw, err := c.rc.R().SetContext(ctx).SetDoNotParseResponse(true).Get(target)
		var resp *Response
		var val any
		if err == nil {
			c.noteDate(raw.Header(), sent, c.deps.Now())
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
			err := c.adoptStream(resp, ve.err)
			c.refusedAs(ctx, err)
			return nil, err
		}
		retryable := resp.Status == http.StatusTooManyRequests || resp.Status >= 500
		if !retryable {
			c.refused(ctx, resp, 0)
			return &result{resp: resp, val: val}, nil
		}
		wait := RetryAfter(resp.Header, c.deps.Now())
		// A provider that asks for a longer pause than we would ever back off is told so by
		// its caller, which can schedule around it, rather than asked again too early, and is
		// not asked again before then (its breaker opens).
		pause := c.backoff(attempt, wait)
		if attempt >= c.retries || wait > maxBackoff || !c.fits(ctx, pause) {
			c.refused(ctx, resp, wait)
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

// pace waits for the request's turn: the host's Pacer's, else the client's own rate limiter's.
func (c *Client) pace(ctx context.Context) error {
	if c.deps.Pacer != nil {
		return c.deps.Pacer.Wait(ctx)
	}
	return c.wait(ctx)
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
		return Paced(c.name, c.rateText(), d)
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
