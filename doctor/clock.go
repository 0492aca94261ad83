package doctor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// Problems of the clock check.
const (
	ClockSkew      = "clock_skew"      // this machine's clock is off by more than MaxSkew
	ClockUnchecked = "clock_unchecked" // nothing answered with a time to compare with
)

// checkClock holds this machine's clock against the providers' Date headers and, with a chain,
// its head's timestamp. The rig reads its own clock for every "has this minute closed", every
// final_after and every commit and reveal window: a skewed clock moves all of them at once.
//
// Each Date header names the provider's second at some instant of the request's flight
// (sources.ServerDate.Skew bounds it); the middle of those bounds is one provider's reading, and
// the median of the readings is the clock's offset, so one provider with a wrong clock does not
// make ours wrong. A chain makes a block only when it has something to include (Nitro's
// sequencer: ../shared/research/robinhood-chain.md), so its head may be minutes old on a quiet
// chain: it tells only a clock that is behind (a head stamped in our future).
func checkClock(probes []probe, head *types.Header, now time.Time, maxSkew time.Duration, chain bool) Check {
	line := Check{Check: "clock", Verdict: OK}
	var readings []time.Duration
	for _, p := range probes {
		if p.date != nil {
			low, high := p.date.Skew()
			readings = append(readings, (low+high)/2)
		}
	}
	var parts []string
	var skew time.Duration
	if len(readings) > 0 {
		slices.Sort(readings)
		skew = readings[(len(readings)-1)/2] // the lower median, as the seed takes one
		ms := skew.Milliseconds()
		line.SkewMS = &ms
		parts = append(parts, fmt.Sprintf("this machine's clock reads %s %s the providers' (the median of %s, each good to about a second)",
			skew.Abs().Round(100*time.Millisecond), aheadOrBehind(-skew), plural(len(readings), "Date header")))
	}
	var headAhead time.Duration
	if head != nil {
		stamped := time.Unix(int64(head.Time), 0)
		// the head's second began at stamped: our clock is behind by at least stamped − now
		headAhead = stamped.Sub(now)
		if headAhead > 0 {
			parts = append(parts, fmt.Sprintf("the chain's head (block %s) is stamped %s ahead of this machine's clock", head.Number, headAhead.Round(time.Second)))
		} else {
			parts = append(parts, fmt.Sprintf("the chain's head (block %s) is %s old", head.Number, (-headAhead).Round(time.Second)))
		}
	}
	switch {
	case len(parts) == 0:
		line.Verdict, line.Problem = Warn, ClockUnchecked
		line.Detail = "not checked: no provider answered with a Date header"
		line.Fix = "run the doctor where the quote sources answer (or with --rpc, against the chain's head)"
		if chain {
			line.Detail += " and the chain's head could not be read"
		}
		return line
	case skew.Abs() > maxSkew || headAhead > maxSkew:
		line.Verdict, line.Problem = Fail, ClockSkew
		line.Detail = fmt.Sprintf("%s: a clock off by more than %s moves every minute-closed, finality and commit-window decision the rig makes",
			strings.Join(parts, "; "), maxSkew)
		line.Fix = "sync the clock with NTP (timedatectl set-ntp true; chronyc tracking shows the offset)"
	case len(readings) == 0:
		// a head in the past says only that the clock is not behind: a quiet chain's is old
		line.Verdict, line.Problem = Warn, ClockUnchecked
		line.Detail = strings.Join(parts, "; ") + "; no provider answered with a Date header, so a clock ahead is not seen"
		line.Fix = "run the doctor where the quote sources answer"
	default:
		line.Detail = strings.Join(parts, "; ")
	}
	return line
}

func aheadOrBehind(d time.Duration) string {
	if d > 0 {
		return "ahead of"
	}
	return "behind"
}
