package devnet

import (
	"context"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/sources"
)

// griefer orders tasks the way anyone can: straight through the contract's abigen binding, with
// whatever input hash and URI it likes, not through pricerig's order code.
type griefer struct {
	d        *Devnet
	contract *bind.BoundContract
	opts     *bind.TransactOpts
}

func newGriefer(ctx context.Context, d *Devnet) *griefer {
	opts := bind.NewKeyedTransactor(d.Funded, big.NewInt(ChainID))
	opts.Context = ctx
	return &griefer{d: d, contract: d.abi.Instance(d.client, d.Contract), opts: opts}
}

// order places one job-2 task and returns its id.
func (g *griefer) order(t *testing.T, hash common.Hash, uri string) uint64 {
	t.Helper()
	g.opts.Value = launchJobs[PriceJobID-1].price
	tx, err := bind.Transact(g.contract, g.opts, g.d.abi.PackOrder(PriceJobID, hash, uri))
	if err != nil {
		t.Fatalf("order %q: %v", uri, err)
	}
	rec, err := bind.WaitMined(g.opts.Context, g.d.client, tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range rec.Logs {
		if ev, err := g.d.abi.UnpackTaskOrderedEvent(l); err == nil {
			return ev.TaskId.Uint64()
		}
	}
	t.Fatalf("order %q: no TaskOrdered event (status %d)", uri, rec.Status)
	return 0
}

// rigStanding is what a rig holds on chain: its stake, its locked stake and its operator's credits.
type rigStanding struct{ stake, locked, credits *big.Int }

func (d *Devnet) standing(ctx context.Context, t *testing.T, rigID uint64) rigStanding {
	t.Helper()
	c := d.abi.Instance(d.client, d.Contract)
	info, err := bind.Call(c, &bind.CallOpts{Context: ctx}, d.abi.PackRigOf(rigID), d.abi.UnpackRigOf)
	if err != nil {
		t.Fatal(err)
	}
	credits, err := bind.Call(c, &bind.CallOpts{Context: ctx}, d.abi.PackCredits(info.Operator), d.abi.UnpackCredits)
	if err != nil {
		t.Fatal(err)
	}
	return rigStanding{stake: info.Stake, locked: info.Locked, credits: credits}
}

// TestMalformedTasksSettleInAgreementOnZero orders, as a griefer would, one task for each rule of
// the spec's refusal. Every drawn rig commits and reveals the spec's refusal_answer 0, each task
// settles early (before its commit window would have closed) with agreement on 0, nobody is
// slashed, and each rig journals the reason.
func TestMalformedTasksSettleInAgreementOnZero(t *testing.T) {
	t.Parallel()
	regs := make([]*prometheus.Registry, 3)
	metrics := make([]*rig.Metrics, 3)
	d, ctx := startDevnet(t, Options{Metrics: func(i int) *rig.Metrics {
		regs[i] = prometheus.NewRegistry()
		metrics[i] = rig.NewMetrics(regs[i])
		return metrics[i]
	}})
	minute := testMinute()
	good := func(symbol string, m time.Time) string {
		return `data:application/json,{"symbol":"` + symbol + `","minute":"` + m.UTC().Format(time.RFC3339) + `"}`
	}
	goodURI := good("NVDA", minute)
	cases := []struct {
		name string
		hash common.Hash
		uri  string
		rule string
		says string
	}{
		{"hash mismatch", crypto.Keccak256Hash([]byte(goodURI + " ")), goodURI, "hash", "input hash does not match"},
		{"non-data URI", task.InputHash("https://example.com/nvda.json"), "https://example.com/nvda.json", "uri", "not a data: URI"},
		{"bad JSON", task.InputHash(`data:application/json,{"symbol":"NVDA",`), `data:application/json,{"symbol":"NVDA",`, "json", "not the expected JSON"},
		{"unknown symbol", task.InputHash(good("AAPL", minute)), good("AAPL", minute), "symbol", `unknown symbol: "AAPL"`},
		{"unaligned minute", task.InputHash(good("SPY", minute.Add(30*time.Second))), good("SPY", minute.Add(30*time.Second)), "minute", "not aligned"},
		{"a minute a day in the future", task.InputHash(good("TSLA", minute.Add(24*time.Hour))), good("TSLA", minute.Add(24*time.Hour)), "window", "closes after the task's commit window"},
	}
	contract := agentrig.NewContract(d.client, d.Contract)
	rigIDs := map[uint64]bool{}
	for _, r := range d.Runners {
		for _, id := range r.RigIDs() {
			rigIDs[id] = true
		}
	}
	before := map[uint64]rigStanding{}
	for id := range rigIDs {
		before[id] = d.standing(ctx, t, id)
	}
	g := newGriefer(ctx, d)
	ids := make([]uint64, len(cases))
	for i, c := range cases {
		ids[i] = g.order(t, c.hash, c.uri)
	}
	reports := waitSettled(ctx, t, d, ids)
	settledTopic := d.abi.GetABI().Events["Settled"].ID
	slashedTopic := d.abi.GetABI().Events["Slashed"].ID
	for i, rep := range reports {
		c := cases[i]
		if rep.Answer != numeric.FormatScaled(new(big.Int)) || rep.Phase != agentrig.PhaseSettled || !rep.Agreed || rep.Agree != 3 || rep.Reveals != 3 {
			t.Errorf("%s: task %+v, want settled in agreement on 0 by all three rigs", c.name, rep)
			continue
		}
		for _, r := range rep.Rigs {
			if r.State != journal.StateSettled || !r.Inside || r.DistanceBps != "0.00" {
				t.Errorf("%s: rig %+v", c.name, r)
			}
		}
		for p := range d.Runners {
			e, ok := d.entryOf(ctx, p, rep.TaskID)
			if !ok || !strings.Contains(e.Refusal, c.says) || e.Price != 0 {
				t.Errorf("%s: process %d journaled %+v, want refusal %q", c.name, p, e, c.says)
			}
			reason, found, err := d.journals[p].RefusalReason(ctx, rep.TaskID)
			if err != nil || !found || reason != e.Refusal {
				t.Errorf("%s: process %d RefusalReason %q %v %v", c.name, p, reason, found, err)
			}
		}
		// Early: settled before the commit window it was drawn with would have closed.
		info, err := contract.Task(ctx, new(big.Int).SetUint64(rep.TaskID))
		if err != nil {
			t.Fatal(err)
		}
		logs, err := d.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{d.Contract},
			Topics: [][]common.Hash{{settledTopic, slashedTopic}, {common.BigToHash(new(big.Int).SetUint64(rep.TaskID))}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(logs) != 1 || logs[0].Topics[0] != settledTopic {
			t.Fatalf("%s: want one Settled and no Slashed event, got %d logs", c.name, len(logs))
		}
		h, err := d.client.HeaderByNumber(ctx, new(big.Int).SetUint64(logs[0].BlockNumber))
		if err != nil {
			t.Fatal(err)
		}
		if h.Time >= info.CommitDeadline {
			t.Errorf("%s: settled at %d, not before the commit deadline %d", c.name, h.Time, info.CommitDeadline)
		}
	}
	// Nobody slashed: every stake is whole and unlocked, and each rig was paid for each task.
	for id := range rigIDs {
		after := d.standing(ctx, t, id)
		if after.stake.Cmp(before[id].stake) != 0 || after.locked.Sign() != 0 {
			t.Errorf("rig %d: stake %s → %s, locked %s", id, before[id].stake, after.stake, after.locked)
		}
		if after.credits.Cmp(before[id].credits) <= 0 {
			t.Errorf("rig %d: credits %s → %s, want the rewards of the tasks it answered", id, before[id].credits, after.credits)
		}
	}
	for p, reg := range regs {
		byRule := refusedByRule(t, reg)
		total := 0.0
		for _, rule := range []string{"hash", "uri", "json", "symbol", "minute", "window"} {
			if byRule[rule] < 1 {
				t.Errorf("process %d: pricerig_rig_tasks_refused_total{rule=%q} = %v, want at least 1", p, rule, byRule[rule])
			}
		}
		for _, v := range byRule {
			total += v
		}
		if total != float64(len(cases)) {
			t.Errorf("process %d: %v refusals counted (%v), want %d", p, total, byRule, len(cases))
		}
	}
}

// refusedByRule reads pricerig_rig_tasks_refused_total from a registry, by rule.
func refusedByRule(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "pricerig_rig_tasks_refused_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "rule" {
					out[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// TestARigWhoseSourcesAreAllDownSkipsAndNeverAnswersTheRefusal: a rig whose every source is
// unreachable is in a situation of its own, not a task the spec refuses. It keeps trying, then
// skips with an alert when its commit margin runs out; it never commits the refusal answer. The
// other two rigs agree on the price.
func TestARigWhoseSourcesAreAllDownSkipsAndNeverAnswersTheRefusal(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	d, ctx := startDevnet(t, Options{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
		WrapPricer: func(i int, p rig.Pricer) rig.Pricer {
			if i != 0 {
				return p
			}
			// Process 1 reads the same spec with every source pointed at a closed port.
			spec, err := feeds.Load([]byte(testSpec), feeds.LoadOptions{Getenv: func(string) string { return "" },
				Sim: &feeds.SimTarget{Root: "http://127.0.0.1:1", Key: "k", Secret: "s"}})
			if err != nil {
				t.Error(err)
				return p
			}
			for j := range spec.Sources {
				spec.Sources[j].Retries = 0
			}
			down, err := feeds.New(spec, feeds.Deps{Deps: sources.Deps{}})
			if err != nil {
				t.Error(err)
				return p
			}
			return down
		}})
	ids, err := d.Order(ctx, []string{"NVDA"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the two other rigs' commits", func() bool {
		a, ok1 := d.entryOf(ctx, 1, ids[0])
		b, ok2 := d.entryOf(ctx, 2, ids[0])
		return ok1 && ok2 && a.State == journal.StateCommitted && b.State == journal.StateCommitted
	})
	if e, ok := d.entryOf(ctx, 0, ids[0]); ok && e.State != journal.StateDrawn {
		t.Fatalf("the rig with no sources answered: %+v", e)
	}
	// Chain time moves inside the rig's commit margin: it has no time left to price, and skips.
	info, err := agentrig.NewContract(d.client, d.Contract).Task(ctx, new(big.Int).SetUint64(ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	head, err := d.client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	margin := d.configs[0].CommitMargin
	adjustTime(ctx, t, d, time.Duration(int64(info.CommitDeadline)-int64(head.Time))*time.Second-margin/2)
	waitFor(ctx, t, "the skip", func() bool {
		e, ok := d.entryOf(ctx, 0, ids[0])
		return ok && e.State == journal.StateSkipped
	})
	adjustTime(ctx, t, d, agentrig.DefaultWindow) // the commit window closes
	waitFor(ctx, t, "the two other rigs' reveals", func() bool {
		a, _ := d.entryOf(ctx, 1, ids[0])
		b, _ := d.entryOf(ctx, 2, ids[0])
		return a.State == journal.StateRevealed && b.State == journal.StateRevealed
	})
	adjustTime(ctx, t, d, agentrig.DefaultWindow+time.Second) // the reveal window closes
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	rep := reports[0]
	if p, err := numeric.ParsePrice(rep.Answer); err != nil || p <= 0 || !rep.Agreed || rep.Reveals != 2 || rep.Agree != 2 {
		t.Fatalf("task: %+v, want the two other rigs agreeing on the price", rep)
	}
	e, _ := d.entryOf(ctx, 0, ids[0])
	if e.State != journal.StateSkipped || e.Refusal != "" || e.Reason == "" || e.Answer != ([32]byte{}) {
		t.Fatalf("the rig with no sources: %+v, want skipped, no refusal, no answer", e)
	}
	if _, found, _ := d.journals[0].RefusalReason(ctx, ids[0]); found {
		t.Fatal("a skip reads as a refusal")
	}
	var alert bool
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "task cannot be answered honestly") && strings.Contains(line, "rig_process=1") {
			alert = true
		}
		if strings.Contains(line, "refuses the task") {
			t.Errorf("a refusal was logged: %s", line)
		}
	}
	if !alert {
		t.Fatalf("no skip alert from rig process 1 in:\n%s", logs.String())
	}
}
