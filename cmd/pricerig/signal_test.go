package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources/sim"
)

// A file that is not a regular file is refused at once, not read: a FIFO would block the
// command in the kernel, where Ctrl-C cannot reach it, and /dev/zero would fill the memory.
// Each runs as its own process so that a command that blocks fails the test instead of hanging it.
func TestSpecialFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(dir, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(keys, "UTC--key"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("version: 1\n"+strings.Repeat("#", 2<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	rig := []string{"rig", "--rpc", "http://127.0.0.1:1", "--contract", "0x0000000000000000000000000000000000000001", "--keystore", keys}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"config from a FIFO", []string{"config", "check", "--config", fifo}, "a FIFO"},
		{"config from /dev/zero", []string{"price", "--config", "/dev/zero", "NVDA", "2025-11-03T14:30Z"}, "a character device"},
		{"a config too large", []string{"config", "check", "--config", big}, "file too large"},
		{"devnet config from a FIFO", []string{"devnet", "--config", fifo}, "a FIFO"},
		{"password from a FIFO", append(rig, "--password-file", fifo), "a FIFO"},
		{"password from /dev/zero", append(rig, "--password-file", "/dev/zero"), "a character device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startPricerig(t, tc.args...)
			if code := p.wait(t, time.Minute); code != exitBadInput || !strings.Contains(p.stderr.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q: want 2 and %q", code, p.stderr.String(), tc.want)
			}
		})
	}
}

// Ctrl-C and SIGTERM end a command that is waiting on its sources: the providers here never
// answer, and the signal arrives once the command has asked them.
func TestSignalsEndACommandWaitingOnItsSources(t *testing.T) {
	if testing.Short() {
		t.Skip("starts pricerig processes")
	}
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		args func(url, config string) []string
	}{
		{"price, SIGINT", syscall.SIGINT, func(url, config string) []string {
			return []string{"price", "--config", config, "--sim", url, "NVDA", "2026-10-05T14:30Z"}
		}},
		{"backfill, SIGTERM", syscall.SIGTERM, func(url, config string) []string {
			return []string{"backfill", "--config", config, "--sim", url, "--from", "2026-10-05", "--to", "2026-10-09", "--db", filepath.Join(t.TempDir(), "p.db"), "--progress", "off"}
		}},
		{"audit, SIGINT", syscall.SIGINT, func(url, config string) []string {
			return []string{"audit", "--config", config, "--sim", url, "--minutes", "3"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := sim.New(sim.Options{Seed: 5})
			hs := httptest.NewServer(srv)
			defer hs.Close()
			defer srv.Close()
			for _, p := range []string{"alpaca", "massive", "alphavantage"} {
				srv.SetFault(p, sim.FaultTimeout)
			}
			p := startPricerig(t, tc.args(hs.URL, processSpec(t))...)
			// wait until it has asked a source (it then waits on the answer)
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for srv.Requests("alpaca")+srv.Requests("massive")+srv.Requests("alphavantage") == 0 {
				select {
				case <-p.done:
					t.Fatalf("exited before asking a source: %s", p.stderr.String())
				case <-tick.C:
				}
			}
			if err := p.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			// The bound only keeps a process that ignores the signal from hanging the test; the
			// sources' own timeouts and retries would take far longer than it.
			if code := p.wait(t, 20*time.Second); code == exitOK {
				t.Fatalf("exit 0 after the signal: %s", p.stderr.String())
			}
		})
	}
}
