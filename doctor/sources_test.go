package doctor

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// Each fault of the simulator is named by its source's check: a healthy source is ok, a missing
// key names its variable, a plan's refusal and a wrong key are told apart, a source down is
// unreachable, a rate limit is a warning; and only a failure makes the run exit 1.
func TestSourceFaultsAreNamed(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		inject   func(*sim.Server)
		unset    []string
		verdict  Verdict
		problem  string
		kind     sources.ErrorKind
		detail   string // a part of the detail
	}{
		{"healthy", "yahoo", nil, nil, OK, "", "", "key accepted"},
		{"missing key", "finnhub", nil, []string{"FINNHUB_API_KEY"}, Fail, MissingKey, sources.KindNoKey, "FINNHUB_API_KEY is not set"},
		{"missing secret", "alpaca", nil, []string{"ALPACA_API_SECRET_KEY"}, Fail, MissingKey, sources.KindNoKey, "ALPACA_API_SECRET_KEY is not set"},
		{"plan refused (402)", "fmp", func(s *sim.Server) { s.SetFault("fmp", sim.FaultNotEntitled) }, nil, Fail, PlanRefused, sources.KindUnauthorized, "Restricted Endpoint"},
		{"plan refused in a 200 (NOT_AUTHORIZED)", "massive", func(s *sim.Server) { s.SetFault("massive", sim.FaultNotEntitled) }, nil, Fail, PlanRefused, sources.KindUnauthorized, "not entitled"},
		{"plan refused (premium endpoint)", "alphavantage", func(s *sim.Server) { s.SetFault("alphavantage", sim.FaultNotEntitled) }, nil, Fail, PlanRefused, sources.KindUnauthorized, "premium"},
		{"a wrong key (403) is not a plan", "alpaca", func(s *sim.Server) { s.SetFault("alpaca", sim.FaultUnauthorized) }, nil, Fail, KeyRefused, sources.KindUnauthorized, "forbidden"},
		{"a wrong key (401)", "tiingo", func(s *sim.Server) { s.SetFault("tiingo", sim.FaultUnauthorized) }, nil, Fail, KeyRefused, sources.KindUnauthorized, "Invalid token"},
		{"down", "twelvedata", func(s *sim.Server) { s.SetFault("twelvedata", sim.Fault5xx) }, nil, Fail, Unreachable, sources.KindUnavailable, "503"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newSimEnv(t, tuesday)
			if tc.inject != nil {
				tc.inject(env.sim)
			}
			rep := env.run(t, Options{Spec: env.spec(t, []string{tc.provider}, tc.unset...)})
			c := one(t, rep, "source", tc.provider)
			if c.Verdict != tc.verdict || c.Problem != tc.problem || c.ErrorKind != tc.kind || !strings.Contains(c.Detail, tc.detail) {
				t.Errorf("%+v, want %s %q of kind %q saying %q", c, tc.verdict, tc.problem, tc.kind, tc.detail)
			}
			if (c.Verdict == Fail) != (c.Fix != "") {
				t.Errorf("fix %q for a %s", c.Fix, c.Verdict)
			}
			if want := map[bool]int{true: 1, false: 0}[tc.verdict == Fail]; rep.Exit() != want {
				t.Errorf("exit %d, want %d", rep.Exit(), want)
			}
		})
	}
}

// A rate limit already used up is a warning, not a failure: the source answers again later.
func TestRateLimitedIsAWarning(t *testing.T) {
	env := newSimEnv(t, tuesday)
	env.sim.SetRateLimit("fmp", 1)
	spec := env.spec(t, []string{"fmp"})
	env.run(t, Options{Spec: spec}) // the minute's one request
	rep := env.run(t, Options{Spec: spec})
	if c := one(t, rep, "source", "fmp"); c.Verdict != Warn || c.Problem != RateLimited || c.ErrorKind != sources.KindRateLimited {
		t.Fatalf("%+v, want a rate_limited warning", c)
	}
	if rep.Exit() != 0 {
		t.Errorf("exit %d, want 0: a warning is not a failure", rep.Exit())
	}
}

