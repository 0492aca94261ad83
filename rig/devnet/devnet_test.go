package devnet

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	_ "github.com/pricerig/pricerig/sources/all"
)

// testSpec is a small job-2 spec over five simulated providers.
const testSpec = `version: 1
spec_uri: data:text/plain,pricerig-devnet-test
job: {id: 2, scale: 8, tolerance_bps: 50, quorum: 3}
refusal_answer: 0
reconcile: {min_sources: 2, outlier_bps: 25, max_carry: 96h, sessions: [pre, regular, post], deadline: 10s}
sources:
  yahoo: {type: yahoo, base_url: https://query2.finance.yahoo.com}
  alpaca: {type: alpaca, base_url: https://data.alpaca.markets, key_env: ALPACA_API_KEY_ID, secret_env: ALPACA_API_SECRET_KEY}
  massive: {type: massive, base_url: https://api.massive.com, key_env: MASSIVE_API_KEY}
  twelvedata: {type: twelvedata, base_url: https://api.twelvedata.com, key_env: TWELVEDATA_API_KEY}
  pyth: {type: pyth, base_url: https://history.pyth-lazer.dourolabs.app, key_env: PYTH_API_KEY}
feeds:
  NVDA: {yahoo: NVDA, alpaca: NVDA, massive: NVDA, twelvedata: NVDA, pyth: Equity.US.NVDA/USD}
  TSLA: {yahoo: TSLA, alpaca: TSLA, massive: TSLA, twelvedata: TSLA, pyth: Equity.US.TSLA/USD}
  SPY: {yahoo: SPY, alpaca: SPY, massive: SPY, twelvedata: SPY, pyth: Equity.US.SPY/USD}
splits:
  NVDA: [{date: 2024-06-10, ratio: 10}, {date: 2021-07-20, ratio: 4}]
  TSLA: [{date: 2022-08-25, ratio: 3}, {date: 2020-08-31, ratio: 5}]
`

func TestDevnetSettlesEveryTaskInBothModes(t *testing.T) {
	t.Parallel()
	bothChains(t, devnetSettlesEveryTaskInBothModes)
}

func devnetSettlesEveryTaskInBothModes(t *testing.T, l1 uint64) {
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	// The test waits on the tasks settling, which took more than 90 s on the loaded CI machine.
	ctx := testContext(t)
	var events []Event
	d, err := Start(ctx, Options{Instant: true, L1Block: l1, L1Interval: testL1Interval, Logger: testLogger(t), Spec: []byte(testSpec), CommitWindow: roomyWindows, RevealWindow: roomyWindows,
		Events: func(e Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	minute := DefaultMinute(time.Now(), []market.Session{market.Pre, market.Regular, market.Post})
	ids, err := d.Order(ctx, []string{"NVDA", "TSLA", "SPY"}, minute)
	if err != nil {
		t.Fatal(err)
	}
	reports := waitSettled(ctx, t, d, ids)
	for _, rep := range reports {
		if rep.Phase != agentrig.PhaseSettled || !rep.Agreed || rep.Agree != 3 || rep.Reveals != 3 {
			t.Errorf("task %d: %+v", rep.TaskID, rep)
		}
		if len(rep.Rigs) != 3 {
			t.Fatalf("task %d: %d rigs", rep.TaskID, len(rep.Rigs))
		}
		for _, r := range rep.Rigs {
			if r.State != journal.StateSettled || !r.Inside || r.Price != rep.Answer || r.DistanceBps != "0.00" {
				t.Errorf("task %d rig %d: %+v (answer %s)", rep.TaskID, r.RigID, r, rep.Answer)
			}
		}
		if p, err := numeric.ParsePrice(rep.Answer); err != nil || p <= 0 {
			t.Errorf("task %d: answer %q", rep.TaskID, rep.Answer)
		}
	}
	// Nothing reverted: no draw before L1 passed the order block, no second sender of a step.
	head, err := d.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txs, err := d.Mined(ctx, 1, head)
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if tx.Reverted {
			t.Errorf("reverted: %s of tasks %v in block %d", tx.Method, tx.Tasks, tx.Block)
		}
	}
	phases := map[string]bool{}
	for _, e := range events {
		phases[e.Phase] = true
	}
	for _, want := range []string{"ordered", "drawn", "settled"} {
		if !phases[want] {
			t.Errorf("no %q event in %v", want, events)
		}
	}
}
