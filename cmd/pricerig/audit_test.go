package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/devnet"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/sources/sim"
)

// auditNow is mid-morning of a regular session: every simulated source covers it except the two
// that publish a day late (massive, alphavantage), which the audit skips.
var auditNow = time.Date(2026, 11, 24, 15, 35, 30, 0, time.UTC)

// auditJSON is the part of `audit --json` the tests read.
type auditJSON struct {
	Healthy  bool `json:"healthy"`
	Exit     int  `json:"exit"`
	Findings []struct {
		Name, Source, Symbol, Address, Severity, Value string
		TaskID                                         uint64 `json:"task_id"`
	} `json:"findings"`
	Checks []struct {
		Name, State string
	} `json:"checks"`
	Window struct {
		Minutes []time.Time `json:"minutes"`
	} `json:"window"`
	Quotes []struct {
		Source, Symbol, Status, Price string
	} `json:"quotes"`
}

func decodeAudit(t *testing.T, out string) auditJSON {
	t.Helper()
	var r auditJSON
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON object:\n%s", out)
	}
	return r
}

// findingNames maps each finding name to whom it concerns.
func (r auditJSON) findingNames() map[string][]string {
	out := map[string][]string{}
	for _, f := range r.Findings {
		who := f.Source
		switch {
		case f.Address != "":
			who = f.Address
		case f.TaskID != 0:
			who = fmt.Sprintf("task %d", f.TaskID)
		case who == "":
			who = f.Symbol
		}
		if !slices.Contains(out[f.Name], who) {
			out[f.Name] = append(out[f.Name], who)
		}
	}
	for k := range out {
		sort.Strings(out[k])
	}
	return out
}

func TestAuditJSONOverTheSimulatorNamesEachFault(t *testing.T) {
	noEnv(t)
	srv, url := startSim(t, auditNow)
	srv.SetDriftBps("alpaca", 40)                              // 0.4 %
	srv.SetExtraSplit("tiingo", 2, auditNow.Add(24*time.Hour)) // a 2-for-1 split nobody recorded
	srv.SetFault("yahoo", sim.Fault5xx)                        // down
	srv.SetFault("twelvedata", sim.FaultUnauthorized)          // a refused key
	code, out, stderr := runCLI(t, "audit", "--json", "--sim", url)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1 (findings)\n%s", code, stderr)
	}
	r := decodeAudit(t, out)
	want := map[string][]string{
		"source_drift": {"alpaca"}, "probable_split": {"tiingo"}, "source_down": {"yahoo"}, "source_unauthorized": {"twelvedata"},
	}
	if got := r.findingNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	if r.Healthy || r.Exit != 1 {
		t.Errorf("healthy %v exit %d", r.Healthy, r.Exit)
	}
	for _, f := range r.Findings {
		if f.Name == "probable_split" && f.Value != "1/2" {
			t.Errorf("split ratio %q, want 1/2", f.Value)
		}
	}
	verdict := regexp.MustCompile(`pricerig: audit: \d+ findings \(([a-z_, ]+)\)`).FindStringSubmatch(stderr)
	if verdict == nil {
		t.Errorf("stderr %q lacks the one-line verdict", stderr)
	} else if got := strings.Split(verdict[1], ", "); len(got) != len(want) {
		t.Errorf("verdict names %v, want the %d names found", got, len(want))
	}
	// the untouched sources priced every minute exactly as the tape says
	for _, q := range r.Quotes {
		if q.Source != "pyth" && q.Source != "fmp" && q.Source != "finnhub" {
			continue
		}
		if q.Status != "ok" {
			t.Errorf("%s %s: %s", q.Source, q.Symbol, q.Status)
			continue
		}
		if _, err := numeric.ParsePrice(q.Price); err != nil {
			t.Errorf("%s price %q", q.Source, q.Price)
		}
	}
	if len(r.Window.Minutes) != 5 {
		t.Errorf("minutes %v, want the last five", r.Window.Minutes)
	}
}

func TestAuditHealthyText(t *testing.T) {
	noEnv(t)
	_, url := startSim(t, auditNow)
	code, out, stderr := runCLI(t, "audit", "--sim", url, "--minutes", "2", "--symbols", "spy")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"healthy", "sources", "ok 0.00", "no journal (--journal)", "SPY"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "NVDA") {
		t.Errorf("--symbol spy audited NVDA too:\n%s", out)
	}
}

