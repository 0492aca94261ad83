package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/sim"
)

// TestSimPrintsSetupServesAndStops runs `pricerig sim` in-process on a free port, reads the base
// URLs it prints before serving, talks to two providers through them and stops it with the
// context, as Ctrl-C does.
func TestSimPrintsSetupServesAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"sim", "--addr", "127.0.0.1:0", "--seed", "7", "--rate-limit", "50", "--lag", "twelvedata=25s", "--revise", "all=40s", "--lag", "udf=-1m"},
			strings.NewReader(""), w, &stderr)
		w.Close()
	}()

	var printed []string
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		printed = append(printed, lines.Text())
		if strings.HasPrefix(lines.Text(), "serving;") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }() // nothing more is expected; never block the command
	text := strings.Join(printed, "\n")
	if !strings.Contains(text, "(seed 7)") {
		t.Fatalf("setup does not name the seed:\n%s", text)
	}

	baseLine := regexp.MustCompile(`^  ([a-z]+) +(http://127\.0\.0\.1:\d+/[a-z]+)  \((.+)\)$`)
	bases, published := map[string]string{}, map[string]string{}
	for _, l := range printed {
		if m := baseLine.FindStringSubmatch(l); m != nil {
			bases[m[1]], published[m[1]] = m[2], m[3]
		}
	}
	for _, p := range sim.Providers() {
		if !strings.HasSuffix(bases[p], "/"+p) {
			t.Fatalf("no base URL for %s in:\n%s", p, text)
		}
	}
	// when each provider serves a minute's bar: --lag and --revise over each one's default
	for p, want := range map[string]string{
		"twelvedata": "serves a bar 25s after its minute ends, provisional until 40s after it",
		"alpaca":     "serves a bar 1s after its minute ends, provisional until 40s after it", // its documented 1 s lag kept
		"udf":        "serves the minute in progress, provisional until 40s after it",
	} {
		if published[p] != want {
			t.Errorf("%s: %q, want %q", p, published[p], want)
		}
	}
	for _, line := range []string{"export ALPACA_API_KEY_ID=sim-key", "export ALPACA_API_SECRET_KEY=sim-secret", "export PYTH_API_KEY=sim-key"} {
		if !strings.Contains(text, line+"\n") {
			t.Fatalf("missing %q in:\n%s", line, text)
		}
	}

	// the sources block is YAML that names the same URLs and the env variables
	_, block, ok := strings.Cut(text, "sources.yaml:\n")
	if !ok {
		t.Fatalf("no sources.yaml block:\n%s", text)
	}
	block, _, _ = strings.Cut(block, "\n\nserving;")
	var cfg struct {
		Sources map[string]map[string]any `yaml:"sources"`
	}
	if err := yaml.Unmarshal([]byte(block), &cfg); err != nil {
		t.Fatalf("the sources block is not YAML: %v\n%s", err, block)
	}
	for _, p := range sim.Providers() {
		src := cfg.Sources[p]
		if src["type"] != p || src["base_url"] != bases[p] {
			t.Fatalf("source %s: %v, want type %s and base_url %s", p, src, p, bases[p])
		}
	}
	if cfg.Sources["alpaca"]["key_env"] != "ALPACA_API_KEY_ID" || cfg.Sources["alpaca"]["secret_env"] != "ALPACA_API_SECRET_KEY" ||
		cfg.Sources["massive"]["key_env"] != "MASSIVE_API_KEY" || cfg.Sources["yahoo"]["key_env"] != nil {
		t.Fatalf("credentials: %v", cfg.Sources)
	}

	// it serves: a keyed request answers with bars, an unkeyed one with the provider's refusal
	client := &http.Client{Timeout: 10 * time.Second}
	var from int64 // the opening of the last full trading day: the command's clock is the real one
	for d := 1; from == 0; d++ {
		if day := market.DayOf(time.Now().AddDate(0, 0, -d)); day.Trading {
			from = day.Open.Unix()
		}
	}
	resp, err := client.Get(bases["finnhub"] + "/api/v1/stock/candle?symbol=SPY&resolution=1&from=" +
		strconv.FormatInt(from, 10) + "&to=" + strconv.FormatInt(from+600, 10) + "&token=" + sim.Key)
	if err != nil {
		t.Fatal(err)
	}
	var candles struct {
		S string        `json:"s"`
		T []int64       `json:"t"`
		C []json.Number `json:"c"`
	}
	err = json.NewDecoder(resp.Body).Decode(&candles)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || candles.S != "ok" || len(candles.T) == 0 || len(candles.T) != len(candles.C) {
		t.Fatalf("finnhub through the printed base URL: HTTP %d %v %+v", resp.StatusCode, err, candles)
	}
	resp, err = client.Get(bases["alpaca"] + "/v2/stocks/bars?symbols=NVDA&timeframe=1Min")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("alpaca without keys: HTTP %d", resp.StatusCode)
	}

	cancel()
	select {
	case c := <-code:
		if c != exitOK {
			t.Fatalf("exit %d, stderr %s", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not stop when its context ended")
	}
	if !strings.Contains(stderr.String(), "stopped") {
		t.Fatalf("stderr %q", stderr.String())
	}
}

func TestSimBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--rate-limit", "-1"}, "--rate-limit"},
		{[]string{"sim", "--latency", "-5ms"}, "--latency"},
		{[]string{"sim", "--cache-for", "-1m"}, "--cache-for"},
		{[]string{"sim", "--addr", "nonsense"}, "--addr"},
		{[]string{"sim", "--seed", "x"}, "invalid argument"},
		{[]string{"sim", "extra"}, "unknown command"},
		{[]string{"sim", "--fault", "yahoo"}, "PROVIDER=VALUE"},
		{[]string{"sim", "--fault", "nowhere=5xx"}, "unknown provider"},
		{[]string{"sim", "--fault", "yahoo=melted"}, "unknown fault"},
		{[]string{"sim", "--fault", "yahoo=not-entitled"}, "yahoo has no recorded answer to a plan"},
		{[]string{"sim", "--date-skew", "soon"}, "invalid argument"},
		{[]string{"sim", "--drift", "alpaca=lots"}, "basis points"},
		{[]string{"sim", "--split", "tiingo=2"}, "RATIO@YYYY-MM-DD"},
		{[]string{"sim", "--split", "tiingo=1@2026-11-20"}, "RATIO@YYYY-MM-DD"},
		{[]string{"sim", "--lag", "yahoo"}, "PROVIDER=DURATION"},
		{[]string{"sim", "--lag", "nowhere=5s"}, "unknown provider"},
		{[]string{"sim", "--lag", "yahoo=-2m"}, "the minute in progress"},
		{[]string{"sim", "--revise", "all=-1s"}, "no revision"},
		{[]string{"sim", "--revise", "massive=soon"}, "PROVIDER=DURATION"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, stderr := runCLI(t, tc.args...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
			}
		})
	}
}

