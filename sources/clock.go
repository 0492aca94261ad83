package sources

import "time"

// Bar times as providers print them, read in place. The hot loop of a decoder reads one per bar,
// and time.Parse costs a string copy of the bytes (it may keep the text in its error); these read
// the common exact forms from the bytes and hand anything else to time.Parse, which reads it or
// says what is wrong. FuzzClockMatchesTimeParse holds them to time.Parse.

// ParseRFC3339 is time.Parse(time.RFC3339Nano, text) as an instant in UTC: Alpaca's and Tiingo's
// bar times. "2006-01-02T15:04:05Z" and the same with a ±hh:mm offset are read in place.
func ParseRFC3339(text []byte) (time.Time, error) {
	if len(text) >= 20 && text[10] == 'T' {
		if t, ok := wallClock(text[:19], time.UTC); ok {
			switch rest := text[19:]; {
			case len(rest) == 1 && rest[0] == 'Z':
				return t, nil
			case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
				h, okh := two(rest[1:3], 23)
				m, okm := two(rest[4:6], 59)
				if okh && okm {
					off := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute
					if rest[0] == '+' {
						off = -off
					}
					return t.Add(off), nil
				}
			}
		}
	}
	t, err := time.Parse(time.RFC3339Nano, string(text))
	return t.UTC(), err
}

// ParseWallClock is time.ParseInLocation("2006-01-02 15:04:05", text, loc): the exchange-local
// times of Twelve Data, FMP and Alpha Vantage's keys. Text in exactly that form is read in place.
func ParseWallClock(text []byte, loc *time.Location) (time.Time, error) {
	if len(text) == 19 && text[10] == ' ' {
		if t, ok := wallClock(text, loc); ok {
			return t, nil
		}
	}
	return time.ParseInLocation("2006-01-02 15:04:05", string(text), loc)
}

// wallClock reads "2006-01-02?15:04:05" (any byte at ?) in loc, each field in the range
// time.Parse allows; ok is false for anything else.
func wallClock(b []byte, loc *time.Location) (time.Time, bool) {
	if len(b) != 19 || b[4] != '-' || b[7] != '-' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	y1, ok1 := two(b[0:2], 99)
	y2, ok2 := two(b[2:4], 99)
	mo, ok3 := two(b[5:7], 12)
	d, ok4 := two(b[8:10], 31)
	h, ok5 := two(b[11:13], 23)
	mi, ok6 := two(b[14:16], 59)
	s, ok7 := two(b[17:19], 59)
	y := y1*100 + y2
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || mo < 1 || d < 1 || d > daysIn(time.Month(mo), y) {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(mo), d, h, mi, s, 0, loc), true
}

// two reads two ASCII digits no greater than max.
func two(b []byte, max int) (int, bool) {
	if b[0] < '0' || b[0] > '9' || b[1] < '0' || b[1] > '9' {
		return 0, false
	}
	n := int(b[0]-'0')*10 + int(b[1]-'0')
	return n, n <= max
}

func daysIn(m time.Month, year int) int {
	if m == time.February {
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return 31 - int((m-1)%7%2)
}

// InZone is the instant at wall's wall clock (its fields as read, in whatever location) in loc,
// as time.ParseInLocation would have read the same text in loc: for a decoder that reads a bar's
// time before it knows the body's zone.
func InZone(wall time.Time, loc *time.Location) time.Time {
	return time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), loc)
}