// writeAuditJournal writes a near miss (task 1) and a slashed task (task 2), as the runner does.
func writeAuditJournal(t *testing.T, path string, minute time.Time) {
	t.Helper()
	j, err := rigjournal.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()
	ours := numeric.MustPrice("180.00")
	for id, median := range map[uint64]string{1: "180.54", 2: "181.80", 3: "180.05"} {
		if _, err := j.RecordAnswer(ctx, rigjournal.Entry{TaskID: id, RigID: 4, Symbol: "NVDA", Minute: minute, Price: ours, Answer: ours.Answer(), Salt: [32]byte{byte(id)}}); err != nil {
			t.Fatal(err)
		}
		err := j.Advance(ctx, id, 4, rigjournal.StateSettled, func(e *rigjournal.Entry) {
			stored := numeric.MustPrice(median).Answer()
			e.StoredAnswer, e.Agreed = stored, true
			e.Inside = numeric.WithinTolerance(numeric.AnswerInt(e.Answer), numeric.AnswerInt(stored), 50)
			e.RealizedCentiBps = rigjournal.StoredDistance(e.Answer, stored)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestAuditConfigJournalHistoryAndBalances(t *testing.T) {
	_, url := startSim(t, auditNow)
	dir := t.TempDir()
	// three sources at the simulator; finnhub's key is not set
	conf := filepath.Join(dir, "sources.yaml")
	yaml := fmt.Sprintf(`version: 1
job: {id: 2, scale: 8, tolerance_bps: 50, quorum: 3}
reconcile: {min_sources: 2, outlier_bps: 25, max_carry: 96h, sessions: [pre, regular, post]}
sources:
  yahoo: {type: yahoo, base_url: %[1]s/yahoo}
  pyth: {type: pyth, base_url: %[1]s/pyth, key_env: PYTH_API_KEY}
  finnhub: {type: finnhub, base_url: %[1]s/finnhub, key_env: FINNHUB_API_KEY}
feeds:
  NVDA: {yahoo: NVDA, pyth: Equity.US.NVDA/USD, finnhub: NVDA}
splits:
  NVDA: [{date: 2024-06-10, ratio: 10}]
`, url)
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	old := specGetenv
	specGetenv = func(name string) string {
		if name == "PYTH_API_KEY" {
			return sim.Key
		}
		return ""
	}
	t.Cleanup(func() { specGetenv = old })

	journal := filepath.Join(dir, "rig.db")
	writeAuditJournal(t, journal, auditNow.Add(-time.Hour).Truncate(time.Minute))

	poor, rich := common.HexToAddress("0x00000000000000000000000000000000000000aa"), common.HexToAddress("0x00000000000000000000000000000000000000bb")
	chain, err := devnet.StartChain(types.GenesisAlloc{
		poor: {Balance: big.NewInt(400_000_000_000_000)}, // 0.0004 ETH
		rich: {Balance: new(big.Int).Mul(big.NewInt(2), big.NewInt(1e18))},
	}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })

	// The journal stamps entries with the wall clock, which the simulated clock does not
	// follow: a window reaching back decades holds them whatever the real date.
	code, out, stderr := runCLI(t, "audit", "--json", "--config", conf, "--journal", journal, "--since", "175200h",
		"--rpc", chain.URL, "--address", poor.Hex(), "--address", rich.Hex())
	if code != exitFailure {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	r := decodeAudit(t, out)
	want := map[string][]string{
		"missing_key": {"finnhub"}, "near_miss": {"task 1"}, "slashed": {"task 2"}, "low_balance": {poor.Hex()},
	}
	if got := r.findingNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	states := map[string]string{}
	for _, c := range r.Checks {
		states[c.Name] = c.State
	}
	// revisions reads the rig's ledger beside --journal (rig.ledger.db), no --db needed
	if want := map[string]string{"sources": "findings", "rig": "findings", "balances": "findings", "history": "skipped", "revisions": "ok"}; !reflect.DeepEqual(states, want) {
		t.Errorf("checks %v, want %v", states, want)
	}
}

// audit --network checks the node's chain before it reads a balance: a node of another chain is
// bad input and nothing is checked; the right chain is audited as without --network.
func TestAuditNetworkChecksTheChainID(t *testing.T) {
	noEnv(t)
	_, url := startSim(t, auditNow)
	poor := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	chain, err := devnet.StartChain(types.GenesisAlloc{poor: {Balance: big.NewInt(1)}}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })
	args := []string{"audit", "--json", "--sim", url, "--minutes", "1", "--symbols", "SPY", "--rpc", chain.URL, "--address", poor.Hex()}

	code, out, stderr := runCLI(t, append(args, "--network", "robinhood-testnet")...)
	if code != exitBadInput || !strings.Contains(stderr, "46630") || !strings.Contains(stderr, "4663") {
		t.Fatalf("a devnet node (4663) audited as robinhood-testnet: exit %d, stderr %q; want 2 naming both chain ids", code, stderr)
	}
	if out != "" {
		t.Errorf("a refused audit printed a report: %q", out)
	}

	code, out, stderr = runCLI(t, append(args, "--network", "robinhood")...)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1 (a low balance)\n%s", code, stderr)
	}
	if got := decodeAudit(t, out).findingNames()["low_balance"]; !reflect.DeepEqual(got, []string{poor.Hex()}) {
		t.Errorf("low_balance %v, want %v", got, poor.Hex())
	}
}

func TestAuditCouldNotRun(t *testing.T) {
	noEnv(t)
	_, url := startSim(t, auditNow)
	// nothing listens on the RPC address: the balances check cannot run
	code, out, stderr := runCLI(t, "audit", "--json", "--sim", url, "--minutes", "1", "--symbols", "SPY",
		"--rpc", "http://127.0.0.1:1", "--address", "0x00000000000000000000000000000000000000aa")
	if code != exitBadInput {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	r := decodeAudit(t, out)
	for _, c := range r.Checks {
		if c.Name == "balances" && c.State != "error" {
			t.Errorf("balances check %s, want error", c.State)
		}
	}
	if !strings.Contains(stderr, "could not run: balances") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestAuditBadInput(t *testing.T) {
	noEnv(t)
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--minutes", "0"}, "--minutes"},
		{[]string{"--minutes", "3", "--since", "15m"}, "not both"},
		{[]string{"--since", "10s"}, "--since"},
		{[]string{"--near-miss", "150"}, "--near-miss"},
		{[]string{"--drift-bps", "abc"}, "--drift-bps"},
		{[]string{"--drift-bps", "1.234"}, "two decimals"},
		{[]string{"--min-balance", "-1"}, "--min-balance"},
		{[]string{"--address", "0x12"}, "not an address"},
		{[]string{"--address", "0x00000000000000000000000000000000000000aa"}, "needs --rpc"},
		{[]string{"--rpc", "http://127.0.0.1:1"}, "--address"},
		{[]string{"--network", "mars", "--rpc", "http://127.0.0.1:1", "--address", "0x00000000000000000000000000000000000000aa"}, "unknown network"},
		{[]string{"--network", "devnet", "--address", "0x00000000000000000000000000000000000000aa"}, "no public RPC"},
		{[]string{"--metrics", "127.0.0.1:0"}, "needs --schedule"},
		{[]string{"--schedule", "every day"}, "--schedule"},
		{[]string{"--journal", filepath.Join(dir, "none.db")}, "--journal"},
		{[]string{"--db", dir}, "directory"},
		{[]string{"--symbols", "AAPL"}, "--symbols AAPL"},
		{[]string{"--config", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"extra"}, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, stderr := runCLI(t, append([]string{"audit"}, tc.args...)...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
			if out != "" {
				t.Errorf("printed %q on bad input", out)
			}
			if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
				t.Error("a missing --journal was created")
			}
		})
	}
}

// lines delivers what a writer receives, line by line.
func lines(t *testing.T) (io.WriteCloser, <-chan string) {
	t.Helper()
	pr, pw := io.Pipe()
	ch := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			ch <- sc.Text()
		}
		close(ch)
	}()
	t.Cleanup(func() { pw.Close() })
	return pw, ch
}

