package human

import (
	"testing"
	"time"
)

func TestDurationRoundsForAPerson(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{23*time.Hour + 54*time.Minute + 40811769530*time.Nanosecond, "23h55m"},
		{16*time.Second + 613*time.Millisecond, "16.6s"},
		{2*time.Minute + 3400*time.Millisecond, "2m3s"},
		{1234567 * time.Nanosecond, "1ms"},
		{300 * time.Nanosecond, "300ns"},
		{-90*time.Second - 400*time.Millisecond, "-1m30s"},
		{0, "0s"},
	} {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%s) = %s, want %s", tc.d, got, tc.want)
		}
	}
}
