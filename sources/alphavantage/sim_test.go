package alphavantage_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/alphavantage"
	"github.com/pricerig/pricerig/sources/sim"
)

// fast keeps the client's rate limiter from pacing the test in real time.
var fast = sources.Rate{N: 1000, Per: time.Second}

// tapeBars is what the tape traded in [from, to) in the sessions a source covers.
func tapeBars(tape *sim.Tape, symbol string, from, to time.Time, sessions []market.Session) []sources.Bar {
	var out []sources.Bar
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		if !market.InSessions(m, sessions) {
			continue
		}
		if b, ok := tape.Bar(symbol, m); ok {
			out = append(out, b)
		}
	}
	return out
}

func sameBars(t *testing.T, what string, got, want []sources.Bar) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the tape has no bars there; pick a window with trades", what)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d bars, tape has %d", what, len(got), len(want))
	}
	for i := range want {
		if !got[i].Start.Equal(want[i].Start) || got[i].Close != want[i].Close || got[i].Volume != want[i].Volume {
			t.Fatalf("%s bar %d: got %+v, tape %+v", what, i, got[i], want[i])
		}
	}
}

// windows cover the open, pre-market, the close into post and the future, a long span over
// weekends and a holiday (several requests), and the days around NVDA's 10:1 split of
// 2024-06-10, which a raw source must not smooth over.
var windows = []struct{ from, to time.Time }{
	{time.Date(2026, 9, 18, 13, 30, 0, 0, time.UTC), time.Date(2026, 9, 18, 14, 30, 0, 0, time.UTC)},
	{time.Date(2026, 9, 17, 8, 0, 0, 0, time.UTC), time.Date(2026, 9, 17, 13, 35, 0, 0, time.UTC)},
	{time.Date(2026, 9, 18, 19, 50, 0, 0, time.UTC), time.Date(2026, 9, 18, 23, 0, 0, 0, time.UTC)},
	{time.Date(2026, 8, 25, 0, 0, 0, 0, time.UTC), time.Date(2026, 9, 9, 0, 0, 0, 0, time.UTC)},
	{time.Date(2024, 6, 7, 19, 0, 0, 0, time.UTC), time.Date(2024, 6, 10, 15, 0, 0, 0, time.UTC)},
}

// now is a Friday, 17:30 New York: the third window runs into minutes that have not closed.
var now = time.Date(2026, 9, 18, 21, 30, 0, 0, time.UTC)

// TestSimRoundTrip reads the simulator's Alpha Vantage emulation and checks that the adapter's raw bars
// are the tape's as-traded bars, minute for minute.
func TestSimRoundTrip(t *testing.T) {
	srv := sim.New(sim.Options{Seed: 11, Now: func() time.Time { return now }})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()
	src, err := alphavantage.New(sources.Settings{Name: "alphavantage", BaseURL: srv.BaseURL(ts.URL, "alphavantage"), Key: sim.Key, Secret: sim.Secret, Rate: fast},
		sources.Deps{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	sessions := src.Coverage().Sessions
	for _, sym := range []string{"NVDA", "TSLA", "SPY"} {
		for _, w := range windows {
			got, err := src.Bars(context.Background(), sym, w.from, w.to)
			if err != nil {
				t.Fatalf("%s %s: %v", sym, w.from, err)
			}
			sameBars(t, sym+" "+w.from.Format(time.RFC3339), got, tapeBars(srv.Tape(), sym, w.from, w.to, sessions))
		}
	}
}

// TestSimLabelMatters reads the simulator, which labels by start as Alpha Vantage does today,
// with label: end: every bar comes out one minute early, so the option is not a no-op and the
// default is the one that agrees.
func TestSimLabelMatters(t *testing.T) {
	srv := sim.New(sim.Options{Seed: 11, Now: func() time.Time { return now }})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()
	src, err := alphavantage.New(sources.Settings{Name: "av", BaseURL: srv.BaseURL(ts.URL, "alphavantage"), Key: sim.Key, Rate: fast,
		Options: map[string]string{"label": "end"}}, sources.Deps{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	w := windows[0]
	got, err := src.Bars(context.Background(), "SPY", w.from.Add(-time.Minute), w.to)
	if err != nil {
		t.Fatal(err)
	}
	// [from−1m, to) read as end labels holds the tape's bars of [from, to+1m), a minute early
	want := tapeBars(srv.Tape(), "SPY", w.from, w.to.Add(time.Minute), src.Coverage().Sessions)
	shifted := make([]sources.Bar, len(want))
	for i, b := range want {
		b.Start = b.Start.Add(-time.Minute)
		shifted[i] = b
	}
	sameBars(t, "SPY read with label: end", got, shifted)
}

// TestSimFaults injects each of the simulator's faults and checks the kind of error the adapter
// reports; an error in a 200 body is the daily-limit "Information" here.
func TestSimFaults(t *testing.T) {
	srv := sim.New(sim.Options{Seed: 5, Now: func() time.Time { return now }})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()
	// a short timeout for the hanging server only: a month of bars takes a while under -race
	newSource := func(timeout time.Duration) sources.Source {
		src, err := alphavantage.New(sources.Settings{Name: "alphavantage", BaseURL: srv.BaseURL(ts.URL, "alphavantage"), Key: sim.Key, Secret: sim.Secret, Rate: fast,
			Retries: -1, Timeout: timeout}, sources.Deps{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	patient, hasty := newSource(time.Minute), newSource(200*time.Millisecond)
	w := windows[0]
	for _, tc := range []struct {
		fault sim.Fault
		kind  error
	}{
		{sim.Fault5xx, sources.ErrUnavailable},
		{sim.FaultTruncated, sources.ErrBadResponse},
		{sim.FaultErrorIn200, sources.ErrRateLimited},
		{sim.FaultWrongSymbol, sources.ErrBadResponse},
		{sim.FaultUnauthorized, sources.ErrUnauthorized},
		{sim.FaultTimeout, sources.ErrUnavailable},
	} {
		srv.SetFault("alphavantage", tc.fault)
		src := patient
		if tc.fault == sim.FaultTimeout {
			src = hasty
		}
		if _, err := src.Bars(context.Background(), "NVDA", w.from, w.to); !errors.Is(err, tc.kind) {
			t.Errorf("%s: error %v, want kind %v", tc.fault, err, tc.kind)
		}
	}
}

// TestSimRateLimit lets the simulator serve one request a minute: the second is a 429 the
// adapter reports as rate limited, with the provider's retry-after.
func TestSimRateLimit(t *testing.T) {
	srv := sim.New(sim.Options{Seed: 5, Now: func() time.Time { return now }, RateLimit: 1})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()
	src, err := alphavantage.New(sources.Settings{Name: "alphavantage", BaseURL: srv.BaseURL(ts.URL, "alphavantage"), Key: sim.Key, Secret: sim.Secret, Rate: fast,
		Retries: -1}, sources.Deps{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	w := windows[0]
	if _, err := src.Bars(context.Background(), "NVDA", w.from, w.to); err != nil {
		t.Fatalf("first request under the limit: %v", err)
	}
	_, err = src.Bars(context.Background(), "TSLA", w.from, w.to)
	var e *sources.Error
	if !errors.As(err, &e) || !errors.Is(err, sources.ErrRateLimited) || e.RetryAfter <= 0 {
		t.Errorf("over the limit: %v, want rate limited with a retry-after", err)
	}
}
