package main

import (
	"context"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/pgtest"
	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/rig/devnet"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/sources/sim"
)

// A separate `pricerig rig` attaches over JSON-RPC to a devnet whose other two rigs run in
// process, answers its task and exits cleanly on cancel.
func TestRigCommandAnswersOnADevnet(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	ctx, cancel := testContext(t)
	defer cancel()
	spec, err := os.ReadFile("../../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := devnet.Start(ctx, devnet.Options{Instant: true, Spec: spec, L1Interval: testL1Interval, Layout: []int{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	key := d.Funded
	if err := d.RegisterRig(ctx, key); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PRICERIG_TEST_OPERATOR", hex.EncodeToString(crypto.FromECDSA(key)))
	journal := filepath.Join(t.TempDir(), "rig.db")
	rigCtx, stopRig := context.WithCancel(ctx)
	var out, errOut syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- run(rigCtx, []string{"rig", "--rpc", d.Chain.URL, "--contract", d.Contract.Hex(),
			"--key-env", "PRICERIG_TEST_OPERATOR", "--sim", d.SimURL, "--config", instantSpec(t),
			"--journal", journal, "--from-block", "1", "--metrics", "127.0.0.1:0", "--l1-interval", testL1Interval.String()}, strings.NewReader(""), &out, &errOut)
	}()
	ids, err := d.Order(ctx, []string{"TSLA"}, devnet.DefaultMinute(time.Now(), d.Spec.Rules.Sessions))
	if err != nil {
		t.Fatal(err)
	}
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reports[0].Agreed || reports[0].Reveals != 3 {
		t.Fatalf("task %+v\nrig log:\n%s", reports[0], errOut.String())
	}
	// The rig records a settlement on its next look at the chain: give it a moment.
	metrics := scrapeMetrics(t, errOut.String())
	for i := 0; i < 200 && !strings.Contains(metrics, "pricerig_rig_tasks_agreed_total 1\n"); i++ {
		time.Sleep(25 * time.Millisecond)
		metrics = scrapeMetrics(t, errOut.String())
	}
	for _, want := range []string{"pricerig_rig_tasks_seen_total 1", "pricerig_rig_tasks_committed_total 1",
		"pricerig_rig_tasks_revealed_total 1", "pricerig_rig_tasks_agreed_total 1", "pricerig_rig_tasks_slashed_total 0",
		"pricerig_rig_realized_distance_bps_count 1", "pricerig_rig_commit_margin_seconds_count 1"} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
	stopRig()
	if code := <-done; code != 0 {
		t.Fatalf("rig exited %d:\n%s", code, errOut.String())
	}
	j, err := rigjournal.OpenJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	entries, err := j.Since(ctx, time.Time{})
	if err != nil || len(entries) != 1 || entries[0].State != rigjournal.StateSettled || !entries[0].Inside {
		t.Fatalf("journal of the CLI rig: %+v %v", entries, err)
	}
	if strings.Contains(errOut.String(), hex.EncodeToString(crypto.FromECDSA(key))) {
		t.Fatal("the rig logged its private key")
	}
}

func TestRigCommandRefusesASpecDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	ctx, cancel := testContext(t)
	defer cancel()
	spec, err := os.ReadFile("../../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := devnet.Start(ctx, devnet.Options{Spec: spec, L1Interval: testL1Interval, Layout: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	drifted := filepath.Join(t.TempDir(), "sources.yaml")
	text := strings.Replace(string(spec), "spec_uri: ", "spec_uri: https://example.invalid/other-spec#", 1)
	if err := os.WriteFile(drifted, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PRICERIG_TEST_OPERATOR", hex.EncodeToString(crypto.FromECDSA(d.Funded)))
	if err := d.RegisterRig(ctx, d.Funded); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(t.TempDir(), "rig.db")
	code, _, stderr := runCLI(t, "rig", "--rpc", d.Chain.URL, "--contract", d.Contract.Hex(), "--key-env", "PRICERIG_TEST_OPERATOR",
		"--sim", d.SimURL, "--config", drifted, "--journal", journal)
	if code != exitBadInput || !strings.Contains(stderr, "spec drift") || !strings.Contains(stderr, "--allow-spec-drift") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Fatalf("the refused rig left its journal behind (%v)", err)
	}
}

func TestRigCommandBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"rig"},
		{"rig", "--rpc", "http://127.0.0.1:1", "--contract", "nope", "--key-env", "X"},
		{"rig", "--rpc", "http://127.0.0.1:1", "--contract", "0x0000000000000000000000000000000000000001"},
		{"rig", "--rpc", "http://127.0.0.1:1", "--contract", "0x0000000000000000000000000000000000000001", "--key-env", "PRICERIG_UNSET_VARIABLE"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// scrapeMetrics finds the metrics URL the rig logged and reads it.
func scrapeMetrics(t *testing.T, log string) string {
	t.Helper()
	i := strings.Index(log, "url=http://")
	if i < 0 {
		t.Fatalf("no metrics URL in the log:\n%s", log)
	}
	url := strings.Fields(log[i+len("url="):])[0]
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

type countingPricer struct{ calls int }

func (c *countingPricer) Price(_ context.Context, s string, m time.Time, _ ...feeds.PriceOption) (feeds.Result, error) {
	c.calls++
	return feeds.Result{Symbol: s, Minute: m}, nil
}

func TestStorePricerFallsBackToTheSourcesForAMinuteItLacks(t *testing.T) {
	store, err := history.Open(filepath.Join(t.TempDir(), "prices.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	spec, err := feeds.Load(pricerig.DefaultSpec, feeds.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	next := &countingPricer{}
	p := storePricer{store: store, spec: spec, next: next, log: slog.New(slog.DiscardHandler)}
	minute := time.Date(2026, 11, 25, 15, 30, 0, 0, time.UTC)
	res, err := p.Price(context.Background(), "NVDA", minute)
	if err != nil || next.calls != 1 || res.Symbol != "NVDA" || !res.Minute.Equal(minute) {
		t.Fatalf("fallback: %+v %v, %d calls", res, err, next.calls)
	}
}

// The rig's pricer (rig --db) answers from a store the backfill filled, a SQLite file or a
// PostgreSQL database.
func TestStorePricerAnswersAMinuteTheBackfillStored(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testStorePricerAnswers(t, filepath.Join(t.TempDir(), "prices.db")) })
	t.Run("postgres", func(t *testing.T) { testStorePricerAnswers(t, pgtest.Shared(t).NewDatabase(t)) })
}

func testStorePricerAnswers(t *testing.T, db string) {
	srv := sim.New(sim.Options{Seed: 1})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	code, out, stderr := runCLI(t, "backfill", "--sim", hs.URL, "--config", "../../sources.yaml", "--from", "2026-11-25T15:00Z",
		"--to", "2026-11-25T16:00Z", "--symbols", "NVDA", "--db", db, "--json")
	if code != 0 {
		t.Fatalf("backfill exit %d\n%s\n%s", code, out, stderr)
	}
	store, err := history.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	spec, err := feeds.LoadFile("../../sources.yaml", feeds.LoadOptions{Getenv: func(string) string { return "" },
		Sim: &feeds.SimTarget{Root: hs.URL, Key: sim.Key, Secret: sim.Secret}})
	if err != nil {
		t.Fatal(err)
	}
	next := &countingPricer{}
	p := storePricer{store: store, spec: spec, next: next, log: slog.New(slog.DiscardHandler)}
	minute := time.Date(2026, 11, 25, 15, 30, 0, 0, time.UTC)
	if _, ok, why, err := store.Price(context.Background(), spec, "NVDA", minute); !ok {
		t.Fatalf("the store cannot answer: %s %v", why, err)
	}
	res, err := p.Price(context.Background(), "NVDA", minute)
	if err != nil || next.calls != 0 || !res.Agreed {
		t.Fatalf("from the store: %+v %v, %d source calls", res, err, next.calls)
	}
	bar, ok := srv.Tape().Bar("NVDA", minute)
	if !ok || res.Price != bar.Close {
		t.Fatalf("stored price %s, tape %s (%v)", res.Price, bar.Close, ok)
	}
	// the rig keeps the store's bars as the answer's evidence in its own ledger (backfillFirst),
	// and explain --task derives the answer again from that ledger alone (issue 33 item 2)
	ledger, err := history.Open(filepath.Join(t.TempDir(), "rig.ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ledger.Close()
	_, evidence, closeBackfill, err := backfillFirst(db, spec, next, ledger, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer closeBackfill()
	if err := evidence.KeepEvidence(context.Background(), 7, res, minute.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	ev, ok, err := ledger.EvidenceOf(context.Background(), 7)
	if err != nil || !ok {
		t.Fatalf("no evidence in the rig's ledger: %v %v", ok, err)
	}
	offline, err := feeds.Offline(spec, ledger)
	if err != nil {
		t.Fatal(err)
	}
	d, err := offline.Rederive(context.Background(), "NVDA", ev.Minute, ev.Counted)
	if err != nil || !d.Result.Agreed || d.Result.Price != res.Price {
		t.Errorf("derived again from the rig's ledger: %s agreed=%v (%s) %v; want the store's answer %s", d.Result.Price, d.Result.Agreed, d.Result.Reason, err, res.Price)
	}
}
