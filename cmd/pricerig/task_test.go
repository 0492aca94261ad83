package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pricerig/pricerig/rig/task"
)

func TestTaskCommand(t *testing.T) {
	good := `data:application/json,{"symbol":"NVDA","minute":"2026-11-27T15:30:00Z"}`
	goodHash := task.InputHash(good).Hex()
	tests := []struct {
		name      string
		args      []string
		code      int
		ok        bool
		symbol    string
		minute    string
		inputHash string
		errHas    string
	}{
		{"canonical", []string{"--input-uri", good}, 0, true, "NVDA", "2026-11-27T15:30:00Z", goodHash, ""},
		{"hash checked", []string{"--input-uri", good, "--input-hash", goodHash}, 0, true, "NVDA", "2026-11-27T15:30:00Z", goodHash, ""},
		{"unix seconds", []string{"--input-uri", `data:application/json,{"symbol":"SPY","minute":1795793400}`}, 0, true, "SPY", "2026-11-27T15:30:00Z", "", ""},
		{"hash mismatch", []string{"--input-uri", good, "--input-hash", "0x" + strings.Repeat("11", 32)}, 2, false, "", "", goodHash, "input hash does not match"},
		{"not a data URI", []string{"--input-uri", "https://example.com/x.json"}, 2, false, "", "", task.InputHash("https://example.com/x.json").Hex(), "not a data: URI"},
		{"unknown symbol", []string{"--input-uri", `data:application/json,{"symbol":"AAPL","minute":0}`}, 2, false, "", "", "", "unknown symbol"},
		{"own symbols", []string{"--input-uri", `data:application/json,{"symbol":"AAPL","minute":1795793400}`, "--symbols", "AAPL,MSFT"}, 0, true, "AAPL", "2026-11-27T15:30:00Z", "", ""},
		{"before the calendar", []string{"--input-uri", `data:application/json,{"symbol":"SPY","minute":0}`}, 2, false, "", "", "", "before the spec's calendar"},
		{"unaligned", []string{"--input-uri", `data:application/json,{"symbol":"TSLA","minute":61}`}, 2, false, "", "", "", "not aligned"},
		{"extra field", []string{"--input-uri", `data:application/json,{"symbol":"TSLA","minute":60,"x":1}`}, 2, false, "", "", "", "unexpected field"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append([]string{"task"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, stderr)
			}
			var got taskOutput
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("stdout %q: %v", out, err)
			}
			if got.OK != tc.ok || got.Symbol != tc.symbol || got.Minute != tc.minute || !strings.Contains(got.Error, tc.errHas) {
				t.Fatalf("got %+v", got)
			}
			if tc.inputHash != "" && got.InputHash != tc.inputHash {
				t.Fatalf("input_hash %s, want %s", got.InputHash, tc.inputHash)
			}
			if !tc.ok && !strings.Contains(stderr, tc.errHas) {
				t.Fatalf("stderr %q lacks %q", stderr, tc.errHas)
			}
			// The shipped spec answers every refused task 0, and says so; without a chain the
			// commit-window rule is not checked, and the verdict says that too.
			if got.Refused == tc.ok || got.WindowChecked {
				t.Fatalf("refused %v window_checked %v for ok %v", got.Refused, got.WindowChecked, tc.ok)
			}
			if !tc.ok {
				want := "this task would be answered 0: "
				if got.RefusalAnswer != "0" || got.Rule == "" || !strings.HasPrefix(got.Verdict, want) ||
					!strings.Contains(got.Verdict, tc.errHas) || !strings.Contains(stderr, want) {
					t.Fatalf("refusal %+v, stderr %q", got, stderr)
				}
			} else if !strings.Contains(got.Verdict, "commit-window rule was not checked") || !strings.Contains(stderr, "not checked") {
				t.Fatalf("verdict %q, stderr %q", got.Verdict, stderr)
			}
		})
	}
}

func TestTaskCommandBadFlags(t *testing.T) {
	for name, args := range map[string][]string{
		"no uri":        {"task"},
		"short hash":    {"task", "--input-uri", "data:application/json,{}", "--input-hash", "0x1234"},
		"hash not hex":  {"task", "--input-uri", "data:application/json,{}", "--input-hash", "0x" + strings.Repeat("zz", 32)},
		"stray operand": {"task", "--input-uri", "data:application/json,{}", "extra"},
		"uri and task":  {"task", "--input-uri", "data:application/json,{}", "--task", "1", "--rpc", "http://127.0.0.1:1", "--contract", "0x" + strings.Repeat("11", 20)},
		"task, no rpc":  {"task", "--task", "1", "--contract", "0x" + strings.Repeat("11", 20)},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runCLI(t, args...)
			if code != exitBadInput || stderr == "" {
				t.Fatalf("exit %d stderr %q", code, stderr)
			}
		})
	}
}
