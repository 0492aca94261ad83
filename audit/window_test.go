package audit

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
)

// minutesFrom lists n minutes from the first, one apart.
func minutesFrom(first string, n int) []time.Time {
	t := mustTime(first)
	out := make([]time.Time, n)
	for i := range out {
		out[i] = t.Add(time.Duration(i) * time.Minute)
	}
	return out
}

func TestSelectWindow(t *testing.T) {
	prp := []market.Session{market.Pre, market.Regular, market.Post}
	tests := []struct {
		name     string
		now      string
		sessions []market.Session
		n        int
		since    time.Duration
		max      int
		want     []time.Time
		from     string // "" means the first minute
		note     string // a substring of the note; "" means none
	}{
		{name: "mid-session: the last closed minutes", now: "2026-11-24T15:35:30Z", sessions: prp, n: 3,
			want: minutesFrom("2026-11-24T15:32:00Z", 3)},
		{name: "on a minute boundary the minute just begun has not closed", now: "2026-11-24T15:35:00Z", sessions: prp, n: 2,
			want: minutesFrom("2026-11-24T15:33:00Z", 2)},
		// Friday 2026-11-20's post session ends 20:00 New York = 01:00 UTC Saturday
		{name: "Saturday audits Friday's last minutes", now: "2026-11-21T15:00:00Z", sessions: prp, n: 3,
			want: minutesFrom("2026-11-21T00:57:00Z", 3)},
		// the pre session opens 04:00 New York = 09:00 UTC
		{name: "Monday just after the open reaches back to Friday", now: "2026-11-23T09:02:10Z", sessions: prp, n: 4,
			want: append(minutesFrom("2026-11-21T00:58:00Z", 2), minutesFrom("2026-11-23T09:00:00Z", 2)...)},
		// the regular session alone: Friday 2026-11-27 closes early, at 13:00 New York = 18:00 UTC
		{name: "regular only, after an early close", now: "2026-11-28T12:00:00Z", sessions: []market.Session{market.Regular}, n: 2,
			want: minutesFrom("2026-11-27T17:58:00Z", 2)},
		{name: "since: every session minute of the span", now: "2026-11-24T15:35:30Z", sessions: prp, since: 4 * time.Minute,
			want: minutesFrom("2026-11-24T15:32:00Z", 3), from: "2026-11-24T15:31:30Z"},
		{name: "since: capped at the latest", now: "2026-11-24T15:35:30Z", sessions: prp, since: time.Hour, max: 2,
			want: minutesFrom("2026-11-24T15:33:00Z", 2), from: "2026-11-24T14:35:30Z", note: "holds 59 session minutes"}, // 14:36 … 15:34,
		{name: "since on a weekend: the last session minute", now: "2026-11-21T15:00:00Z", sessions: prp, since: 15 * time.Minute,
			want: minutesFrom("2026-11-21T00:59:00Z", 1), from: "2026-11-21T14:45:00Z", note: "no session minute closed in the window"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := mustTime(tc.now)
			w := SelectWindow(now, tc.sessions, tc.n, tc.since, tc.max)
			if !reflect.DeepEqual(w.Minutes, tc.want) {
				t.Errorf("minutes %v, want %v", w.Minutes, tc.want)
			}
			from := tc.want[0]
			if tc.from != "" {
				from = mustTime(tc.from)
			}
			if !w.From.Equal(from) || !w.To.Equal(now) {
				t.Errorf("window [%s, %s), want [%s, %s)", w.From, w.To, from, now)
			}
			if (tc.note == "") != (w.Note == "") || !strings.Contains(w.Note, tc.note) {
				t.Errorf("note %q, want one containing %q", w.Note, tc.note)
			}
			for _, m := range w.Minutes {
				if !market.InSessions(m, tc.sessions) || m.Add(time.Minute).After(now) || m.Location() != time.UTC {
					t.Errorf("minute %s is not a closed UTC session minute", m)
				}
			}
		})
	}
}

func TestSpansOf(t *testing.T) {
	ms := append(minutesFrom("2026-11-21T00:58:00Z", 2), minutesFrom("2026-11-23T09:00:00Z", 2)...)
	got := spansOf(ms, 30*time.Minute)
	want := []span{
		{mustTime("2026-11-21T00:28:00Z"), mustTime("2026-11-21T01:00:00Z")},
		{mustTime("2026-11-23T08:30:00Z"), mustTime("2026-11-23T09:02:00Z")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spans %v, want %v", got, want)
	}
	for _, m := range ms {
		held := false
		for _, s := range got {
			held = held || s.holds(m.Add(-30*time.Minute), m.Add(time.Minute))
		}
		if !held {
			t.Errorf("no span holds the first request of %s", m)
		}
	}
}

func TestPaceShare(t *testing.T) {
	tests := []struct {
		interval, budget time.Duration
		spans, n, k      int
		wait             time.Duration
	}{
		{0, time.Minute, 1, 3, 3, 0},
		{time.Second, time.Minute, 1, 3, 3, 2 * time.Second},
		{12 * time.Second, time.Minute, 1, 3, 3, 24 * time.Second}, // massive's 5/min
		{30 * time.Second, time.Minute, 1, 3, 3, time.Minute},
		{40 * time.Second, time.Minute, 1, 3, 2, 40 * time.Second},
		{72 * time.Second, time.Minute, 1, 3, 1, 0}, // a 72 s pace (tiingo's 50/h once was; an hourly rate is an allowance now)
		{72 * time.Second, time.Minute, 2, 3, 1, time.Minute},
		{12 * time.Second, time.Minute, 2, 3, 3, time.Minute},
	}
	for _, tc := range tests {
		k, wait := paceShare(tc.interval, tc.budget, tc.spans, tc.n)
		if k != tc.k || wait != tc.wait {
			t.Errorf("paceShare(%s, %s, %d, %d) = %d, %s; want %d, %s", tc.interval, tc.budget, tc.spans, tc.n, k, wait, tc.k, tc.wait)
		}
	}
}
