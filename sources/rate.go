package sources

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// Rate is a request budget: N requests per Per. The zero Rate means unlimited.
type Rate struct {
	N   int
	Per time.Duration
}

var ratePeriods = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "second": time.Second,
	"m": time.Minute, "min": time.Minute, "minute": time.Minute,
	"h": time.Hour, "hour": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour,
}

// ParseRate reads a rate as sources.yaml writes it: "200/min", "5/minute", "30/10s", "25/day".
func ParseRate(text string) (Rate, error) {
	n, per, ok := strings.Cut(strings.TrimSpace(text), "/")
	if !ok {
		return Rate{}, fmt.Errorf("rate %q: want COUNT/PERIOD, like 200/min", text)
	}
	count, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || count <= 0 {
		return Rate{}, fmt.Errorf("rate %q: count must be a positive integer", text)
	}
	per = strings.TrimSpace(per)
	if d, ok := ratePeriods[per]; ok {
		return Rate{N: count, Per: d}, nil
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return Rate{}, fmt.Errorf("rate %q: period must be s, min, h, day or a duration like 10s", text)
	}
	return Rate{N: count, Per: d}, nil
}

// Or returns r, or def when r is zero: a source's rate from sources.yaml, else its type's default.
func (r Rate) Or(def Rate) Rate {
	if r.IsZero() {
		return def
	}
	return r
}

// IsZero reports whether the rate is unlimited.
func (r Rate) IsZero() bool { return r.N == 0 || r.Per == 0 }

// PaceSpan is the longest period a rate paces at. A provider that states its limit per second or
// per minute (Massive's 5 a minute, Pyth's 30 in 10 s) counts over windows that short, and an
// even pace keeps inside them. A limit per hour, day or month (FMP's 250 a day, Tiingo's 50 an
// hour) is an allowance: the provider lets it be spent as needed, bursts included, so spacing
// it evenly would only hold back requests it allows (fmp at 250/day would send one request every
// 5m45s, and a rig pricing three symbols at once would find it paced for two of them). Such a
// rate is a budget counted like a quota instead (Allowance).
const PaceSpan = time.Minute

// Pace is the part of r that paces requests: r itself when its period is at most PaceSpan, else
// the zero (unlimited) rate.
func (r Rate) Pace() Rate {
	if r.IsZero() || r.Per > PaceSpan {
		return Rate{}
	}
	return r
}

// Allowance is the part of r that is a budget: r as a one-limit Quota when its period is longer
// than PaceSpan, else nil.
func (r Rate) Allowance() Quota {
	if r.IsZero() || r.Per <= PaceSpan {
		return nil
	}
	return Quota{r}
}

// Limiter returns a token bucket that spaces requests evenly at the rate, with a burst of one:
// providers count requests over rolling windows we cannot see, and an even pace never exceeds
// any window of the stated rate. The zero rate gives an unlimited limiter. A client paces at
// its rate's Pace only (see PaceSpan).
func (r Rate) Limiter() *rate.Limiter {
	if r.IsZero() {
		return rate.NewLimiter(rate.Inf, 0)
	}
	return rate.NewLimiter(rate.Every(r.Interval()), 1)
}

// Interval is the time between two requests at a steady pace.
func (r Rate) Interval() time.Duration {
	if r.IsZero() {
		return 0
	}
	return r.Per / time.Duration(r.N)
}

func (r Rate) String() string {
	if r.IsZero() {
		return "unlimited"
	}
	for _, unit := range []struct {
		name string
		d    time.Duration
	}{{"day", 24 * time.Hour}, {"h", time.Hour}, {"min", time.Minute}, {"s", time.Second}} {
		if r.Per == unit.d {
			return fmt.Sprintf("%d/%s", r.N, unit.name)
		}
	}
	return fmt.Sprintf("%d/%s", r.N, r.Per)
}

// ErrPaced is the cause of a request its source's rate (sources.yaml's rate:) held back: the
// next request the pace lets go is due only after the caller's deadline, so it was not sent.
// The source was not asked, which is no failure of the source: a rig pricing several symbols
// at once asks a provider paced at 250/day (fmp) for the first of them only, and the others
// find no request free before their round's deadline. The *Error it causes is of kind
// ErrUnavailable (the source cannot be asked now: a caller that waits and retries, like the
// backfill, still does), and KindOf names it KindPaced.
var ErrPaced = errors.New("paced")

// Paced is the error of a request the rate held back: its next free request is wait away.
func Paced(source, rateText string, wait time.Duration) *Error {
	return &Error{Source: source, Kind: ErrUnavailable, RetryAfter: wait, Err: ErrPaced,
		Msg: fmt.Sprintf("not sent: the rate (%s) has no request free before the deadline", rateText)}
}
