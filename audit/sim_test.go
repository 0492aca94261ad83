package audit

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// tuesday is mid-morning of a regular session: every simulated source covers it, except the
// two whose free plans publish a day late (massive, alphavantage), which are skipped.
var tuesday = mustTime("2026-11-24T15:35:30Z")

var symbols = []string{"NVDA", "TSLA", "SPY"}

func TestSimFaultsAreReportedByName(t *testing.T) {
	tests := []struct {
		name   string
		inject func(s *sim.Server, now time.Time)
		unset  []string // key variables left unset
		want   map[string][]string
		exit   int
	}{
		{name: "healthy", inject: func(*sim.Server, time.Time) {}, want: map[string][]string{}, exit: 0},
		{
			name:   "drift 0.4%",
			inject: func(s *sim.Server, _ time.Time) { s.SetDriftBps("alpaca", 40) },
			want:   map[string][]string{SourceDrift: {"alpaca"}}, exit: 1,
		},
		{
			name: "split the spec does not know",
			// a 2-for-1 split the day after: every audited minute is divided by 2
			inject: func(s *sim.Server, now time.Time) { s.SetExtraSplit("tiingo", 2, now.Add(24*time.Hour)) },
			want:   map[string][]string{ProbableSplit: {"tiingo"}}, exit: 1,
		},
		{
			name:   "down",
			inject: func(s *sim.Server, _ time.Time) { s.SetFault("yahoo", sim.Fault5xx) },
			want:   map[string][]string{SourceDown: {"yahoo"}}, exit: 1,
		},
		{
			name:   "truncated bodies",
			inject: func(s *sim.Server, _ time.Time) { s.SetFault("pyth", sim.FaultTruncated) },
			want:   map[string][]string{SourceDown: {"pyth"}}, exit: 1,
		},
		{
			name:   "unauthorized",
			inject: func(s *sim.Server, _ time.Time) { s.SetFault("twelvedata", sim.FaultUnauthorized) },
			want:   map[string][]string{SourceUnauthorized: {"twelvedata"}}, exit: 1,
		},
		{
			name: "rate limited",
			// one request a minute: the second and third symbol's requests get 429
			inject: func(s *sim.Server, _ time.Time) { s.SetRateLimit("fmp", 1) },
			want:   map[string][]string{SourceRateLimited: {"fmp"}}, exit: 1,
		},
		{
			name:   "missing key",
			inject: func(*sim.Server, time.Time) {},
			unset:  []string{"FINNHUB_API_KEY"},
			want:   map[string][]string{MissingKey: {"finnhub"}}, exit: 1,
		},
		{
			name: "everything at once",
			inject: func(s *sim.Server, now time.Time) {
				s.SetDriftBps("alpaca", 40)
				s.SetExtraSplit("tiingo", 2, now.Add(24*time.Hour))
				s.SetFault("yahoo", sim.Fault5xx)
				s.SetFault("twelvedata", sim.FaultUnauthorized)
			},
			unset: []string{"FINNHUB_API_KEY"},
			want: map[string][]string{
				SourceDrift: {"alpaca"}, ProbableSplit: {"tiingo"}, SourceDown: {"yahoo"},
				SourceUnauthorized: {"twelvedata"}, MissingKey: {"finnhub"},
			},
			exit: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newSimEnv(t, tuesday)
			tc.inject(env.sim, tuesday)
			a := env.auditor(t, Config{Spec: env.spec(t, tc.unset...)})
			rep := a.Run(context.Background())
			if got := names(rep.Findings); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
				for _, f := range rep.Findings {
					t.Logf("  %s %s: %s", f.Severity, f.Name, f.Message)
				}
			}
			if got := rep.ExitCode(); got != tc.exit {
				t.Errorf("exit %d, want %d", got, tc.exit)
			}
			c, _ := rep.Check(CheckSourcesName)
			wantState := CheckOK
			if len(tc.want) > 0 {
				wantState = CheckFindings
			}
			if c.State != wantState || c.Findings != len(rep.Findings) {
				t.Errorf("sources check %+v, want %s with %d findings", c, wantState, len(rep.Findings))
			}
			// the minutes are the last five closed ones
			if n := len(rep.Window.Minutes); n != DefaultMinutes || !rep.Window.Minutes[n-1].Equal(tuesday.Truncate(time.Minute).Add(-time.Minute)) {
				t.Errorf("minutes %v", rep.Window.Minutes)
			}
			// every source that priced a minute was exact against the tape, unless it was the
			// one made to drift or split
			tape := env.sim.Tape()
			for _, o := range rep.Sources.Observations {
				if !o.Status.Priced() {
					continue
				}
				bar, ok := tape.Bar(o.Symbol, o.BarTime)
				if !ok {
					t.Fatalf("%s %s: priced from a bar at %s the tape does not have", o.Source, o.Symbol, o.BarTime)
				}
				faulty := tc.want[SourceDrift] != nil && o.Source == "alpaca" || tc.want[ProbableSplit] != nil && o.Source == "tiingo"
				if !faulty && o.Price != bar.Close {
					t.Errorf("%s %s at %s: %s, the tape says %s", o.Source, o.Symbol, o.Minute, o.Price, bar.Close)
				}
			}
		})
	}
}