func TestAuditScheduleServesMetrics(t *testing.T) {
	noEnv(t)
	srv, url := startSim(t, auditNow)
	srv.SetFault("yahoo", sim.Fault5xx)
	stdout, outLines := lines(t)
	stderr, errLines := lines(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"audit", "--sim", url, "--json", "--minutes", "1", "--symbols", "NVDA",
			"--schedule", "@every 1h", "--metrics", "127.0.0.1:0"}, strings.NewReader(""), stdout, stderr)
	}()
	metricsURL := regexp.MustCompile(`url=(http://\S+/metrics)`)
	var scrape string
	for line := range errLines {
		if m := metricsURL.FindStringSubmatch(line); m != nil {
			scrape = m[1]
			break
		}
	}
	if scrape == "" {
		t.Fatal("the metrics address was never logged")
	}
	go func() { // keep draining the log
		for range errLines {
		}
	}()
	first := <-outLines // the run at start-up, before any fire time
	var r auditJSON
	if err := json.Unmarshal([]byte(first), &r); err != nil {
		t.Fatalf("a scheduled report is one JSON object a line: %v\n%s", err, first)
	}
	if got := r.findingNames(); !reflect.DeepEqual(got, map[string][]string{"source_down": {"yahoo"}}) {
		t.Errorf("findings %v", got)
	}
	resp, err := http.Get(scrape)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`pricerig_audit_source_up{source="yahoo",symbol="NVDA"} 0`,
		`pricerig_audit_source_up{source="pyth",symbol="NVDA"} 1`,
		`pricerig_audit_source_distance_bps{source="pyth",symbol="NVDA"} 0`,
		`pricerig_audit_check_findings{check="sources"} 1`,
		`pricerig_audit_check_last_run_ok{check="sources"} 0`,
		// the exposition format prints the unix time in exponent notation
		fmt.Sprintf(`pricerig_audit_check_last_run_timestamp_seconds{check="sources"} %s`, strconv.FormatFloat(float64(auditNow.Unix()), 'g', -1, 64)),
		`pricerig_audit_findings{name="source_down"} 1`,
		`pricerig_audit_source_latency_seconds{source="pyth",symbol="NVDA"}`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(string(body), `check="rig"`) {
		t.Error("a skipped check exported gauges")
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d after the stop, want 0", code)
	}
}