// A standalone simulator with injected faults: the audit, pointed at it, names each one.
func TestSimFaultFlagsReachTheAudit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"sim", "--addr", "127.0.0.1:0", "--instant", "--fault", "yahoo=5xx", "--drift", "alpaca=40",
			"--fault", "pyth=unauthorized"}, strings.NewReader(""), w, &stderr)
		w.Close()
	}()
	root := ""
	rootLine := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if m := rootLine.FindStringSubmatch(lines.Text()); m != nil && root == "" {
			root = m[1]
		}
		if strings.HasPrefix(lines.Text(), "serving;") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if root == "" {
		t.Fatalf("no root URL printed; stderr %s", stderr.String())
	}
	auditCode, report, auditErr := runCLI(t, "audit", "--json", "--sim", root, "--config", instantSpec(t), "--symbols", "NVDA", "--minutes", "3")
	if auditCode != exitFailure {
		t.Fatalf("audit exit %d:\n%s\n%s", auditCode, report, auditErr)
	}
	var rep struct {
		Findings []struct {
			Name   string `json:"name"`
			Source string `json:"source"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		t.Fatalf("%v in %s", err, report)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		got[f.Source] = f.Name
	}
	want := map[string]string{"yahoo": "source_down", "alpaca": "source_drift", "pyth": "source_unauthorized"}
	for src, name := range want {
		if got[src] != name {
			t.Errorf("%s: finding %q, want %q (all: %v)", src, got[src], name, got)
		}
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("sim exited %d: %s", c, stderr.String())
	}
}
