package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func withEnv(t *testing.T, vars map[string]string) {
	t.Helper()
	old := specGetenv
	specGetenv = func(k string) string { return vars[k] }
	t.Cleanup(func() { specGetenv = old })
}

func TestConfigCheckBuiltIn(t *testing.T) {
	withEnv(t, map[string]string{"ALPACA_API_KEY_ID": "id", "ALPACA_API_SECRET_KEY": "secret-value-1", "PYTH_API_KEY": "pyth-secret-2"})
	code, out, stderr := runCLI(t, "config", "check", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var v specView
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if !v.OK || v.File != "<built-in sources.yaml>" || v.Version != 1 || v.Job.ID != 2 || v.Job.ToleranceBps != 50 || v.Job.Quorum != 3 {
		t.Errorf("header %+v", v)
	}
	if v.Reconcile.MinSources != 2 || v.Reconcile.OutlierBps != 25 || v.Reconcile.MaxCarry != "4d" || strings.Join(v.Reconcile.Sessions, ",") != "pre,regular,post" {
		t.Errorf("reconcile %+v", v.Reconcile)
	}
	keys, finality := map[string]string{}, map[string]string{}
	for _, s := range v.Sources {
		keys[s.Name], finality[s.Name] = s.Keys, s.FinalAfter
	}
	// every source's final_after, each its provider's documented or conservative default
	for name, f := range map[string]string{"yahoo": "1m", "alpaca": "35s", "massive": "15m", "pyth": "1m", "fmp": "1m"} {
		if finality[name] != f {
			t.Errorf("%s final_after %q, want %q", name, finality[name], f)
		}
	}
	want := map[string]string{"yahoo": "not needed", "alpaca": "set", "pyth": "set", "massive": "missing", "fmp": "missing"}
	for name, k := range want {
		if keys[name] != k {
			t.Errorf("%s keys %q, want %q", name, keys[name], k)
		}
	}
	if len(v.Sources) != 9 || len(v.Feeds) != 3 || v.Feeds[0].Sources["pyth"] != "Equity.US.NVDA/USD" {
		t.Errorf("sources %d feeds %+v", len(v.Sources), v.Feeds)
	}
	if v.Splits["NVDA"] != "2024-06-10 10:1, 2021-07-20 4:1" || v.Splits["TSLA"] != "2022-08-25 3:1, 2020-08-31 5:1" {
		t.Errorf("splits %v", v.Splits)
	}
	if len(v.Warnings) != 6 {
		t.Errorf("warnings %v, want one per source without keys", v.Warnings)
	}
	if strings.Contains(out, "secret-value-1") || strings.Contains(out, "pyth-secret-2") {
		t.Errorf("a secret was printed")
	}
}

func TestConfigCheckTextAndSim(t *testing.T) {
	withEnv(t, nil)
	code, out, _ := runCLI(t, "config", "check", "--sim", "http://127.0.0.1:9")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, s := range []string{
		"job 2: answers × 10^8, tolerance 50 bps, quorum 3",
		"http://127.0.0.1:9/alpaca", "http://127.0.0.1:9/pyth",
		"NVDA: yahoo=NVDA alpaca=NVDA", "pyth=Equity.US.TSLA/USD",
		"NVDA: 2024-06-10 10:1, 2021-07-20 4:1",
		"ok: 9 of 9 sources usable",
		"FINAL AFTER",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "warnings:") {
		t.Errorf("with --sim every source has keys:\n%s", out)
	}
}

func TestConfigCheckProblems(t *testing.T) {
	withEnv(t, nil)
	path := filepath.Join(t.TempDir(), "sources.yaml")
	bad := "version: 1\nreconcile: {max_carry: forever}\nsources:\n  a: {type: alpaca, base_url: https://x, key_env: K, secret_env: S, feed: iexx}\n  b: {type: stooq, base_url: https://y}\nfeeds:\n  NVDA: {a: NVDA, c: NVDA}\n"
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "config", "check", "--config", path)
	if code != exitBadInput {
		t.Fatalf("exit %d", code)
	}
	for _, s := range []string{
		"4 problems in the spec",
		path + `:2: reconcile.max_carry: duration "forever"`,
		path + ":4: sources.a.feed: ",
		path + `:5: sources.b.type: unknown source type "stooq"`,
		path + `:7: feeds.NVDA.c: no source named "c" in sources`,
	} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	if out != "" {
		t.Errorf("stdout %q", out)
	}

	code, out, _ = runCLI(t, "config", "check", "--json", "--config", path)
	var v struct {
		OK     bool     `json:"ok"`
		Errors []string `json:"errors"`
	}
	if code != exitBadInput || json.Unmarshal([]byte(out), &v) != nil || v.OK || len(v.Errors) != 4 || !strings.HasPrefix(v.Errors[0], path+":2:") {
		t.Errorf("exit %d json %s", code, out)
	}

	code, _, stderr = runCLI(t, "config", "check", "--config", filepath.Join(t.TempDir(), "missing.yaml"))
	if code != exitBadInput || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing file: exit %d %s", code, stderr)
	}
}

// TestConfigPrefersLocalFile checks the lookup order: --config, then ./sources.yaml, then the
// built-in spec.
func TestConfigPrefersLocalFile(t *testing.T) {
	withEnv(t, nil)
	dir := t.TempDir()
	local := "version: 1\nsources: {y: {type: yahoo, base_url: 'https://local.example'}}\nfeeds: {NVDA: {y: NVDA}}\n"
	if err := os.WriteFile(filepath.Join(dir, "sources.yaml"), []byte(local), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, out, _ := runCLI(t, "config", "check")
	if code != exitOK || !strings.Contains(out, "https://local.example") || !strings.HasPrefix(out, "sources.yaml:") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
