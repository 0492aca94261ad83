package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds/backfill"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources/sim"
)

// testClock is the one clock of a backfill test: the simulator, the commands and the backfill
// read it, and the backfill's waits advance it instead of sleeping.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.t = c.t.Add(max(d, 0))
	c.mu.Unlock()
	return ctx.Err()
}

// Until moves the clock to until, when it is earlier (a wait for finality, priceWait).
func (c *testClock) Until(ctx context.Context, until time.Time) error {
	c.mu.Lock()
	if until.After(c.t) {
		c.t = until
	}
	c.mu.Unlock()
	return ctx.Err()
}

// backfillSim serves the simulator on a fake clock that the commands share, and writes a spec of
// three sources that reach a year back, at a rate that does not hold the test back. Its bars are
// final the moment their minute ends (sim.Options.Instant, final_after 0): the backfill tests
// reach up to the clock and are about something else than finality.
func backfillSim(t *testing.T, now time.Time) (srv *sim.Server, url, config string) {
	t.Helper()
	clock := &testClock{t: now}
	srv = sim.New(sim.Options{Seed: 3, Now: clock.Now, Instant: true})
	hs := httptest.NewServer(srv)
	oldNow, oldClock := priceNow, backfillClock
	priceNow, backfillClock = clock.Now, clock
	t.Cleanup(func() { priceNow, backfillClock = oldNow, oldClock; srv.Close(); hs.Close() })
	config = filepath.Join(t.TempDir(), "sources.yaml")
	spec := `version: 1
reconcile: {min_sources: 2, outlier_bps: 25, max_carry: 96h, sessions: [pre, regular, post]}
sources:
  alpaca: {type: alpaca, base_url: https://data.alpaca.markets, key_env: ALPACA_API_KEY_ID, secret_env: ALPACA_API_SECRET_KEY, feed: iex, rate: 100/s, final_after: 0}
  massive: {type: massive, base_url: https://api.massive.com, key_env: MASSIVE_API_KEY, rate: 100/s, delay: 0s, final_after: 0}
  alphavantage: {type: alphavantage, base_url: https://www.alphavantage.co, key_env: ALPHAVANTAGE_API_KEY, rate: 100/s, delay: 0s, final_after: 0}
feeds:
  NVDA: {alpaca: NVDA, massive: NVDA, alphavantage: NVDA}
  TSLA: {alpaca: TSLA, massive: TSLA, alphavantage: TSLA}
  SPY: {alpaca: SPY, massive: SPY, alphavantage: SPY}
splits:
  NVDA: [{date: 2024-06-10, ratio: 10}, {date: 2021-07-20, ratio: 4}]
  TSLA: [{date: 2022-08-25, ratio: 3}, {date: 2020-08-31, ratio: 5}]
`
	if err := os.WriteFile(config, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv, hs.URL, config
}

func simRequests(srv *sim.Server) int {
	n := 0
	for _, p := range []string{"alpaca", "massive", "alphavantage"} {
		n += srv.Requests(p)
	}
	return n
}

func TestBackfillExportAndPriceFromTheStore(t *testing.T) {
	srv, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	db := filepath.Join(t.TempDir(), "prices.db")
	code, out, stderr := runCLI(t, "backfill", "--config", config, "--sim", url, "--from", "2025-10-30", "--to", "2025-11-03",
		"--symbols", "nvda,tsla", "--db", db, "--json", "--progress", "off")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct {
		From, To    time.Time
		Symbols     []string
		Windows     int
		Requests    int
		MinRequests int `json:"min_requests"`
		Bars        int64
		Minutes     int
		NoAgreement int `json:"no_agreement"`
		Incomplete  int
		Sources     []struct {
			Source   string
			Requests int
		}
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, out)
	}
	// the dates are New York's: from its midnight, through the whole of the last date
	if !sum.From.Equal(time.Date(2025, 10, 30, 4, 0, 0, 0, time.UTC)) || !sum.To.Equal(time.Date(2025, 11, 4, 5, 0, 0, 0, time.UTC)) {
		t.Errorf("range %s … %s", sum.From, sum.To)
	}
	// Thu, Fri, Mon of NVDA and TSLA, 960 minutes a day
	if sum.Minutes != 2*3*960 || sum.NoAgreement != 0 || sum.Incomplete != 0 {
		t.Errorf("minutes %d, no agreement %d, incomplete %d", sum.Minutes, sum.NoAgreement, sum.Incomplete)
	}
	if sum.Requests != sum.MinRequests || sum.Requests != simRequests(srv) || len(sum.Sources) != 3 {
		t.Errorf("requests %d, minimum %d, the simulator saw %d", sum.Requests, sum.MinRequests, simRequests(srv))
	}

	// export: one CSV row per answer, the tape's price
	code, out, stderr = runCLI(t, "backfill", "export", "--db", db, "--format", "csv", "--symbols", "NVDA")
	if code != exitOK {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "symbol,minute,price,price_e8,sources,agreed,complete,error_kind" || len(rows) != 1+3*960 {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	sessions := []market.Session{market.Pre, market.Regular, market.Post}
	for _, r := range rows[1:] {
		m, err := time.Parse(time.RFC3339, r[1])
		if err != nil || r[0] != "NVDA" || r[5] != "true" || r[6] != "true" {
			t.Fatalf("row %v", r)
		}
		if b, ok := srv.Tape().Bar("NVDA", m); ok && market.InSessions(m, sessions) {
			if r[3] != strconv.FormatInt(int64(b.Close), 10) || r[2] != b.Close.String() {
				t.Fatalf("row %v: the tape says %s", r, b.Close)
			}
			if !strings.Contains(r[4], "alpaca:ok:0.00") || strings.Count(r[4], ";") != 2 {
				t.Fatalf("row %v: sources", r)
			}
		}
	}
	// Parquet to a file: the same rows (feeds/history reads them back with Arrow's reader)
	pq := filepath.Join(t.TempDir(), "prices.parquet")
	code, _, stderr = runCLI(t, "backfill", "export", "--db", db, "--format", "parquet", "--symbols", "NVDA", "--out", pq)
	body, err := os.ReadFile(pq)
	if err != nil || code != exitOK || !strings.Contains(stderr, strconv.Itoa(len(rows)-1)+" answers written") || len(body) < 8 ||
		string(body[:4]) != "PAR1" || string(body[len(body)-4:]) != "PAR1" {
		t.Fatalf("parquet export: exit %d, stderr %q, %d bytes (%v)", code, stderr, len(body), err)
	}
	code, out, _ = runCLI(t, "backfill", "export", "--db", db, "--format", "jsonl", "--symbols", "TSLA", "--from", "2025-11-03T14:30Z", "--to", "2025-11-03T14:35Z")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != 5 {
		t.Fatalf("jsonl: exit %d, %d lines", code, len(lines))
	}
	var line struct {
		Symbol, Minute string
		Price          *string
		Scaled         *int64 `json:"price_e8"`
		Sources        []struct{ Source, Status, Price string }
	}
	if err := json.Unmarshal([]byte(lines[0]), &line); err != nil || line.Minute != "2025-11-03T14:30:00Z" || line.Price == nil || len(line.Sources) != 3 {
		t.Fatalf("jsonl line %s: %v", lines[0], err)
	}

	// price --db answers from the store, without a request, the same as the sources do
	before := simRequests(srv)
	code, out, stderr = runCLI(t, "price", "--config", config, "--sim", url, "--db", db, "--json", "TSLA", "2025-11-03T14:30Z")
	if code != exitOK {
		t.Fatalf("price --db: exit %d: %s", code, stderr)
	}
	stored := decodePrice(t, out)
	if stored.Store != db || simRequests(srv) != before {
		t.Errorf("price --db: store %q, %d requests", stored.Store, simRequests(srv)-before)
	}
	code, out, _ = runCLI(t, "price", "--config", config, "--sim", url, "--json", "TSLA", "2025-11-03T14:30Z")
	live := decodePrice(t, out)
	if code != exitOK || live.Store != "" || live.Price != stored.Price || live.Scaled != stored.Scaled || live.Answer != stored.Answer || *line.Price != live.Price {
		t.Errorf("live %s (%s), stored %s, exported %s", live.Price, live.Answer, stored.Price, *line.Price)
	}
	// a minute the store does not hold goes to the sources, and says so
	code, out, stderr = runCLI(t, "price", "--config", config, "--sim", url, "--db", db, "--json", "SPY", "2025-11-03T14:30Z")
	if code != exitOK || decodePrice(t, out).Store != "" || !strings.Contains(stderr, "does not hold the minute") {
		t.Errorf("SPY (not backfilled): exit %d, stderr %q", code, stderr)
	}

	// run again: nothing to fetch. The backfill's own count is the measure: the simulator may
	// still be counting requests of the early-stopped live price above.
	code, out, stderr = runCLI(t, "backfill", "--config", config, "--sim", url, "--from", "2025-10-30", "--to", "2025-11-03",
		"--symbols", "NVDA,TSLA", "--db", db, "--progress", "off", "--json")
	var again struct {
		Requests int `json:"requests"`
		Windows  int `json:"windows"`
	}
	if err := json.Unmarshal([]byte(out), &again); err != nil || code != exitOK || again.Requests != 0 || again.Windows != 0 {
		t.Errorf("re-run: exit %d, %+v (%v): %s", code, again, err, stderr)
	}
}

func TestBackfillBadInput(t *testing.T) {
	_, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	db := filepath.Join(t.TempDir(), "prices.db")
	base := []string{"backfill", "--config", config, "--sim", url, "--db", db, "--progress", "off"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"reversed", []string{"--from", "2025-11-03", "--to", "2025-11-01"}, "reversed range"},
		{"empty", []string{"--from", "2025-11-03T14:30Z", "--to", "2025-11-03T14:30Z"}, "empty range"},
		{"unknown symbol", []string{"--from", "2025-11-03", "--to", "2025-11-03", "--symbols", "NVDA,AAPL"}, `unknown symbol "AAPL"`},
		{"unknown source", []string{"--from", "2025-11-03", "--to", "2025-11-03", "--sources", "polygon"}, `unknown source "polygon"`},
		{"bad date", []string{"--from", "2025-13-03", "--to", "2025-11-03"}, "--from"},
		{"unaligned", []string{"--from", "2025-11-03T14:30:30Z", "--to", "2025-11-04"}, "--from"},
		{"bad session", []string{"--from", "2025-11-03", "--to", "2025-11-03", "--sessions", "lunch"}, "--sessions"},
		{"no from", []string{"--to", "2025-11-03"}, "from"},
		{"weekend", []string{"--from", "2025-11-01", "--to", "2025-11-02"}, "holds no minute"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append(base, tc.args...)...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q: want 2 and %q", code, stderr, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"format", []string{"backfill", "export", "--db", db, "--format", "xml"}, "--format"},
		{"no store", []string{"backfill", "export", "--db", filepath.Join(t.TempDir(), "none.db")}, "--db"},
		{"reversed", []string{"backfill", "export", "--db", db, "--from", "2025-11-04", "--to", "2025-11-03"}, "not after"},
	} {
		t.Run("export "+tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q: want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

func TestBackfillInterruptedExitsOneAndResumes(t *testing.T) {
	srv, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	db := filepath.Join(t.TempDir(), "prices.db")
	args := []string{"backfill", "--config", config, "--sim", url, "--from", "2025-10-30", "--to", "2025-11-03", "--symbols", "SPY", "--db", db, "--progress", "off"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C before the first window: the planning stops
	var out, errOut bytes.Buffer
	if code := run(ctx, args, strings.NewReader(""), &out, &errOut); code != exitFailure || !strings.Contains(errOut.String(), "run the same command again") {
		t.Fatalf("interrupted: exit %d, stderr %q", code, errOut.String())
	}
	if n := simRequests(srv); n != 0 {
		t.Errorf("interrupted while planning, yet %d requests were made", n)
	}
	code, out2, stderr := runCLI(t, args...)
	if code != exitOK || !strings.Contains(out2, "backfill done") || simRequests(srv) == 0 {
		t.Fatalf("resumed: exit %d: %s%s", code, out2, stderr)
	}
}

func TestProgressDisplays(t *testing.T) {
	p := backfill.Progress{Phase: "fetch", Sources: []backfill.SourceProgress{
		{Source: "alpaca", Windows: 87, Done: 40, Bars: 300000, Requests: 40, ETA: 47 * time.Second},
		{Source: "massive", Windows: 39, Done: 12, Bars: 250000, Requests: 13, RateLimited: 1, Waiting: 42 * time.Second},
	}}
	var buf bytes.Buffer
	d := newBarDisplay(&buf)
	d.draw(p)
	first := buf.String()
	for _, want := range []string{"alpaca", "(40/87)", "300000 bars", "ETA 47s", "massive", "(12/39)", "1×429", "waiting 42s for the rate limit"} {
		if !strings.Contains(first, want) {
			t.Errorf("bars %q: no %q", first, want)
		}
	}
	if strings.Contains(first, "\033[") {
		t.Errorf("the first draw moved the cursor: %q", first)
	}
	buf.Reset()
	fmt.Fprint(d, "time=… level=WARN msg=\"backfill window failed\"\n")
	p.Sources[0].Done = 41
	d.draw(p)
	again := buf.String()
	if !strings.HasPrefix(again, "\033[2A") || !strings.Contains(again, "backfill window failed") || !strings.Contains(again, "(41/87)") {
		t.Errorf("redraw %q: want the cursor moved up over both bars, the log line, then the bars", again)
	}

	buf.Reset()
	logProgress(slog.New(slog.NewTextHandler(&buf, nil)), p)
	logged := buf.String()
	for _, want := range []string{"source=alpaca", "windows=41/87", "eta=47s", "source=massive", "rate_limited=1"} {
		if !strings.Contains(logged, want) {
			t.Errorf("log %q: no %q", logged, want)
		}
	}
	buf.Reset()
	logProgress(slog.New(slog.NewTextHandler(&buf, nil)), backfill.Progress{Phase: "reconcile", Minutes: 4096, MinutesTotal: 8640})
	if !strings.Contains(buf.String(), "minutes=4096/8640") {
		t.Errorf("reconcile log %q", buf.String())
	}
}
