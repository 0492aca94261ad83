package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The child process of TestPriceHostileSourcesMemory runs `price` against the URL in this
// variable and prints its stdout; the parent measures the child's peak RSS.
const hostileEnv = "PRICERIG_TEST_HOSTILE_URL"

// TestPriceHostileSourcesMemory is issue 11's goal: `price` over sources that all send endless
// 200 bodies stays under 200 MB of peak resident memory. It runs the command in a child process
// (this test binary again) so the peak the kernel reports (getrusage's maxrss) is the command's
// alone. Every source asks in parallel; before bodies were capped by what the window can hold
// and a too-large body stopped being retried, each read 64 MiB up to three times.
func TestPriceHostileSourcesMemory(t *testing.T) {
	if url := os.Getenv(hostileEnv); url != "" {
		priceNow = func() time.Time { return time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC) }
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"price", "--sim", url, "--json", "SPY", "2026-03-16T15:30:00Z"},
			strings.NewReader(""), &out, &errOut)
		os.Stdout.WriteString(out.String())
		os.Stderr.WriteString(errOut.String())
		if code != exitFailure {
			t.Fatalf("exit %d, want 1 (no price)", code)
		}
		return
	}
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

	cmd := exec.Command(os.Args[0], "-test.run=^TestPriceHostileSourcesMemory$", "-test.count=1")
	cmd.Env = append(os.Environ(), hostileEnv+"="+srv.URL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // kilobytes on Linux
	text := stdout.String()
	start := strings.Index(text, "{")
	end := strings.LastIndex(text, "}")
	if start < 0 || end < start {
		t.Fatalf("no JSON from price:\n%s", text)
	}
	var res struct {
		Sources []struct {
			Name  string `json:"name"`
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
