package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPriceHostileSourcesMemory is issue 11's goal: `price` over sources that all send endless
// 200 bodies stays under 200 MB of peak resident memory. It runs pricerig as a child process so
// the peak the kernel reports (its VmHWM) is the command's alone; the child is a build
// without the race detector (pricerigBinary), since the detector's shadow memory multiplies a
// process's RSS and CI runs the tests under -race. Every source asks in parallel; before bodies
// were capped by what the window can hold and a too-large body stopped being retried, each read
// 64 MiB up to three times.
func TestPriceHostileSourcesMemory(t *testing.T) {
	t.Parallel() // its own server and child process; waits for pricerigBinary's build
	if testing.Short() {
		t.Skip("starts a child process")
	}
	var requests atomic.Int64
	var written atomic.Int64
	chunk := bytes.Repeat([]byte("7"), 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"s":"ok","status":"OK","t":[`))
		for {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()

	cmd := exec.Command(pricerigBinary(t), "price", "--sim", srv.URL, "--json", "SPY", "2026-03-16T15:30:00Z")
	cmd.Env = append(os.Environ(), asMain+"=1") // in case pricerigBinary fell back to this test binary
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child's peak is its own VmHWM, read until it exits. getrusage's maxrss cannot tell it:
	// Linux carries the high-water mark across exec, and a child started from this (race-built,
	// long-running) test process inherits the parent's.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	var err error
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	for waiting := true; waiting; {
		select {
		case err = <-done:
			waiting = false
		case <-time.After(2 * time.Millisecond):
			if hwm := vmHWM(status); hwm > peak {
				peak = hwm
			}
		}
	}
	if code := cmd.ProcessState.ExitCode(); code != exitFailure {
		t.Fatalf("price: %v (exit %d), want exit 1 (no price)\n%s\n%s", err, code, stdout.String(), stderr.String())
	}
	if peak == 0 {
		t.Fatalf("never read the child's VmHWM from %s", status)
	}
	text := stdout.String()
	start := strings.Index(text, "{")
	end := strings.LastIndex(text, "}")
	if start < 0 || end < start {
		t.Fatalf("no JSON from price:\n%s", text)
	}
	var res struct {
		Sources []struct {
			Name  string `json:"source"`
			Error string `json:"error"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(text[start:end+1]), &res); err != nil {
		t.Fatalf("price --json: %v\n%s", err, text)
	}
	capped := 0
	for _, q := range res.Sources {
		if strings.Contains(q.Error, "bytes, all the window asked can hold") {
			capped++
		}
	}
	t.Logf("peak RSS %d MiB; %d requests; %d MiB written by the server; %d sources stopped at their cap", peak>>20, requests.Load(), written.Load()>>20, capped)
	if capped < 6 {
		t.Fatalf("only %d sources read a hostile body to its cap; the measure proves little:\n%s", capped, text)
	}
	if peak > 200<<20 {
		t.Errorf("peak RSS %d MiB, want under 200 MiB", peak>>20)
	}
}

// vmHWM is a process's peak resident set in bytes, from the VmHWM line of /proc/PID/status; 0
// when the file cannot be read (the process is gone).
func vmHWM(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
