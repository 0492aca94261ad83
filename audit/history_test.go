package audit

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
)

func TestHistoryGapsInABackfilledStore(t *testing.T) {
	env := newSimEnv(t, tuesday)
	spec := env.spec(t)
	store, err := history.Open(filepath.Join(t.TempDir(), "prices.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	// Backfill NVDA and SPY up to 15:32, TSLA not at all: the audit's window (the last 40
	// minutes) then lacks 15:32–15:34 of NVDA and SPY, and every minute of TSLA.
	b, err := history.New(store, history.Options{
		Spec: spec, Symbols: []string{"NVDA", "SPY"}, Sources: []string{"alpaca", "pyth", "twelvedata"},
		From: mustTime("2026-11-24T14:00:00Z"), To: mustTime("2026-11-24T15:32:00Z"), Clock: env.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
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
