package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/pgtest"
	"github.com/pricerig/pricerig/sources/sim"
)

// asMain is the variable that makes the test binary run pricerig's main instead of the tests:
// the tests below start real pricerig processes (two at once on one store, one to send SIGINT
// to) without building a second binary.
const asMain = "PRICERIG_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main() // exits
	}
	goEnv = os.Environ() // before XDG_CACHE_HOME moves: go build finds its build cache there
	// The commands' per-user bar cache: none for the commands the tests run in process (each
	// test's simulator is its own world), a throwaway one for the processes they start.
	userCache = func() (string, error) { return "", errNoCache }
	cache, err := os.MkdirTemp("", "pricerig-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	flag.Parse()
	run := flag.Lookup("test.run")
	early := !testing.Short() && run != nil && run.Value.String() == ""
	if early {
		// the whole package, end-to-end runs included: the failover and memory tests' pricerig
		// builds beside the tests before them instead of holding up the first that needs it
		go buildPricerig()
	}
	code := m.Run()
	pgtest.StopShared() // the cluster the PostgreSQL tests' databases share (pgtest.Shared)
	if early {
		buildPricerig() // waits for the build to end before its folder is removed
	}
	os.RemoveAll(cache)
	if binaryPath != "" && binaryPath != os.Args[0] {
		os.RemoveAll(filepath.Dir(binaryPath)) // the failover tests' pricerig build
	}
	os.Exit(code)
}

// proc is a pricerig process started by a test.
type proc struct {
	cmd         *exec.Cmd
	out, stderr bytes.Buffer
	done        chan struct{}
	err         error
}

// startPricerig starts pricerig with args as its own process; the test's cleanup kills it if it
// is still running.
func startPricerig(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Env = append(os.Environ(), asMain+"=1")
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits for the process to exit and returns its exit code; a process still running after
// limit fails the test (the bound is generous: it only keeps a hung process from hanging the
// test, it measures nothing).
func (p *proc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		t.Fatalf("pricerig %s still running after %s\nstderr: %s", strings.Join(p.cmd.Args[1:], " "), limit, p.stderr.String())
	}
	if p.cmd.ProcessState == nil {
		t.Fatalf("no process state: %v", p.err)
	}
	return p.cmd.ProcessState.ExitCode()
}

// processSim serves the simulator on the wall clock, for pricerig processes (which read the
// wall clock), and writes a spec of its three sources.
func processSim(t *testing.T) (url, config string) {
	t.Helper()
	srv := sim.New(sim.Options{Seed: 5})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	return hs.URL, processSpec(t)
}

// processSpec writes a spec of three simulated sources with no rate limit worth the name.
func processSpec(t *testing.T) string {
	t.Helper()
	config := filepath.Join(t.TempDir(), "sources.yaml")
	spec := `version: 1
reconcile: {min_sources: 2, outlier_bps: 25, max_carry: 96h, sessions: [pre, regular, post]}
sources:
  alpaca: {type: alpaca, base_url: https://data.alpaca.markets, key_env: ALPACA_API_KEY_ID, secret_env: ALPACA_API_SECRET_KEY, feed: iex, rate: 1000/s}
  massive: {type: massive, base_url: https://api.massive.com, key_env: MASSIVE_API_KEY, rate: 1000/s, delay: 0s}
  alphavantage: {type: alphavantage, base_url: https://www.alphavantage.co, key_env: ALPHAVANTAGE_API_KEY, rate: 1000/s, delay: 0s}
feeds:
  NVDA: {alpaca: NVDA, massive: NVDA, alphavantage: NVDA}
  TSLA: {alpaca: TSLA, massive: TSLA, alphavantage: TSLA}
  SPY: {alpaca: SPY, massive: SPY, alphavantage: SPY}
`
	if err := os.WriteFile(config, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

// dumpStore is the content of a store's data (a SQLite file or a PostgreSQL URL), one line per
// bar, coverage row and answer with its quotes, in key order: what two stores must share to
// hold the same history. The runs table (one row per run) is left out.
func dumpStore(t *testing.T, path string) string {
	t.Helper()
	ctx := context.Background()
	store, err := history.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var sb strings.Builder
	count := func(what string, n int) {
		if n == 0 {
			t.Fatalf("%s: none stored", what)
		}
	}
	n := 0
	err = store.Bars(ctx, "", "", time.Unix(0, 0), time.Unix(1<<40, 0), func(b history.StoredBar) error {
		n++
		fmt.Fprintln(&sb, b.Symbol, b.Start.Unix(), b.Source, int64(b.Close), b.Volume)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	count("bars", n)
	rows, err := store.DB().Query(`SELECT source, symbol, win_from, win_to, bars FROM coverage ORDER BY source, symbol, win_from`)
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for rows.Next() {
		var src, sym string
		var a, b, bars int64
		if err := rows.Scan(&src, &sym, &a, &b, &bars); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&sb, src, sym, a, b, bars)
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	count("coverage", n)
	n = 0
	err = store.Answers(ctx, history.Query{}, func(a history.Answer) error {
		n++
		fmt.Fprintf(&sb, "%s %d %s %v %d %d %d %v %q %q\n", a.Symbol, a.Minute.Unix(), a.Session, a.Agreed, a.Price, a.Median,
			a.Survivors, a.Complete, a.Reason, a.Rules)
		for _, q := range a.Quotes {
			fmt.Fprintf(&sb, "  %s %s %d %d %d %q\n", q.Source, q.Status, q.Price, q.BarTime.Unix(), q.DistanceCentiBps, q.Err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	count("answers", n)
	return sb.String()
}
