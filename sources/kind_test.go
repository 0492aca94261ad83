package sources

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"testing"
)

func TestKindOf(t *testing.T) {
	wrapped := fmt.Errorf("window 3: %w", Errorf("alpaca", ErrRateLimited, "429"))
	for _, tc := range []struct {
		name string
		err  error
		want ErrorKind
	}{
		{"nil", nil, ""},
		{"rate limited", Errorf("a", ErrRateLimited, "slow down"), KindRateLimited},
		{"wrapped", wrapped, KindRateLimited},
		{"bare kind", ErrUnauthorized, KindUnauthorized},
		{"too large", &Error{Source: "a", Kind: ErrBadResponse, Err: ErrBodyTooLarge}, KindBodyTooLarge},
		{"redirect", &Error{Source: "a", Kind: ErrBadResponse, Err: ErrRedirect}, KindRedirect},
		{"bad response", Errorf("a", ErrBadResponse, "not JSON"), KindBadResponse},
		{"outer kind wins", &Error{Source: "a", Kind: ErrUnavailable, Err: Errorf("b", ErrUnknownSymbol, "x")}, KindUnavailable},
		{"no kind", context.Canceled, KindOther},
		{"plain", errors.New("split table broken"), KindOther},
	} {
		if got := KindOf(tc.err); got != tc.want {
			t.Errorf("%s: KindOf(%v) = %q, want %q", tc.name, tc.err, got, tc.want)
		}
	}
}

// Every kind and cause has a snake_case name of its own: what --json prints is stable and
// unambiguous.
func TestEveryKindHasOneSnakeCaseName(t *testing.T) {
	snake := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	seen := map[ErrorKind]error{}
	for _, k := range append(append([]namedKind{}, causes...), kinds...) {
		if !snake.MatchString(string(k.kind)) {
			t.Errorf("%v is named %q, not snake_case", k.err, k.kind)
		}
		if other, dup := seen[k.kind]; dup {
			t.Errorf("%v and %v share the name %q", other, k.err, k.kind)
		}
		seen[k.kind] = k.err
		if got := KindOf(Errorf("s", k.err, "m")); k.err != ErrBodyTooLarge && k.err != ErrRedirect && got != k.kind {
			t.Errorf("KindOf(an *Error of kind %v) = %q, want %q", k.err, got, k.kind)
		}
	}
	for _, k := range []error{ErrNoData, ErrRateLimited, ErrUnauthorized, ErrBadResponse, ErrUnsupportedWindow, ErrUnavailable, ErrUnknownSymbol, ErrNoKey, ErrOverQuota} {
		if KindOf(k) == KindOther {
			t.Errorf("the kind %v has no name", k)
		}
	}
}
