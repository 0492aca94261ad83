package sim

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
)

// TestPublication: each provider serves a minute's bar when its Publication says, with a
// provisional close that changes once, to the tape's, at its revision; SetPublication changes a
// provider, and Options.Instant is the world where every bar is served final when its minute
// ends. The defaults are the providers' documented behaviour (the emulations cite it): Yahoo
// serves the minute in progress, Alpaca a bar 1 s after its minute and revised at 30 s, Massive
// revised at 10 s; the others, which document nothing, serve it final when it ends.
func TestPublication(t *testing.T) {
	m := tuesday.Truncate(time.Minute) // 18:00 UTC, a regular minute
	raw, ok := New(Options{}).tape.bar("SPY", m)
	if !ok {
		t.Fatal("the tape did not trade SPY at", m)
	}
	final, early := raw.C, provisional(raw).C
	if final == early {
		t.Fatal("a provisional close equal to the final one proves nothing")
	}
	f := newFixture(t, tuesday, Options{})
	at := func(p string, now time.Duration) (numeric.Scaled, bool) {
		t.Helper()
		f.now = m.Add(now)
		for _, b := range f.bars(p, "SPY", m.Add(-5*time.Minute), m.Add(2*time.Minute), nil) {
			if b.start.Equal(m) {
				return b.close, true
			}
		}
		return 0, false
	}
	tests := []struct {
		provider string
		since    time.Duration // since the minute started
		want     numeric.Scaled
		served   bool
	}{
		{"yahoo", 30 * time.Second, early, true}, // the minute in progress
		{"yahoo", time.Minute, final, true},
		{"alpaca", time.Minute + 500*time.Millisecond, 0, false},
		{"alpaca", time.Minute + 2*time.Second, early, true},
		{"alpaca", time.Minute + 31*time.Second, final, true},
		{"massive", time.Minute + 5*time.Second, early, true},
		{"massive", time.Minute + 11*time.Second, final, true},
		{"twelvedata", time.Minute, final, true},
	}
	for _, tc := range tests {
		got, served := at(tc.provider, tc.since)
		if served != tc.served || got != tc.want {
			t.Errorf("%s %s into the minute: served %v close %s, want %v %s", tc.provider, tc.since, served, got, tc.served, tc.want)
		}
	}

	f.s.SetPublication("twelvedata", Publication{Lag: 25 * time.Second, Revise: 40 * time.Second})
	for _, tc := range []struct {
		since  time.Duration
		want   numeric.Scaled
		served bool
	}{{time.Minute + 24*time.Second, 0, false}, {time.Minute + 30*time.Second, early, true}, {time.Minute + 40*time.Second, final, true}} {
		if got, served := at("twelvedata", tc.since); served != tc.served || got != tc.want {
			t.Errorf("twelvedata 25s late, revised at 40s, %s into the minute: served %v close %s, want %v %s", tc.since, served, got, tc.served, tc.want)
		}
	}
	if p := f.s.Publication("twelvedata"); p.Lag != 25*time.Second || p.Revise != 40*time.Second {
		t.Errorf("publication %+v", p)
	}

	instant := newFixture(t, tuesday, Options{Instant: true})
	for _, p := range Providers() {
		if got := instant.s.Publication(p); got != Instant {
			t.Errorf("%s: %+v under Options.Instant", p, got)
		}
	}
	if bars := instant.bars("yahoo", "SPY", m, m.Add(time.Minute), nil); len(bars) != 0 {
		t.Errorf("instant yahoo served the minute in progress: %+v", bars)
	}
}

func TestPublicationCheck(t *testing.T) {
	for _, p := range []Publication{{Lag: -2 * time.Minute}, {Revise: -time.Second}, {Lag: 8 * 24 * time.Hour}} {
		if p.Check() == nil {
			t.Errorf("%+v passed", p)
		}
	}
	if err := (Publication{Lag: MinLag, Revise: 40 * time.Second}).Check(); err != nil {
		t.Error(err)
	}
}
