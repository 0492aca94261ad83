// Package human writes what a person reads in a message: a duration rounded to the precision
// that matters at its size ("23h55m", not "23h54m40.81176953s"), never to zero when it is not.
package human

import (
	"strings"
	"time"
)

// Duration is d rounded for a person: to the minute from an hour up, to the second from a
// minute up, to a tenth of a second from a second up, to the millisecond below; a duration
// that rounds to nothing stays what it is.
func Duration(d time.Duration) string {
	a := d
	if a < 0 {
		a = -a
	}
	unit := time.Millisecond
	switch {
	case a >= time.Hour:
		unit = time.Minute
	case a >= time.Minute:
		unit = time.Second
	case a >= time.Second:
		unit = 100 * time.Millisecond
	}
	if r := d.Round(unit); r != 0 {
		if unit == time.Minute {
			return strings.TrimSuffix(r.String(), "0s") // 23h55m, not 23h55m0s
		}
		return r.String()
	}
	return d.String()
}