// A source asked sends one request, whatever it answers: the doctor spends one of its quota.
func TestOneRequestASource(t *testing.T) {
	env := newSimEnv(t, tuesday)
	providers := []string{"yahoo", "alpaca", "massive", "twelvedata", "tiingo", "pyth", "fmp", "alphavantage", "finnhub"}
	env.sim.SetFault("twelvedata", sim.Fault5xx) // no retry either
	env.run(t, Options{Spec: env.spec(t, providers)})
	for _, p := range providers {
		if n := env.sim.Requests(p); n != 1 {
			t.Errorf("%s: %d requests, want 1", p, n)
		}
	}
}

// The latest bar's age is held to final_after in a regular session: a provider that publishes
// minutes later than its final_after is warned of; one inside it, and any source outside the
// regular session, is not.
func TestBarAgeAgainstFinalAfter(t *testing.T) {
	env := newSimEnv(t, tuesday)
	for _, p := range []string{"yahoo", "tiingo"} {
		env.sim.SetPublication(p, sim.Publication{Lag: 8 * time.Minute})
	}
	env.sim.SetPublication("alpaca", sim.Publication{Lag: 25 * time.Second, Revise: 30 * time.Second})
	rep := env.run(t, Options{Spec: env.spec(t, []string{"yahoo", "tiingo", "alpaca", "pyth"})})
	got := map[string]string{}
	for _, c := range find(rep, "bar_age", "") {
		got[c.Subject] = string(c.Verdict) + " " + c.Problem
	}
	want := map[string]string{"yahoo": "warn " + BarsLate, "tiingo": "warn " + BarsLate, "alpaca": "ok ", "pyth": "ok "}
	if !maps.Equal(got, want) {
		t.Errorf("bar ages %v, want %v", got, want)
	}
	if c := one(t, rep, "bar_age", "yahoo"); !strings.Contains(c.Detail, "final_after") || !strings.Contains(c.Fix, "final_after") {
		t.Errorf("yahoo: %+v, want final_after named", c)
	}

	// Saturday: nothing is judged
	saturday := newSimEnv(t, time.Date(2026, 11, 28, 15, 35, 30, 0, time.UTC))
	saturday.sim.SetPublication("yahoo", sim.Publication{Lag: 8 * time.Minute})
	rep = saturday.run(t, Options{Spec: saturday.spec(t, []string{"yahoo"})})
	if c := one(t, rep, "bar_age", "yahoo"); c.Verdict != OK || !strings.Contains(c.Detail, "not judged") {
		t.Errorf("on a Saturday: %+v, want not judged", c)
	}
}

// The clock is held to the providers' Date headers: a machine 30 s behind them fails, naming
// why it matters; one within a second is ok.
func TestClockSkewThroughTheDateHeader(t *testing.T) {
	providers := []string{"yahoo", "pyth", "tiingo"}
	for _, tc := range []struct {
		skew    time.Duration
		verdict Verdict
	}{{0, OK}, {-1500 * time.Millisecond, OK}, {30 * time.Second, Fail}, {-30 * time.Second, Fail}} {
		env := newSimEnv(t, tuesday)
		env.sim.SetDateSkew(tc.skew)
		rep := env.run(t, Options{Spec: env.spec(t, providers)})
		c := one(t, rep, "clock", "")
		if c.Verdict != tc.verdict || c.SkewMS == nil {
			t.Fatalf("skew %s: %+v, want %s", tc.skew, c, tc.verdict)
		}
		// the header's second and the request's flight: within a second of the skew
		if got := time.Duration(*c.SkewMS) * time.Millisecond; (got - tc.skew).Abs() > time.Second {
			t.Errorf("skew %s measured as %s", tc.skew, got)
		}
		if tc.verdict == Fail && (c.Problem != ClockSkew || !strings.Contains(c.Detail, "finality") || !strings.Contains(c.Fix, "NTP")) {
			t.Errorf("skew %s: %+v, want clock_skew saying why and how", tc.skew, c)
		}
		if tc.verdict == Fail && rep.Exit() != 1 {
			t.Errorf("skew %s: exit %d", tc.skew, rep.Exit())
		}
	}
	// with no answer to read a clock from, the clock is not checked
	env := newSimEnv(t, tuesday)
	rep := env.run(t, Options{Spec: env.spec(t, []string{"finnhub"}, "FINNHUB_API_KEY")})
	if c := one(t, rep, "clock", ""); c.Verdict != Warn || c.Problem != ClockUnchecked {
		t.Errorf("%+v, want clock_unchecked", c)
	}
}
