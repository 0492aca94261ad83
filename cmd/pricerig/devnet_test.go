package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDevnetCommandSettlesAndExitsZero(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	code, out, stderr := runCLI(t, "devnet", "--json", "--symbols", "nvda,spy", "--config", "../../sources.yaml")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, stderr)
	}
	var res struct {
		Agreed bool `json:"agreed"`
		Tasks  []struct {
			TaskID  uint64
			Agreed  bool
			Answer  string
			Reveals int
			Rigs    []struct{ RigID uint64 }
		} `json:"tasks"`
		Rigs []struct {
			Relayed bool `json:"relayed"`
		} `json:"rig_processes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if !res.Agreed || len(res.Tasks) != 2 || len(res.Rigs) != 3 || !res.Rigs[2].Relayed || res.Rigs[0].Relayed {
		t.Fatalf("%+v", res)
	}
	for _, task := range res.Tasks {
		if !task.Agreed || task.Reveals != 3 || len(task.Rigs) != 3 || !strings.Contains(task.Answer, ".") {
			t.Fatalf("task %+v", task)
		}
	}
}

func TestDevnetCommandRejectsABadMinute(t *testing.T) {
	code, _, stderr := runCLI(t, "devnet", "--minute", "2026-11-27T15:30:30Z")
	if code != exitBadInput || !strings.Contains(stderr, "--minute") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
