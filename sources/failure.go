package sources

// How a failed request becomes an *Error the callers can classify: a transport error, a status
// that is not a success, a provider's Retry-After; and the redaction every message goes through.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/redact"
)

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
