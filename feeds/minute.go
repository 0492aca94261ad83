package feeds

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
)

// maxUnix is 9999-12-31T23:59:59Z, the last instant RFC 3339 can write.
const maxUnix = 253402300799

// ErrBadTime is wrapped by ParseTime and ParseMinute for text that is not a time at all.
var ErrBadTime = errors.New("not a time")

// ParseTime reads an instant as the commands and job inputs write it: RFC 3339
// (2026-11-27T15:30:00Z, an offset, fractional seconds), RFC 3339 without seconds
// (2026-11-27T15:30Z), or unix seconds (1795793400). The result is UTC.
func ParseTime(text string) (time.Time, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return time.Time{}, fmt.Errorf("%w: empty", ErrBadTime)
	}
	if isDigits(s) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n > maxUnix { // past 9999 is milliseconds or garbage
			return time.Time{}, fmt.Errorf("%w: %q is not unix seconds of a year before 10000", ErrBadTime, clipText(text))
		}
		return time.Unix(n, 0).UTC(), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: %q (want RFC 3339 like 2026-11-27T15:30:00Z, or unix seconds)", ErrBadTime, clipText(text))
}

// ParseMinute is ParseTime for a minute: the instant must be aligned to 60 s (ErrUnaligned) and
// not before the market calendar's first year (ErrBeforeCalendar).
func ParseMinute(text string) (time.Time, error) {
	t, err := ParseTime(text)
	if err != nil {
		return time.Time{}, err
	}
	if t.Year() < market.FirstYear {
		return time.Time{}, fmt.Errorf("%w: %s", ErrBeforeCalendar, t.Format(time.RFC3339Nano))
	}
	if !Aligned(t) {
		return time.Time{}, fmt.Errorf("%w: %s", ErrUnaligned, t.Format(time.RFC3339Nano))
	}
	return t, nil
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func clipText(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
