package audit

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/backfill"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// backfilledStore is a new store holding a backfill of NVDA and SPY from alpaca, pyth and
// twelvedata, 2026-11-24 from 14:00 UTC to the minute to.
func backfilledStore(t *testing.T, env *simEnv, spec *feeds.Spec, to string) *history.Store {
	t.Helper()
	store, err := history.Open(filepath.Join(t.TempDir(), "prices.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	b, err := backfill.New(store, backfill.Options{
		Spec: spec, Symbols: []string{"NVDA", "SPY"}, Sources: []string{"alpaca", "pyth", "twelvedata"},
		From: mustTime("2026-11-24T14:00:00Z"), To: mustTime(to), Clock: env.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return store
}

func TestHistoryGapsInABackfilledStore(t *testing.T) {
	env := newSimEnv(t, tuesday)
	spec := env.spec(t)
	// Backfill NVDA and SPY up to 15:32, TSLA not at all: the audit's window (the last 40
	// minutes) then lacks 15:32–15:34 of NVDA and SPY, and every minute of TSLA.
	store := backfilledStore(t, env, spec, "2026-11-24T15:32:00Z")
	a := env.auditor(t, Config{Spec: spec, Since: 40 * time.Minute, MaxMinutes: 1, History: StoreHistory{store}})
	rep := a.Run(context.Background())
	if got := names(rep.Findings); !reflect.DeepEqual(got, map[string][]string{HistoryGap: {"NVDA", "SPY", "TSLA"}}) {
		t.Fatalf("findings %v", got)
	}
	from := env.clock.Now().Add(-40 * time.Minute)
	want := SessionMinutes(from, env.clock.Now(), spec.Rules.Sessions)
	for _, f := range rep.Findings {
		switch f.Symbol {
		case "TSLA":
			if f.Count != len(want) || f.Of != len(want) || !f.First.Equal(want[0]) || !f.Last.Equal(want[len(want)-1]) {
				t.Errorf("TSLA: %+v, want all %d minutes", f, len(want))
			}
		default:
			if f.Count != 3 || f.Of != len(want) || !f.First.Equal(mustTime("2026-11-24T15:32:00Z")) || !f.Last.Equal(mustTime("2026-11-24T15:34:00Z")) {
				t.Errorf("%s: %+v, want 15:32–15:34", f.Symbol, f)
			}
			if !strings.Contains(f.Message, "2026-11-24T15:32:00Z – 2026-11-24T15:34:00Z") {
				t.Errorf("message %q", f.Message)
			}
		}
	}
	if c, _ := rep.Check(CheckHistoryName); c.State != CheckFindings || c.Findings != 3 {
		t.Errorf("history check %+v", c)
	}
}

func TestCheckHistoryGroupsGaps(t *testing.T) {
	prp := []market.Session{market.Pre, market.Regular, market.Post}
	// Friday 2026-11-20 00:55 – 01:00 UTC is the end of Thursday's post session; the window runs
	// into the closed night, which has no session minutes to miss.
	from, to := mustTime("2026-11-20T00:55:00Z"), mustTime("2026-11-20T03:00:00Z")
	want := SessionMinutes(from, to, prp)
	if len(want) != 5 {
		t.Fatalf("session minutes %v, want 00:55 … 00:59", want)
	}
	have := map[string][]time.Time{"NVDA": {want[0], want[2]}, "SPY": want}
	fs := CheckHistory([]string{"NVDA", "SPY"}, from, to, prp, have)
	if len(fs) != 1 || fs[0].Symbol != "NVDA" || fs[0].Count != 3 || fs[0].Of != 5 {
		t.Fatalf("findings %+v", fs)
	}
	for _, part := range []string{"00:56:00Z,", "00:58:00Z – 2026-11-20T00:59:00Z"} {
		if !strings.Contains(fs[0].Message, part) {
			t.Errorf("message %q lacks %q", fs[0].Message, part)
		}
	}
}

// A source that refused its key while a window was backfilled left the window's stored minutes
// with failed quotes of kind unauthorized: the history check reports them by that kind (one
// finding per symbol), not by the error's text, even once the source answers again.
func TestHistoryFailuresInABackfilledStore(t *testing.T) {
	env := newSimEnv(t, tuesday)
	spec := env.spec(t)
	env.sim.SetFault("twelvedata", sim.FaultUnauthorized)
	store := backfilledStore(t, env, spec, "2026-11-24T15:35:00Z")
	env.sim.SetFault("twelvedata", sim.FaultNone)
	a := env.auditor(t, Config{Spec: spec, Symbols: []string{"NVDA", "SPY"}, Since: 20 * time.Minute, MaxMinutes: 1, History: StoreHistory{store}})
	rep := a.Run(context.Background())
	var failed []Finding
	for _, f := range rep.Findings {
		if f.Name == HistoryFailed {
			failed = append(failed, f)
		}
	}
	if len(failed) != 2 {
		t.Fatalf("history_failed findings %+v; all %v", failed, names(rep.Findings))
	}
	for i, f := range failed {
		if f.Symbol != []string{"NVDA", "SPY"}[i] || f.Source != "twelvedata" || f.ErrorKind != sources.KindUnauthorized ||
			f.Severity != Warn || f.Count == 0 || f.Count != f.Of || !strings.Contains(f.Message, "fix the key") {
			t.Errorf("finding %+v", f)
		}
	}
}

// The failures are grouped by symbol, source and kind, and each kind says what to do; a
// failure stored before kinds were kept says so instead of guessing from its text.
func TestCheckHistoryFailuresByKind(t *testing.T) {
	m := func(i int) time.Time { return mustTime("2026-11-24T15:00:00Z").Add(time.Duration(i) * time.Minute) }
	down := FailedQuote{"massive", sources.KindUnavailable}
	limited := FailedQuote{"alpaca", sources.KindRateLimited}
	old := FailedQuote{"pyth", ""}
	stored := map[string][]Stored{
		"NVDA": {{Minute: m(0), Failed: []FailedQuote{down}}, {Minute: m(1)}, {Minute: m(2), Failed: []FailedQuote{limited, down}},
			{Minute: m(3), Failed: []FailedQuote{old}}},
		"SPY": {{Minute: m(0)}},
	}
	fs := CheckHistoryFailures([]string{"NVDA", "SPY", "TSLA"}, stored)
	type got struct {
		source      string
		kind        sources.ErrorKind
		count, of   int
		first, last time.Time
		says        string
	}
	want := []got{
		{"massive", sources.KindUnavailable, 2, 4, m(0), m(2), "was down"},
		{"alpaca", sources.KindRateLimited, 1, 4, m(2), m(2), "rate-limiting"},
		{"pyth", "", 1, 4, m(3), m(3), "kind not stored"},
	}
	if len(fs) != len(want) {
		t.Fatalf("findings %+v", fs)
	}
	for i, f := range fs {
		w := want[i]
		if f.Name != HistoryFailed || f.Symbol != "NVDA" || f.Source != w.source || f.ErrorKind != w.kind || f.Count != w.count ||
			f.Of != w.of || !f.First.Equal(w.first) || !f.Last.Equal(w.last) || !strings.Contains(f.Message, w.says) {
			t.Errorf("finding %d: %+v, want %+v", i, f, w)
		}
	}
}