func TestAuditHistoryGaps(t *testing.T) {
	noEnv(t)
	_, url := startSim(t, auditNow)
	path := filepath.Join(t.TempDir(), "prices.db")
	st, err := history.Open(path) // an empty store: every minute of the window is a gap
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, stderr := runCLI(t, "audit", "--json", "--sim", url, "--since", "10m", "--symbols", "TSLA", "--db", path)
	if code != exitFailure {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	r := decodeAudit(t, out)
	if got := r.findingNames(); !reflect.DeepEqual(got, map[string][]string{"history_gap": {"TSLA"}}) {
		t.Errorf("findings %v", got)
	}
}

// TestAuditRPCSecretsRedacted gives --rpc a URL that carries credentials in each place node
// providers put them (user:pass@, a /v3/KEY path, a key parameter); none may reach the JSON
// report, stderr, the --html report or the report kept in the journal, though the failed
// balances check quotes the URL (go-ethereum's errors carry it whole). The HTML file and the
// journal have no redacting writer in front of them: the report is redacted where the audit
// makes its texts.
func TestAuditRPCSecretsRedacted(t *testing.T) {
	noEnv(t)
	_, url := startSim(t, auditNow)
	const pass, key, param = "pw-sEcReT-4242", "0123456789abcdef0123456789abcdef", "tok-sEcReT-9898"
	rpc := "http://user:" + pass + "@127.0.0.1:1/v3/" + key + "?apikey=" + param
	dir := t.TempDir()
	journal, html := filepath.Join(dir, "rig.db"), filepath.Join(dir, "audit.html")
	writeAuditJournal(t, journal, auditNow.Add(-time.Hour).Truncate(time.Minute))
	code, out, stderr := runCLI(t, "audit", "--json", "--sim", url, "--minutes", "1", "--symbols", "SPY",
		"--rpc", rpc, "--address", "0x00000000000000000000000000000000000000aa", "--journal", journal, "--html", html)
	if code != exitBadInput {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	j, err := rigjournal.OpenJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	_, kept, ok, err := j.LastAudit(context.Background())
	if err != nil || !ok {
		t.Fatalf("no report kept in the journal (%v)", err)
	}
	for name, text := range map[string]string{"stdout": out, "stderr": stderr, "the HTML report": string(page), "the journal's report": string(kept)} {
		if !strings.Contains(text, "127.0.0.1:1") {
			t.Errorf("%s does not name the endpoint at all, so the check proves nothing:\n%s", name, text)
		}
		for _, s := range []string{pass, key, param} {
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%q in %s: …%s…", s, name, text[max(0, i-200):min(len(text), i+len(s)+100)])
			}
		}
	}
}