func TestSimDriftIsMeasuredAgainstTheTape(t *testing.T) {
	env := newSimEnv(t, tuesday)
	env.sim.SetDriftBps("alpaca", 40)
	a := env.auditor(t, Config{Spec: env.spec(t), Symbols: []string{"NVDA"}})
	rep := a.Run(context.Background())
	var dists []int64
	for _, o := range rep.Sources.Observations {
		if o.Source != "alpaca" {
			continue
		}
		if o.Status != StatusOutlier {
			t.Errorf("alpaca at %s: %s, want outlier (40 bps is past outlier_bps 25)", o.Minute, o.Status)
		}
		bar, _ := env.sim.Tape().Bar("NVDA", o.BarTime)
		dists = append(dists, numeric.DistanceCentiBps(o.Price, bar.Close))
	}
	if len(dists) != DefaultMinutes {
		t.Fatalf("%d alpaca observations, want %d", len(dists), DefaultMinutes)
	}
	slices.Sort(dists)
	var f Finding
	for _, x := range rep.Findings {
		if x.Name == SourceDrift {
			f = x
		}
	}
	want := dists[(len(dists)-1)/2]
	if f.Value != feeds.FormatCentiBps(want) || f.Severity != Alert || f.Count != DefaultMinutes || f.Of != DefaultMinutes {
		t.Errorf("drift finding %+v, want value %s (the tape's distance), alert, %d of %d", f, feeds.FormatCentiBps(want), DefaultMinutes, DefaultMinutes)
	}
	if want < 3990 || want > 4010 {
		t.Errorf("the simulator drifted alpaca by %d centi-bps, not about 40 bps", want)
	}
	if f.Limit != "12.50" {
		t.Errorf("limit %q, want half of outlier_bps 25", f.Limit)
	}
}

func TestSimSplitRatioAndDirection(t *testing.T) {
	env := newSimEnv(t, tuesday)
	env.sim.SetExtraSplit("tiingo", 10, tuesday.Add(24*time.Hour))
	a := env.auditor(t, Config{Spec: env.spec(t), Symbols: []string{"TSLA"}, Minutes: 3})
	rep := a.Run(context.Background())
	if got := names(rep.Findings); !reflect.DeepEqual(got, map[string][]string{ProbableSplit: {"tiingo"}}) {
		t.Fatalf("findings %v", got)
	}
	f := rep.Findings[0]
	if f.Value != "1/10" || f.Symbol != "TSLA" || f.Count != 3 || !strings.Contains(f.Message, "divides by 10") {
		t.Errorf("split finding %+v", f)
	}
}

