package feeds

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// Split is a forward stock split: from its first trading day on, one old share is Ratio new
// ones (NVDA's 10-for-1 of 2024-06-10 is {2024-06-10, 10}).
type Split struct {
	Date  time.Time // the first trading day at the new share count, midnight America/New_York
	Ratio int64
}

// Effective is the instant the split takes effect: the start of the pre-market session of its
// first trading day (04:00 ET). Providers that adjust intraday (Pyth says so outright) switch
// at that session boundary, so a bar of the overnight session before it is still in old shares.
func (s Split) Effective() time.Time {
	y, m, d := s.Date.Date()
	if start, _, ok := market.Day(y, m, d).Bounds(market.Pre); ok {
		return start
	}
	return time.Date(y, m, d, 4, 0, 0, 0, market.NewYork).UTC()
}

// Splits holds each symbol's splits, newest first.
type Splits map[string][]Split

// ParseSplitDate reads a split's first trading day, YYYY-MM-DD, and checks that the market
// traded that day.
func ParseSplitDate(text string) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, text)
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q: want YYYY-MM-DD", text)
	}
	day := market.Day(d.Year(), d.Month(), d.Day())
	if !day.Trading {
		return time.Time{}, fmt.Errorf("date %s: the market did not trade that day; a split's date is its first trading day", text)
	}
	return day.Date, nil
}

func sortSplits(list []Split) []Split {
	sort.Slice(list, func(i, j int) bool { return list[i].Date.After(list[j].Date) })
	return list
}

// Factor is what a split-adjusted price at instant at must be multiplied by to get back to the
// shares traded at that instant: the product of the ratios of every split that took effect after
// at but no later than now (a split still to come has not been folded into any provider's
// prices yet).
func Factor(splits []Split, at, now time.Time) (int64, error) {
	f := int64(1)
	for _, s := range splits {
		eff := s.Effective()
		if !eff.After(at) || eff.After(now) {
			continue
		}
		if s.Ratio <= 0 || f > math.MaxInt64/s.Ratio {
			return 0, fmt.Errorf("split factor overflows at %s", s.Date.Format(time.DateOnly))
		}
		f *= s.Ratio
	}
	return f, nil
}

// Unadjust brings split-adjusted bars back to the shares of their own minute (raw), with exact
// integer multiplication: raw = adjusted × Factor(bar start). It returns new bars and leaves its
// argument alone. A product past numeric.MaxPrice is an error, not a price. Volumes are left as
// the provider gave them: they are not on the value path, and dividing them would not be exact.
func Unadjust(bars []sources.Bar, splits []Split, now time.Time) ([]sources.Bar, error) {
	out := make([]sources.Bar, len(bars))
	limit := int64(numeric.MaxPrice) * int64(numeric.One)
	for i, b := range bars {
		f, err := Factor(splits, b.Start, now)
		if err != nil {
			return nil, err
		}
		if f != 1 {
			if b.Close < 0 || int64(b.Close) > limit/f {
				return nil, fmt.Errorf("bar %s: %s × %d is past the largest price", b.Start.Format(time.RFC3339), b.Close, f)
			}
			b.Close *= numeric.Scaled(f)
		}
		out[i] = b
	}
	return out, nil
}
