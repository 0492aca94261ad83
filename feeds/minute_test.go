package feeds

import (
	"errors"
	"testing"
	"time"
)

func TestParseMinute(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC 3339, or "" for an error
		err  error
	}{
		{"2026-11-27T15:30:00Z", "2026-11-27T15:30:00Z", nil},
		{"2026-11-27T15:30Z", "2026-11-27T15:30:00Z", nil},
		{" 2026-11-27T15:30:00.000Z ", "2026-11-27T15:30:00Z", nil},
		{"2026-11-27T10:30:00-05:00", "2026-11-27T15:30:00Z", nil},
		{"1795793400", "2026-11-27T15:30:00Z", nil},
		{"0", "1970-01-01T00:00:00Z", nil},
		{"2026-11-27T15:30:30Z", "", ErrUnaligned},
		{"2026-11-27T15:30:00.5Z", "", ErrUnaligned},
		{"1795793401", "", ErrUnaligned},
		{"2026-11-27 15:30", "", ErrBadTime},
		{"2026-11-27T15:30", "", ErrBadTime},
		{"1795793400000", "", ErrBadTime},
		{"-60", "", ErrBadTime},
		{"0x10", "", ErrBadTime},
		{"", "", ErrBadTime},
		{"2026-13-27T15:30:00Z", "", ErrBadTime},
	}
	for _, tc := range tests {
		got, err := ParseMinute(tc.in)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%q: err %v, want %v", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got.Format(time.RFC3339) != tc.want || got.Location() != time.UTC {
			t.Errorf("%q: %s %v, want %s", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseMinute(f *testing.F) {
	for _, s := range []string{"2026-11-27T15:30:00Z", "2026-11-27T15:30Z", "1795793400", "2026-11-27T10:30:00-05:00", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMinute(s)
		if err != nil {
			return
		}
		if !Aligned(m) || m.Location() != time.UTC {
			t.Fatalf("%q → %s", s, m)
		}
		// an accepted minute reads back the same in its canonical forms
		for _, again := range []string{m.Format(time.RFC3339), m.Format("2006-01-02T15:04Z07:00")} {
			if back, err := ParseMinute(again); err != nil || !back.Equal(m) {
				t.Fatalf("%q → %s → %q → %s, %v", s, m, again, back, err)
			}
		}
	})
}