func TestSimOneRequestPerSourceAndSymbol(t *testing.T) {
	env := newSimEnv(t, tuesday)
	a := env.auditor(t, Config{Spec: env.spec(t), Minutes: 10})
	rep := a.Run(context.Background())
	if !rep.Healthy() {
		t.Fatalf("findings: %v", names(rep.Findings))
	}
	for _, p := range []string{"yahoo", "alpaca", "twelvedata", "tiingo", "pyth", "finnhub", "fmp"} {
		if got := env.sim.Requests(p); got != len(symbols) {
			t.Errorf("%s: %d requests for 10 minutes of %d symbols, want one per symbol", p, got, len(symbols))
		}
	}
	for _, p := range []string{"massive", "alphavantage"} {
		if got := env.sim.Requests(p); got != 0 {
			t.Errorf("%s publishes a day late and should not be asked; %d requests", p, got)
		}
	}
	// a second run fetches again: nothing is remembered between runs
	env.sim.ResetCounts()
	env.clock.Sleep(context.Background(), time.Minute)
	a.Run(context.Background())
	if got := env.sim.Requests("yahoo"); got != len(symbols) {
		t.Errorf("second run: yahoo got %d requests, want %d", got, len(symbols))
	}
}

func TestSimSaturdayAuditsFridaysLastMinutes(t *testing.T) {
	// Friday 2026-11-20 is a full day: the post session ends 20:00 New York, 01:00 UTC Saturday.
	saturday := mustTime("2026-11-21T15:00:00Z")
	env := newSimEnv(t, saturday)
	a := env.auditor(t, Config{Spec: env.spec(t), Symbols: []string{"SPY"}, Minutes: 2})
	rep := a.Run(context.Background())
	want := []time.Time{mustTime("2026-11-21T00:58:00Z"), mustTime("2026-11-21T00:59:00Z")}
	if !reflect.DeepEqual(rep.Window.Minutes, want) {
		t.Fatalf("minutes %v, want %v", rep.Window.Minutes, want)
	}
	if !rep.Healthy() {
		t.Errorf("findings: %v", names(rep.Findings))
	}
	priced := 0
	for _, o := range rep.Sources.Observations {
		if o.Status.Priced() {
			priced++
		}
		// the post session: only sources covering it are asked
		if o.Status == StatusSkipped && !strings.Contains(o.Err, "session") && !strings.Contains(o.Err, "publishes") {
			t.Errorf("%s skipped for %q", o.Source, o.Err)
		}
	}
	if priced < 2*2 {
		t.Errorf("%d priced quotes over 2 minutes; the post session has at least two sources", priced)
	}
}

