package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/shopspring/decimal"

	"github.com/pricerig/pricerig/rig/devnet"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/sources/sim"
)

// doctorJSON is what the tests read of `doctor --json`.
type doctorJSON struct {
	Exit   int            `json:"exit"`
	Counts map[string]int `json:"counts"`
	Checks []doctorCheck  `json:"checks"`
	Kept   string         `json:"kept"`
}

type doctorCheck struct {
	Check, Subject, Verdict, Problem, Detail, Fix string
	ErrorKind                                     string `json:"error_kind"`
}

func decodeDoctor(t *testing.T, out string) doctorJSON {
	t.Helper()
	var r doctorJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: %v in %q", err, out)
	}
	return r
}

// verdicts is each check (with its subject) as "verdict problem".
func (r doctorJSON) verdicts() map[string]string {
	out := map[string]string{}
	for _, c := range r.Checks {
		key := c.Check
		if c.Subject != "" {
			key += " " + c.Subject
		}
		out[key] = strings.TrimSpace(c.Verdict + " " + c.Problem)
	}
	return out
}

// doctorSpec writes a sources.yaml of simulated providers (each NVDA) and returns its path.
func doctorSpec(t testing.TB, url string, providers ...string) string {
	t.Helper()
	envs := map[string]string{"yahoo": "", "finnhub": "FINNHUB_API_KEY", "fmp": "FMP_API_KEY", "twelvedata": "TWELVEDATA_API_KEY", "pyth": "PYTH_API_KEY"}
	var b strings.Builder
	b.WriteString("version: 1\nsources:\n")
	for _, p := range providers {
		fmt.Fprintf(&b, "  %s: {type: %s, base_url: %s/%s", p, p, url, p)
		if envs[p] != "" {
			fmt.Fprintf(&b, ", key_env: %s", envs[p])
		}
		b.WriteString("}\n")
	}
	b.WriteString("feeds:\n  NVDA: {")
	for i, p := range providers {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %q", p, sim.ProviderSymbol(p, "NVDA"))
	}
	b.WriteString("}\n")
	path := filepath.Join(t.TempDir(), "sources.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// withKeys makes the named key variables read as the simulator's key, every other as unset.
func withKeys(t *testing.T, names ...string) {
	t.Helper()
	old := specGetenv
	specGetenv = func(name string) string {
		for _, n := range names {
			if n == name {
				return sim.Key
			}
		}
		return ""
	}
	t.Cleanup(func() { specGetenv = old })
}

// The test: a simulator with one healthy source, one source whose key is not set, one
// whose plan is refused and one down. doctor --json exits 1 and names each.
func TestDoctorJSONNamesEachSourceFault(t *testing.T) {
	srv, url := startSim(t, auditNow)
	srv.SetFault("fmp", sim.FaultNotEntitled)
	srv.SetFault("twelvedata", sim.Fault5xx)
	withKeys(t, "FMP_API_KEY", "TWELVEDATA_API_KEY") // FINNHUB_API_KEY is not set
	code, out, stderr := runCLI(t, "doctor", "--json", "--config", doctorSpec(t, url, "yahoo", "finnhub", "fmp", "twelvedata"))
	if code != exitFailure {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	r := decodeDoctor(t, out)
	got := r.verdicts()
	want := map[string]string{
		"source yahoo": "ok", "bar_age yahoo": "ok",
		"source finnhub":    "fail missing_key",
		"source fmp":        "fail plan_refused",
		"source twelvedata": "fail unreachable",
		"clock":             "ok",
		// what each may still send, and the breaker the plan refusal opened
		"quota yahoo": "ok", "quota twelvedata": "ok",
		"quota fmp": "warn breaker_open",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("checks %v, want %v", got, want)
	}
	for _, c := range r.Checks {
		if c.Check != "source" {
			continue
		}
		switch c.Subject {
		case "finnhub":
			if !strings.Contains(c.Detail, "FINNHUB_API_KEY") || !strings.Contains(c.Fix, "FINNHUB_API_KEY") {
				t.Errorf("missing key names no variable: %+v", c)
			}
		case "fmp":
			if c.ErrorKind != "unauthorized" || !strings.Contains(c.Detail, "HTTP 402") {
				t.Errorf("plan refusal: %+v", c)
			}
		case "twelvedata":
			if c.ErrorKind != "unavailable" {
				t.Errorf("down: %+v", c)
			}
		}
	}
	if r.Exit != 1 || r.Counts["fail"] != 3 || r.Counts["warn"] != 1 || r.Counts["ok"] != 5 {
		t.Errorf("exit %d, counts %v", r.Exit, r.Counts)
	}
	if !strings.Contains(stderr, "doctor: 3 checks failed (missing_key, plan_refused, unreachable)") {
		t.Errorf("stderr %q", stderr)
	}
}

// The text report: one line a check, the verdict first; all ok is exit 0.
func TestDoctorTextAllOK(t *testing.T) {
	_, url := startSim(t, auditNow)
	withKeys(t, "PYTH_API_KEY")
	code, out, stderr := runCLI(t, "doctor", "--config", doctorSpec(t, url, "yahoo", "pyth"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 8 || !strings.HasPrefix(lines[0], "pricerig doctor at 2026-11-24T15:35:30Z: 0 fail, 0 warn, 7 ok") {
		t.Fatalf("report:\n%s", out)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "ok ") {
			t.Errorf("line %q", l)
		}
	}
}

// A skewed clock, simulated through the providers' Date headers, fails the run and says why.
func TestDoctorClockSkew(t *testing.T) {
	srv, url := startSim(t, auditNow)
	srv.SetDateSkew(45 * time.Second)
	code, out, _ := runCLI(t, "doctor", "--json", "--config", doctorSpec(t, url, "yahoo"))
	r := decodeDoctor(t, out)
	if code != exitFailure || r.verdicts()["clock"] != "fail clock_skew" {
		t.Fatalf("exit %d, checks %v", code, r.verdicts())
	}
}

func TestDoctorBadInput(t *testing.T) {
	noEnv(t)
	_, url := startSim(t, auditNow)
	conf := doctorSpec(t, url, "yahoo")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tasks-per-day", "0"}, "--tasks-per-day"},
		{[]string{"--max-skew", "0s"}, "--max-skew"},
		{[]string{"--journal", " "}, "--journal: an empty path"},
		{[]string{"--key-env", "K"}, "the keys are checked on a chain"},
		{[]string{"--network", "moon", "--contract", "0x00000000000000000000000000000000000000c0"}, "unknown network"},
		{[]string{"--network", "devnet", "--contract", "0x00000000000000000000000000000000000000c0"}, "no public RPC"},
		{[]string{"--rpc", "http://127.0.0.1:1", "--contract", "nope"}, "--contract \"nope\" is not an address"},
		{[]string{"--rpc", "http://127.0.0.1:1"}, "no AgentRig address"},
		{[]string{"--rpc", "http://127.0.0.1:1", "--contract", "0x00000000000000000000000000000000000000c0", "--keystore", "k", "--key-env", "K"}, "not both"},
		{[]string{"extra"}, "unknown command"},
	} {
		code, out, stderr := runCLI(t, append([]string{"doctor", "--config", conf}, tc.args...)...)
		if code != exitBadInput || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 saying %q", tc.args, code, out, stderr, tc.want)
		}
	}
}

// Over JSON-RPC: a node of another chain is wrong_chain, an address without code no_contract,
// a node that does not answer chain_unreachable (its URL's key never shown); each a failure,
// none bad input.
func TestDoctorChainOverRPC(t *testing.T) {
	_, url := startSim(t, auditNow)
	conf := doctorSpec(t, url, "yahoo")
	chain, err := devnet.StartChain(types.GenesisAlloc{common.HexToAddress("0xaa"): {Balance: big.NewInt(1)}}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })
	nobody := "0x00000000000000000000000000000000000000c0"
	for _, tc := range []struct {
		args  []string
		check string
		want  string
	}{
		{[]string{"--network", "robinhood-testnet", "--rpc", chain.URL, "--contract", nobody}, "chain_id robinhood-testnet", "fail wrong_chain"},
		{[]string{"--network", "devnet", "--rpc", chain.URL, "--contract", nobody}, "contract " + common.HexToAddress(nobody).Hex(), "fail no_contract"},
		{[]string{"--network", "devnet", "--rpc", "http://127.0.0.1:1/v3/doctorsecret0123", "--contract", nobody}, "chain_id devnet", "fail chain_unreachable"},
		// several endpoints (issue 36): the pool reaches the chain through the one that answers,
		// and each endpoint is a line of its own
		{[]string{"--network", "devnet", "--rpc", chain.URL + ",http://127.0.0.1:1/v3/doctorsecret0123", "--contract", nobody}, "rpc_endpoint " + chain.URL, "ok"},
		{[]string{"--network", "devnet", "--rpc", "http://127.0.0.1:1/v3/doctorsecret0123", "--rpc", chain.URL, "--contract", nobody}, "contract " + common.HexToAddress(nobody).Hex(), "fail no_contract"},
	} {
		// the devnet's chain runs ahead of the wall clock (a second a block at least); the
		// clock is not what this test is about
		code, out, stderr := runCLI(t, append([]string{"doctor", "--json", "--config", conf, "--max-skew", "24h"}, tc.args...)...)
		if code != exitFailure {
			t.Fatalf("%v: exit %d\n%s", tc.args, code, stderr)
		}
		if got := decodeDoctor(t, out).verdicts(); got[tc.check] != tc.want {
			t.Errorf("%v: %s is %q, want %q (%v)", tc.args, tc.check, got[tc.check], tc.want, got)
		}
		if strings.Contains(out+stderr, "doctorsecret0123") {
			t.Errorf("the RPC URL's key is in the output:\n%s", out)
		}
	}
}

// A devnet whose rigs answered a task, at 1 gwei a gas: the doctor, given the first rig's
// operator key and journal, finds the chain, the contract, job 2, the rig, its gas measured by
// its commit and reveal and its share of the task's draw and settle (about 280k gas under
// Osaka's rules: a task's 0.000003 ETH breaks even near 0.0105 gwei, so at 1 gwei a warning that
// it loses money, and exit 0) and the journal current, and keeps its report there for the operator's page.
func TestDoctorOnADevnetThatAnswered(t *testing.T) {
	// 1 gwei a gas: about 95 times job 2's break-even on the devnet (BENCHMARKS.md: a lone rig's
	// answer with its share of draw and settle breaks even at 0.0105 gwei), so the doctor must warn
	c := startChainT(t, devnet.Options{GasPrice: big.NewInt(1_000_000_000)})
	ids, err := c.d.Order(c.ctx, []string{"NVDA"}, devnet.DefaultMinute(time.Now(), c.d.Spec.Rules.Sessions))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.d.WaitSettled(c.ctx, 1, ids); err != nil {
		t.Fatal(err)
	}
	op := c.useKey("PRICERIG_TEST_OPERATOR", devnet.DevKey(2)) // the first process's rig
	journal := c.d.JournalPath(0)
	// the devnet's chain runs ahead of the wall clock (every block a second at least): its
	// head's time is no reading of this machine's clock
	code, out, stderr := c.cli("doctor", "--json", "--sim", c.d.SimURL, "--key-env", "PRICERIG_TEST_OPERATOR", "--journal", journal, "--max-skew", "1h")
	r := decodeDoctor(t, out)
	got := r.verdicts()
	for _, k := range []string{"chain_id devnet", "contract " + c.d.Contract.Hex(), "job 2", "rig " + op.Hex(), "gas " + op.Hex(), "journal " + journal} {
		if got[k] != "ok" {
			t.Errorf("%s: %q, want ok", k, got[k])
		}
	}
	if got["break_even "+op.Hex()] != "warn unprofitable" {
		t.Errorf("break-even at 1 gwei: %q, want warn unprofitable", got["break_even "+op.Hex()])
	}
	// The break-even counts the commit, the reveal and the rig's share of the task's draw and
	// settle, as BENCHMARKS.md measures a lone rig's: within 10 % of its 0.0105 gwei.
	measured := decimal.RequireFromString("0.0105")
	for _, ch := range r.Checks {
		if ch.Check != "break_even" {
			continue
		}
		m := regexp.MustCompile(`break-even at ([0-9.]+) gwei`).FindStringSubmatch(ch.Detail)
		if m == nil {
			t.Fatalf("break_even: %q names no break-even", ch.Detail)
		}
		if be := decimal.RequireFromString(m[1]); be.Sub(measured).Abs().GreaterThan(measured.Div(decimal.NewFromInt(10))) {
			t.Errorf("break-even %s gwei is more than 10 %% from BENCHMARKS.md's lone rig, %s gwei: %s", be, measured, ch.Detail)
		}
	}
	if code != exitOK || r.Counts["fail"] != 0 {
		t.Errorf("exit %d (%v)\n%s", code, got, stderr)
	}
	if !strings.HasPrefix(r.Kept, "kept in the journal") {
		t.Fatalf("kept: %q", r.Kept)
	}
	j, err := rigjournal.OpenExistingJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, b, ok, err := j.LastDoctor(c.ctx); err != nil || !ok || !strings.Contains(string(b), `"check":"break_even"`) {
		t.Fatalf("the journal's last doctor report: ok=%v err=%v %s", ok, err, b)
	}
}

// doctor --db reads the quota counts price keeps in the same store, and spends its own request
// there: after a price and a doctor, the quota left is the quota less every request the
// simulator saw.
func TestDoctorQuotaFromPricesLedger(t *testing.T) {
	srv, url := startSim(t, auditNow)
	spec := doctorSpec(t, url, "yahoo", "pyth")
	body, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	body = []byte(strings.Replace(string(body), "  yahoo: {type: yahoo,", "  yahoo: {type: yahoo, quota: 50/day,", 1))
	if err := os.WriteFile(spec, body, 0o600); err != nil {
		t.Fatal(err)
	}
	withKeys(t, "PYTH_API_KEY")
	db := filepath.Join(t.TempDir(), "ledger.db")
	minute := auditNow.Add(-time.Hour).Truncate(time.Minute).Format(time.RFC3339)
	if code, _, stderr := runCLI(t, "price", "--config", spec, "--db", db, "NVDA", minute); code != exitOK {
		t.Fatalf("price: exit %d: %s", code, stderr)
	}
	code, out, stderr := runCLI(t, "doctor", "--json", "--config", spec, "--db", db)
	if code != exitOK {
		t.Fatalf("doctor: exit %d: %s\n%s", code, stderr, out)
	}
	var quota *doctorCheck
	r := decodeDoctor(t, out)
	for i, c := range r.Checks {
		if c.Check == "quota" && c.Subject == "yahoo" {
			quota = &r.Checks[i]
		}
	}
	want := fmt.Sprintf("%d of 50/day left (the ledger at %s)", 50-srv.Requests("yahoo"), db)
	if quota == nil || quota.Verdict != "ok" || quota.Detail != want {
		t.Fatalf("quota yahoo: %+v, want ok %q", quota, want)
	}
	if srv.Requests("yahoo") < 2 {
		t.Errorf("the simulator saw %d yahoo requests: price's and the doctor's", srv.Requests("yahoo"))
	}
}
