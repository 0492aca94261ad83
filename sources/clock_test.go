package sources

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
)

// clockSeeds are the forms providers send and the edges time.Parse checks: leap days, month
// ends, offsets, fractions, a lower-case z, out-of-range fields, and text cut short.
var clockSeeds = []string{
	"2024-03-08T14:30:00Z", "2024-03-08T09:30:00-05:00", "2024-03-08T09:30:00+05:30", "2024-03-08T09:30:00+24:00",
	"2024-03-08T09:30:00+23:60", "2024-03-08T09:30:00.000Z", "2024-03-08T09:30:00z", "2024-03-08t09:30:00Z",
	"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z",
	"2024-04-31T00:00:00Z", "2024-12-31T23:59:59Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z",
	"2024-01-00T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z", "2024-01-01T00:00:60Z",
	"0000-01-01T00:00:00Z", "2024-1-01T00:00:00Z", "2024-01-01T00:00:00", "2024-01-01T00:00:00Z ",
	"2024-03-08 09:30:00", "2024-11-03 01:30:00", "2024-03-10 02:30:00", "2024-03-08 09:30", "2024-03-08x09:30:00",
	"+024-03-08 09:30:00", "2024-03-08 09:30:0a", "", "null",
}

func sameClock(t *testing.T, text string) {
	t.Helper()
	want, wantErr := time.Parse(time.RFC3339Nano, text)
	got, err := ParseRFC3339([]byte(text))
	if (err == nil) != (wantErr == nil) || (err == nil && (!got.Equal(want) || got.Location() != time.UTC)) {
		t.Fatalf("ParseRFC3339(%q) = %v, %v; time.Parse gives %v, %v", text, got, err, want, wantErr)
	}
	want, wantErr = time.ParseInLocation("2006-01-02 15:04:05", text, market.NewYork)
	got, err = ParseWallClock([]byte(text), market.NewYork)
	if (err == nil) != (wantErr == nil) || (err == nil && (!got.Equal(want) || got.Location() != want.Location())) {
		t.Fatalf("ParseWallClock(%q) = %v, %v; time.ParseInLocation gives %v, %v", text, got, err, want, wantErr)
	}
}

func TestClockMatchesTimeParse(t *testing.T) {
	for _, s := range clockSeeds {
		sameClock(t, s)
	}
	// every day of four years, at a minute that moves with the day, in both forms
	for day := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() < 2027; day = day.AddDate(0, 0, 1) {
		m := day.Add(time.Duration(day.YearDay()*7) * time.Minute)
		sameClock(t, m.Format(time.RFC3339))
		sameClock(t, m.Format("2006-01-02 15:04:05"))
		sameClock(t, m.In(market.NewYork).Format(time.RFC3339))
	}
	b := []byte("2024-03-08T09:30:00-05:00")
	w := []byte("2024-03-08 09:30:00")
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseRFC3339(b); _, _ = ParseWallClock(w, market.NewYork) }); n != 0 {
		t.Errorf("reading a bar time allocates %.0f times", n)
	}
}

func FuzzClockMatchesTimeParse(f *testing.F) {
	for _, s := range clockSeeds {
		f.Add(s)
	}
	f.Fuzz(sameClock)
}
