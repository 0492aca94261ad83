package sources

import "errors"

// ErrorKind names what kind of failure an error is, for what outlives the error: a quote, a
// report, --json. It is the snake_case name of the error's Err* kind, or of its cause where the
// cause says more than the kind (a body over its cap and a refused redirect are bad responses
// the provider is to blame for in a particular way). Compare kinds, never error text.
type ErrorKind string

// The kinds of failure by name. KindOther is an error that carries no kind of this package (a
// split adjustment that failed, a cancelled context); "" is no error.
const (
	KindNoData            ErrorKind = "no_data"
	KindRateLimited       ErrorKind = "rate_limited"
	KindUnauthorized      ErrorKind = "unauthorized"
	KindBadResponse       ErrorKind = "bad_response"
	KindBodyTooLarge      ErrorKind = "body_too_large"
	KindRedirect          ErrorKind = "redirect"
	KindUnsupportedWindow ErrorKind = "unsupported_window"
	KindUnavailable       ErrorKind = "unavailable"
	KindUnknownSymbol     ErrorKind = "unknown_symbol"
	KindNoKey             ErrorKind = "no_key"
	KindOther             ErrorKind = "other"
	// KindNotFinal is no failure of a request: the source answered, but not finally yet (a
	// provisional bar, or none yet at a minute it may still publish; see Coverage.Final). The
	// reconciler names it so a not_final quote is told from a failed one by its kind as well.
	KindNotFinal ErrorKind = "not_final"
	// KindOverQuota is a request not sent: it would have passed the source's quota (quota.go).
	KindOverQuota ErrorKind = "over_quota"
	// KindPaced is a request not sent: the source's rate had no request free before the
	// caller's deadline (ErrPaced).
	KindPaced ErrorKind = "paced"
)

type namedKind struct {
	err  error
	kind ErrorKind
}

// causes say more than the kind they come under (ErrBadResponse), so they are named first.
var causes = []namedKind{{ErrBodyTooLarge, KindBodyTooLarge}, {ErrRedirect, KindRedirect}, {ErrPaced, KindPaced}}

var kinds = []namedKind{
	{ErrNoData, KindNoData},
	{ErrRateLimited, KindRateLimited},
	{ErrUnauthorized, KindUnauthorized},
	{ErrBadResponse, KindBadResponse},
	{ErrUnsupportedWindow, KindUnsupportedWindow},
	{ErrUnavailable, KindUnavailable},
	{ErrUnknownSymbol, KindUnknownSymbol},
	{ErrNoKey, KindNoKey},
	{ErrOverQuota, KindOverQuota},
}

// KindOf returns the kind of an error by errors.Is and errors.As: "" for nil, KindOther for an
// error that carries none. The outermost *Error's Kind wins over any kind its cause wraps (an
// adapter may wrap another request's error); only the causes above come before it.
func KindOf(err error) ErrorKind {
	if err == nil {
		return ""
	}
	for _, c := range causes {
		if errors.Is(err, c.err) {
			return c.kind
		}
	}
	var e *Error
	if errors.As(err, &e) && e.Kind != nil {
		err = e.Kind
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return KindOther
}