func TestSimJSONReport(t *testing.T) {
	env := newSimEnv(t, tuesday)
	env.sim.SetFault("yahoo", sim.Fault5xx)
	a := env.auditor(t, Config{Spec: env.spec(t), Minutes: 2})
	rep := a.Run(context.Background())
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Healthy  bool `json:"healthy"`
		Exit     int  `json:"exit"`
		Findings []struct {
			Name, Source, Severity string
		} `json:"findings"`
		Sources []struct {
			Source, Symbol, Status string
			Up                     *bool  `json:"up"`
			MaxDistanceBps         string `json:"max_distance_bps"`
		} `json:"sources"`
		Quotes []struct {
			Source, Status, Price string
			ErrorKind             string `json:"error_kind"`
		} `json:"quotes"`
		Checks []CheckResult `json:"checks"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Healthy || got.Exit != 1 || len(got.Findings) != 1 || got.Findings[0].Name != SourceDown || got.Findings[0].Source != "yahoo" {
		t.Errorf("healthy %v exit %d findings %+v", got.Healthy, got.Exit, got.Findings)
	}
	for _, s := range got.Sources {
		switch s.Source {
		case "yahoo":
			if s.Status != string(StatusDown) || s.Up == nil || *s.Up {
				t.Errorf("yahoo %s: status %s up %v", s.Symbol, s.Status, s.Up)
			}
		case "massive", "alphavantage":
			if s.Status != string(StatusSkipped) || s.Up != nil {
				t.Errorf("%s %s: status %s up %v, want skipped and no up", s.Source, s.Symbol, s.Status, s.Up)
			}
		default:
			if s.Status != string(StatusOK) || s.Up == nil || !*s.Up || s.MaxDistanceBps != "0.00" {
				t.Errorf("%s %s: %+v", s.Source, s.Symbol, s)
			}
		}
	}
	if want := 9 * 3 * 2; len(got.Quotes) != want {
		t.Errorf("%d quotes, want %d (9 sources × 3 symbols × 2 minutes)", len(got.Quotes), want)
	}
	for _, q := range got.Quotes {
		// a 5xx after the retries is unavailable, told by its kind in the report
		if want := map[bool]string{true: string(sources.KindUnavailable)}[q.Source == "yahoo"]; q.ErrorKind != want {
			t.Errorf("%s: error_kind %q, want %q", q.Source, q.ErrorKind, want)
		}
		if q.Status == string(StatusOK) {
			if _, err := numeric.ParsePrice(q.Price); err != nil {
				t.Errorf("%s price %q: %v", q.Source, q.Price, err)
			}
		}
	}
	states := map[string]CheckState{}
	for _, c := range got.Checks {
		states[c.Name] = c.State
	}
	want := map[string]CheckState{CheckSourcesName: CheckFindings, CheckRigName: CheckSkipped, CheckBalancesName: CheckSkipped, CheckHistoryName: CheckSkipped, CheckRevisionsName: CheckSkipped}
	if !reflect.DeepEqual(states, want) {
		t.Errorf("checks %v, want %v", states, want)
	}

	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 finding", "source_down", "yahoo", "down", "no journal", "NVDA"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
}

func TestSimPacedSourcesAuditFewerSymbols(t *testing.T) {
	env := newSimEnv(t, tuesday)
	spec := env.spec(t)
	for i, s := range spec.Sources {
		switch s.Name {
		// paces slower than the run's budget of 10 s (an hourly or daily rate is an allowance,
		// not a pace: it holds no symbol back)
		case "tiingo":
			spec.Sources[i].Rate = sources.Rate{N: 1, Per: time.Minute}
		case "fmp":
			spec.Sources[i].Rate = sources.Rate{N: 2, Per: time.Minute}
		}
	}
	// (a source that fits two requests in the budget would make the test wait on the real
	// clock its limiter reads, so every source here fits either one or all)
	a := env.auditor(t, Config{Spec: spec, PaceBudget: 10 * time.Second})
	rep := a.Run(context.Background())
	if !rep.Healthy() {
		t.Fatalf("findings %v", names(rep.Findings))
	}
	for p, want := range map[string]int{"tiingo": 1, "fmp": 1, "pyth": 3, "yahoo": 3} {
		if got := env.sim.Requests(p); got != want {
			t.Errorf("%s: %d requests, want %d", p, got, want)
		}
		audited := map[string]bool{}
		for _, o := range rep.Sources.Observations {
			if o.Source == p {
				audited[o.Symbol] = true
				if o.Status != StatusOK {
					t.Errorf("%s %s: %s %s", p, o.Symbol, o.Status, o.Err)
				}
			}
		}
		if len(audited) != want {
			t.Errorf("%s audited for %v, want %d symbols", p, audited, want)
		}
	}
	c, _ := rep.Check(CheckSourcesName)
	if strings.Contains(c.Detail, "pyth") {
		t.Errorf("detail %q names pyth, which served every symbol", c.Detail)
	}
	for _, want := range []string{"tiingo (one request per 1m0s", "fmp (one request per 30s"} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("detail %q lacks %q", c.Detail, want)
		}
	}
}
