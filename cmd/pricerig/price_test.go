package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// startSim serves the provider simulator in-process with the commands' clock set to now, every
// bar final the moment its minute ends (the instant world: startLateSim has the real one).
func startSim(t *testing.T, now time.Time) (*sim.Server, string) {
	t.Helper()
	clock := func() time.Time { return now }
	srv := sim.New(sim.Options{Seed: 3, Now: clock, Instant: true})
	hs := httptest.NewServer(srv)
	old, oldInstant := priceNow, simInstant
	priceNow, simInstant = clock, true
	t.Cleanup(func() { priceNow, simInstant = old, oldInstant; srv.Close(); hs.Close() })
	return srv, hs.URL
}

// noEnv makes the spec's key variables read as unset.
func noEnv(t *testing.T) {
	t.Helper()
	old := specGetenv
	specGetenv = func(string) string { return "" }
	t.Cleanup(func() { specGetenv = old })
}

// tapeAt is the simulator's raw tape read by the price-at-minute rule of the shipped spec's
// sessions: the bar at m, else the latest earlier one (within a week, more than max_carry needs).
func tapeAt(t *testing.T, srv *sim.Server, symbol string, m time.Time) sources.Bar {
	t.Helper()
	sessions := []market.Session{market.Pre, market.Regular, market.Post}
	for x := m; x.After(m.Add(-7 * 24 * time.Hour)); x = x.Add(-time.Minute) {
		if !market.InSessions(x, sessions) {
			continue
		}
		if b, ok := srv.Tape().Bar(symbol, x); ok {
			return b
		}
	}
	t.Fatalf("no %s bar in the week before %s", symbol, m)
	return sources.Bar{}
}

func decodePrice(t *testing.T, out string) priceOutput {
	t.Helper()
	var p priceOutput
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	return p
}

func TestPriceJSONOverTheSimulator(t *testing.T) {
	noEnv(t)
	m := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC) // Black Friday, 10:30 EST
	srv, url := startSim(t, m.Add(26*time.Hour))
	for _, symbol := range []string{"NVDA", "TSLA", "SPY"} {
		t.Run(symbol, func(t *testing.T) {
			bar := tapeAt(t, srv, symbol, m)
			code, out, stderr := runCLI(t, "price", "--json", "--sim", url, strings.ToLower(symbol), "2026-11-27T15:30Z")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			p := decodePrice(t, out)
			if p.Symbol != symbol || p.Minute != "2026-11-27T15:30:00Z" || !p.Agreed {
				t.Errorf("header %+v", p)
			}
			if p.Price != bar.Close.String() || p.Scaled != int64(bar.Close) || p.Answer != numeric.AnswerHex(bar.Close.Answer()) {
				t.Errorf("price %s price_e8 %d answer_bytes32 %s, want the tape's %s", p.Price, p.Scaled, p.Answer, bar.Close)
			}
			if len(p.Sources) != 9 {
				t.Fatalf("%d sources, want every source of the spec", len(p.Sources))
			}
			priced := 0
			for _, q := range p.Sources {
				if q.Price != nil {
					priced++
					if *q.Price != bar.Close.String() || q.BarTime == nil || *q.BarTime != bar.Start.Format(time.RFC3339) || q.DistanceBps == nil || *q.DistanceBps != "0.00" {
						t.Errorf("%s: %+v", q.Name, q)
					}
				}
			}
			if priced < 2 {
				t.Errorf("only %d sources priced", priced)
			}
			if !strings.Contains(out, `"source":"pyth","symbol":"Equity.US.`+symbol+`/USD"`) {
				t.Errorf("pyth's provider symbol missing: %s", out)
			}
		})
	}
}

// A failed request's kind reaches --json as error_kind: a program tells a wrong key from a
// broken body without reading the error's words.
func TestPriceJSONSaysTheKindOfEachFailure(t *testing.T) {
	noEnv(t)
	m := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	srv, url := startSim(t, m.Add(26*time.Hour))
	srv.SetFault("twelvedata", sim.FaultUnauthorized)
	srv.SetFault("tiingo", sim.FaultTruncated)
	// every source answers: no early quorum leaves a failing one pending
	spec := strings.Replace(string(pricerig.DefaultSpec), "early_quorum: 0", "early_quorum: all", 1)
	if spec == string(pricerig.DefaultSpec) {
		t.Fatal("the built-in spec has no early_quorum: 0 to replace")
	}
	file := filepath.Join(t.TempDir(), "sources.yaml")
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "price", "--json", "--config", file, "--sim", url, "NVDA", "2026-11-27T15:30Z")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := map[string]sources.ErrorKind{"twelvedata": sources.KindUnauthorized, "tiingo": sources.KindBadResponse}
	for _, q := range decodePrice(t, out).Sources {
		if q.ErrorKind != want[q.Name] {
			t.Errorf("%s: status %s error_kind %q (%s), want %q", q.Name, q.Status, q.ErrorKind, q.Error, want[q.Name])
		}
	}
	if !strings.Contains(out, `"error_kind":"unauthorized"`) {
		t.Errorf("no snake_case error_kind in %s", out)
	}
}

