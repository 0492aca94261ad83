package main

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/pricerig/pricerig/numeric"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

func TestCommitmentCommand(t *testing.T) {
	salt := "0x" + strings.Repeat("5a", 32)
	maxTask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	tests := []struct {
		task   string
		rig    string
		answer string
	}{
		{"1", "2", "17712000000"},
		{maxTask.String(), "18446744073709551615", "0x" + strings.Repeat("ab", 32)},
		{"0x2a", "0", "0"},
	}
	for _, tc := range tests {
		code, out, stderr := runCLI(t, "commitment", "--task", tc.task, "--rig", tc.rig, "--answer", tc.answer, "--salt", salt)
		if code != 0 {
			t.Fatalf("%+v: exit %d %s", tc, code, stderr)
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		task, _ := new(big.Int).SetString(tc.task, 0)
		rigID, _ := new(big.Int).SetString(tc.rig, 10)
		ans, _ := numeric.ParseAnswer(tc.answer)
		var s rigtask.Salt
		for i := range s {
			s[i] = 0x5a
		}
		want, err := rigtask.Commitment(task, rigID.Uint64(), ans, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got["commitment"] != want.Hex() {
			t.Fatalf("%+v: got %v, want %s", tc, got, want.Hex())
		}
	}
}

func TestCommitmentCommandBadInput(t *testing.T) {
	salt := "0x" + strings.Repeat("00", 32)
	tooBig := new(big.Int).Lsh(big.NewInt(1), 256).String()
	tests := map[string][]string{
		"task too big":      {"--task", tooBig, "--rig", "1", "--answer", "1", "--salt", salt},
		"task negative":     {"--task", "-1", "--rig", "1", "--answer", "1", "--salt", salt},
		"task hex negative": {"--task", "0x-1", "--rig", "1", "--answer", "1", "--salt", salt},
		"task words":        {"--task", "seven", "--rig", "1", "--answer", "1", "--salt", salt},
		"rig negative":      {"--task", "1", "--rig", "-1", "--answer", "1", "--salt", salt},
		"answer float":      {"--task", "1", "--rig", "1", "--answer", "177.12", "--salt", salt},
		"answer too big":    {"--task", "1", "--rig", "1", "--answer", tooBig, "--salt", salt},
		"salt short":        {"--task", "1", "--rig", "1", "--answer", "1", "--salt", "0x1234"},
		"salt no 0x":        {"--task", "1", "--rig", "1", "--answer", "1", "--salt", strings.Repeat("00", 32)},
		"salt missing":      {"--task", "1", "--rig", "1", "--answer", "1"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append([]string{"commitment"}, args...)...)
			if code != exitBadInput || out != "" || stderr == "" {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, stderr)
			}
		})
	}
}