func TestPriceTable(t *testing.T) {
	noEnv(t)
	m := time.Date(2026, 11, 28, 15, 30, 0, 0, time.UTC) // Saturday
	srv, url := startSim(t, m.Add(26*time.Hour))
	want := tapeAt(t, srv, "NVDA", m)
	code, out, stderr := runCLI(t, "price", "--sim", url, "NVDA", "1795879800") // unix seconds of the Saturday minute
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{
		"outside the sessions, priced at the last in-session minute 2026-11-27T21:59:00Z (post)",
		"SOURCE", "twelvedata", "not_covered", "carried",
		"answer: " + want.Close.String(),
		"bytes32: " + numeric.AnswerHex(want.Close.Answer()),
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

func TestPriceExitCodes(t *testing.T) {
	noEnv(t)
	m := time.Date(2026, 11, 24, 15, 30, 0, 0, time.UTC)
	srv, url := startSim(t, m.Add(26*time.Hour))
	tests := []struct {
		name    string
		args    []string
		setup   func()
		code    int
		stderr  string
		jsonOut bool
	}{
		{"unknown symbol", []string{"AAPL", "2026-11-24T15:30Z"}, nil, exitBadInput, `unknown symbol "AAPL": the spec has NVDA, TSLA, SPY`, false},
		{"malformed minute", []string{"NVDA", "yesterday"}, nil, exitBadInput, "minute: not a time", false},
		{"unaligned minute", []string{"NVDA", "2026-11-24T15:30:20Z"}, nil, exitBadInput, "not aligned to 60 s", false},
		{"unaligned unix seconds", []string{"NVDA", "1795793401"}, nil, exitBadInput, "not aligned to 60 s", false},
		{"a future minute", []string{"NVDA", "2026-12-01T15:30Z"}, nil, exitFailure, "minute has not closed yet", false},
		{"too few arguments", []string{"NVDA"}, nil, exitBadInput, "accepts 2 arg", false},
		{"bad --sim", []string{"--sim", "localhost:1", "NVDA", "2026-11-24T15:30Z"}, nil, exitBadInput, "--sim", false},
		{"all sources down", []string{"--json", "NVDA", "2026-11-24T15:30Z"}, func() {
			for _, p := range sim.Providers() {
				srv.SetFault(p, sim.FaultUnauthorized)
			}
		}, exitFailure, "no price for NVDA at 2026-11-24T15:30:00Z: no source gave a price", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			args := append([]string{"price"}, tc.args...)
			if !strings.HasPrefix(tc.name, "bad --sim") {
				args = append([]string{"price", "--sim", url}, tc.args...)
			}
			code, out, stderr := runCLI(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d stderr %q, want %d and %q", code, stderr, tc.code, tc.stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("the reason must be one line: %q", stderr)
			}
			if tc.jsonOut {
				p := decodePrice(t, out)
				if p.Agreed || p.Price != "" || p.Answer != "" || p.Reason == "" || len(p.Sources) != 9 {
					t.Errorf("no-answer JSON %+v", p)
				}
				// the fetch stops once no answer is possible: the rest are pending
				errs := 0
				for _, q := range p.Sources {
					switch {
					case q.Status == "error" && strings.Contains(q.Error, "unauthorized"):
						errs++
					case q.Status == "pending" && strings.HasPrefix(q.Error, "stopped: only"):
					default:
						t.Errorf("%s: %s %q", q.Name, q.Status, q.Error)
					}
				}
				if errs < 8 {
					t.Errorf("%d sources reported the fault, want at least 8 of 9", errs)
				}
			} else if code != exitOK && out != "" {
				t.Errorf("stdout on failure: %q", out)
			}
		})
	}
}

func TestPriceConfigProblemsAreBadInput(t *testing.T) {
	noEnv(t)
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("version: 1\nsources:\n  y: {type: yahoo, base_url: https://x, rate: 200/mn}\nfeeds: {NVDA: {y: NVDA, z: NVDA}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "price", "--config", path, "NVDA", "2026-11-24T15:30Z")
	if code != exitBadInput {
		t.Fatalf("exit %d", code)
	}
	for _, s := range []string{"2 problems in the spec", path + `:3: sources.y.rate: rate "200/mn"`, path + `:4: feeds.NVDA.z: no source named "z"`} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
}
