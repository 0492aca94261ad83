package devnet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/internal/testbound"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
)

// pricerFunc adapts a function to rig.Pricer.
type pricerFunc func(ctx context.Context, symbol string, minute time.Time, opts ...feeds.PriceOption) (feeds.Result, error)

func (f pricerFunc) Price(ctx context.Context, symbol string, minute time.Time, opts ...feeds.PriceOption) (feeds.Result, error) {
	return f(ctx, symbol, minute, opts...)
}

func testMinute() time.Time {
	return DefaultMinute(time.Now(), []market.Session{market.Pre, market.Regular, market.Post})
}

// testL1Interval is the devnet's L1 block time in the end-to-end tests that are not about it:
// a draw waits for L1 to pass its order block, up to an interval (12 s on Robinhood Chain).
const testL1Interval = time.Second

// bothChains runs an end-to-end test on a young chain (its own block numbers far below L1's, as
// Robinhood Chain's are) and on an old one (its own numbers soon past L1's): the rigs compare
// the contract's order blocks with L1 numbers on both. The two run in parallel.
func bothChains(t *testing.T, test func(t *testing.T, l1 uint64)) {
	for _, c := range []struct {
		name string
		l1   uint64
	}{{"young", DefaultL1Block}, {"old", 1}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each chain is a devnet of its own
			test(t, c.l1)
		})
	}
}

func startDevnet(t *testing.T, o Options) (*Devnet, context.Context) {
	t.Helper()
	return startDevnetWithin(t, o, testbound.Cap)
}

// startDevnetWithin is startDevnet for a test that needs more than testbound.Cap. Its providers
// serve every bar final the moment its minute ends (Options.Instant): these tests order the last
// closed minute and are about the chain, not finality (TestTheRigCommitsTheFinalPrice has the
// providers' real lags).
func startDevnetWithin(t *testing.T, o Options, bound time.Duration) (*Devnet, context.Context) {
	t.Helper()
	testbound.EndToEnd(t)
	o.Instant = true
	ctx, _ := testbound.Context(t, bound)
	if o.Spec == nil {
		o.Spec = []byte(testSpec)
	}
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	if o.L1Interval == 0 {
		o.L1Interval = testL1Interval
	}
	d, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, ctx
}

// testContext is the context of an end-to-end test, bounded by the test's own cap (testbound):
// a hang fails that test by name and the tests after it still run, while a slow run on a loaded
// machine finishes (fixed bounds of 2 minutes ran out at a load of 28 on 2 cores, the tasks
// still on their way; under -race at a load of 10-13 the tests here took 4-45 s, but for
// TestScheduleHoldsWhenEachRankIsKilled's 360 s, which has a bound of its own).
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, _ := testbound.Context(t, testbound.Cap)
	return ctx
}

// waitFor polls cond until it holds or the context ends.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (d *Devnet) entryOf(ctx context.Context, process int, taskID uint64) (journal.Entry, bool) {
	j := d.journals[process]
	if j == nil {
		return journal.Entry{}, false
	}
	for _, id := range d.Runners[process].RigIDs() {
		if e, ok, err := j.Get(ctx, taskID, id); err == nil && ok {
			return e, true
		}
	}
	return journal.Entry{}, false
}

// roomyWindows are commit and reveal windows for a test that needs every rig to answer, not one
// about windows: the seeds close a window early once every drawn rig committed (revealed), so a
// healthy run takes as long as with the seed's 4 minutes, while a rig starved on a loaded machine
// still gets its answer in (chain time runs up to four times the wall clock, and at a load of 28
// a rig missed a 4-minute reveal window).
const roomyWindows = 30 * time.Minute

// waitSettled is d.Wait for tasks every rig of which journals its end: a runner journals a
// settlement a step after the chain's, and Wait's report waits for that only a moment, which
// a loaded machine can outlast (a rig was reported "revealed" there). It waits for every rig's
// entry to be final and then reports again, from the final entries.
func waitSettled(ctx context.Context, t *testing.T, d *Devnet, ids []uint64) []TaskReport {
	t.Helper()
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range reports {
		for _, r := range rep.Rigs {
			waitFor(ctx, t, fmt.Sprintf("rig %d to journal the end of task %d", r.RigID, rep.TaskID), func() bool {
				e, ok := d.journalEntry(ctx, rep.TaskID, r.RigID)
				return ok && e.State.Final()
			})
		}
	}
	if reports, err = d.Wait(ctx, ids); err != nil {
		t.Fatal(err)
	}
	return reports
}

func TestRigKilledBetweenCommitAndRevealRevealsAfterRestart(t *testing.T) {
	t.Parallel()
	bothChains(t, rigKilledBetweenCommitAndRevealRevealsAfterRestart)
}

func rigKilledBetweenCommitAndRevealRevealsAfterRestart(t *testing.T, l1 uint64) {
	// The other two rigs price only once the victim is dead, so the reveal window cannot open
	// (it opens when every drawn rig committed) before the kill.
	gate := make(chan struct{})
	d, ctx := startDevnet(t, Options{L1Block: l1, NoRelayer: true, WrapPricer: func(i int, p rig.Pricer) rig.Pricer {
		if i == 0 {
			return p
		}
		return pricerFunc(func(ctx context.Context, s string, m time.Time, o ...feeds.PriceOption) (feeds.Result, error) {
			select {
			case <-gate:
			case <-ctx.Done():
				return feeds.Result{}, ctx.Err()
			}
			return p.Price(ctx, s, m, o...)
		})
	}})
	ids, err := d.Order(ctx, []string{"NVDA"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	task := ids[0]
	var before journal.Entry
	waitFor(ctx, t, "the victim's commit", func() bool {
		e, ok := d.entryOf(ctx, 0, task)
		before = e
		return ok && e.State == journal.StateCommitted
	})
	victimRig := before.RigID
	if err := d.Kill(0); err != nil {
		t.Fatal(err)
	}
	contract := agentrig.NewContract(d.client, d.Contract)
	info, err := contract.Task(ctx, new(big.Int).SetUint64(task))
	if err != nil {
		t.Fatal(err)
	}
	if agentrig.Phase(info.Phase) != agentrig.PhaseCommit || info.RevealedMask != 0 {
		t.Fatalf("killed after the reveal: phase %d revealed %b", info.Phase, info.RevealedMask)
	}
	close(gate)
	if err := d.Restart(ctx, 0); err != nil {
		t.Fatal(err)
	}
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	rep := reports[0]
	if !rep.Agreed || rep.Reveals != 3 || rep.Agree != 3 {
		t.Fatalf("task after restart: %+v", rep)
	}
	after, ok := d.entryOf(ctx, 0, task)
	if !ok || after.RigID != victimRig || after.State != journal.StateSettled || !after.Inside {
		t.Fatalf("victim after restart: %+v", after)
	}
	if after.Salt != before.Salt || after.Answer != before.Answer || after.Commitment != before.Commitment {
		t.Fatal("the restarted rig changed its salt or answer")
	}
}

func TestSelfCheckCatchesARigLedAstrayByABrokenSource(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	// Rig process 1 reconciles a price 40 bps above the median of its sources, as a broken
	// source that pulled its answer would: inside the tolerance, past the alert at half of it.
	d, ctx := startDevnet(t, Options{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
		WrapPricer: func(i int, p rig.Pricer) rig.Pricer {
			if i != 0 {
				return p
			}
			return pricerFunc(func(ctx context.Context, s string, m time.Time, o ...feeds.PriceOption) (feeds.Result, error) {
				res, err := p.Price(ctx, s, m, o...)
				res.Price += res.Price * 40 / 10_000
				return res, err
			})
		}})
	ids, err := d.Order(ctx, []string{"TSLA"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reports[0].Agreed {
		t.Fatalf("task did not agree: %+v", reports[0])
	}
	e, ok := d.entryOf(ctx, 0, ids[0])
	if !ok || e.SelfCentiBps < 3990 || e.SelfCentiBps > 4010 {
		t.Fatalf("self-check distance %d centi-bps, want about 4000: %+v", e.SelfCentiBps, e)
	}
	if e.RealizedCentiBps < 3990 || e.RealizedCentiBps > 4010 || !e.Inside {
		t.Fatalf("realized distance %d centi-bps inside=%v", e.RealizedCentiBps, e.Inside)
	}
	out := logs.String()
	if !strings.Contains(out, "self-check") || !strings.Contains(out, "rig_process=1") {
		t.Fatalf("no self-check alert for rig process 1 in:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "self-check") && !strings.Contains(line, "rig_process=1") {
			t.Fatalf("self-check alert from an honest rig: %s", line)
		}
	}
}

func TestRigRidesOutAnRPCOutage(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	var proxies []*httptest.Server
	t.Cleanup(func() {
		for _, p := range proxies {
			p.Close()
		}
	})
	d, ctx := startDevnet(t, Options{RPCURL: func(i int, target string) string {
		if i != 1 {
			return target
		}
		u, _ := url.Parse(target)
		rp := httputil.NewSingleHostReverseProxy(u)
		p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down.Load() {
				http.Error(w, "upstream down", http.StatusBadGateway)
				return
			}
			rp.ServeHTTP(w, r)
		}))
		proxies = append(proxies, p)
		return p.URL
	}})
	down.Store(true)
	ids, err := d.Order(ctx, []string{"SPY"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	// The other two rigs commit while rig process 2 cannot reach its node.
	waitFor(ctx, t, "the other rigs' commits", func() bool {
		a, ok1 := d.entryOf(ctx, 0, ids[0])
		b, ok2 := d.entryOf(ctx, 2, ids[0])
		return ok1 && ok2 && a.State == journal.StateCommitted && b.State == journal.StateCommitted
	})
	if _, ok := d.entryOf(ctx, 1, ids[0]); ok {
		t.Fatal("the cut-off rig journaled a task it could not have seen")
	}
	down.Store(false)
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reports[0].Agreed || reports[0].Reveals != 3 {
		t.Fatalf("after the outage: %+v", reports[0])
	}
}

// adjustTime moves chain time forward, retrying while blocks with transactions are pending.
func adjustTime(ctx context.Context, t *testing.T, d *Devnet, by time.Duration) {
	t.Helper()
	for {
		err := d.Chain.Do(func(b *Sequencer) error { return b.AdjustTime(by) })
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("adjust time: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestAWindowExpiresForARigThatCannotPrice(t *testing.T) {
	t.Parallel()
	d, ctx := startDevnet(t, Options{WrapPricer: func(i int, p rig.Pricer) rig.Pricer {
		if i != 0 {
			return p
		}
		return pricerFunc(func(context.Context, string, time.Time, ...feeds.PriceOption) (feeds.Result, error) {
			return feeds.Result{}, errors.New("every source down")
		})
	}})
	ids, err := d.Order(ctx, []string{"NVDA"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the honest rigs' commits", func() bool {
		a, ok1 := d.entryOf(ctx, 1, ids[0])
		b, ok2 := d.entryOf(ctx, 2, ids[0])
		return ok1 && ok2 && a.State == journal.StateCommitted && b.State == journal.StateCommitted
	})
	adjustTime(ctx, t, d, agentrig.DefaultWindow+time.Second) // the commit window closes
	waitFor(ctx, t, "the honest rigs' reveals", func() bool {
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
	if !rep.Agreed || rep.Reveals != 2 || rep.Agree != 2 {
		t.Fatalf("task: %+v", rep)
	}
	e, ok := d.entryOf(ctx, 0, ids[0])
	if !ok || e.State != journal.StateMissed || e.Reason == "" {
		t.Fatalf("the rig that could not price: %+v", e)
	}
}

func TestRigsOfOneProcessShareOnePriceFetch(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := map[string]int{}
	d, ctx := startDevnet(t, Options{Layout: []int{3}, CommitWindow: roomyWindows, RevealWindow: roomyWindows, WrapPricer: func(_ int, p rig.Pricer) rig.Pricer {
		return pricerFunc(func(ctx context.Context, s string, m time.Time, o ...feeds.PriceOption) (feeds.Result, error) {
			mu.Lock()
			calls[s]++
			mu.Unlock()
			return p.Price(ctx, s, m, o...)
		})
	}})
	ids, err := d.Order(ctx, []string{"NVDA", "SPY"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	reports := waitSettled(ctx, t, d, ids)
	for _, rep := range reports {
		if !rep.Agreed || rep.Reveals != 3 {
			t.Fatalf("task: %+v", rep)
		}
		for _, r := range rep.Rigs {
			if r.State != journal.StateSettled {
				t.Fatalf("rig %d: %+v", r.RigID, r)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if calls["NVDA"] != 1 || calls["SPY"] != 1 {
		t.Fatalf("price fetches per task: %v, want one each for three rigs", calls)
	}
	if _, err := numeric.ParsePrice(reports[0].Answer); err != nil {
		t.Fatal(err)
	}
}

func TestTaskSurvivesAReorgThatDropsTheDrawAndTheCommits(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	metrics := map[int]*rig.Metrics{}
	d, ctx := startDevnet(t, Options{Metrics: func(i int) *rig.Metrics {
		mu.Lock()
		defer mu.Unlock()
		metrics[i] = rig.NewMetrics(prometheus.NewRegistry())
		return metrics[i]
	}})
	ids, err := d.Order(ctx, []string{"NVDA"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	taskID := new(big.Int).SetUint64(ids[0])
	contract := agentrig.NewContract(d.client, d.Contract)
	waitFor(ctx, t, "three commits on chain", func() bool {
		info, err := contract.Task(ctx, taskID)
		return err == nil && info.CommittedMask == 0b111
	})
	salts := map[int][32]byte{}
	for i := range d.Runners {
		e, ok := d.entryOf(ctx, i, ids[0])
		if !ok {
			t.Fatalf("process %d has no journal entry", i)
		}
		salts[i] = e.Salt
	}
	drawn := d.abi.GetABI().Events["TaskDrawn"].ID
	logs, err := d.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{d.Contract},
		Topics: [][]common.Hash{{drawn}, {common.BigToHash(taskID)}}})
	if err != nil || len(logs) != 1 {
		t.Fatalf("TaskDrawn logs %v %v", logs, err)
	}
	parent, err := d.client.HeaderByNumber(ctx, new(big.Int).SetUint64(logs[0].BlockNumber-1))
	if err != nil {
		t.Fatal(err)
	}
	// The reorg took the draw and every commit back out of the chain. The phase is read while
	// block production is still held: the pool takes the dropped transactions back at once, and
	// read after Do the draw could already be mined again (it was, on a loaded machine).
	var forked agentrig.AgentRigTaskInfo
	for {
		err := d.Chain.Do(func(b *Sequencer) error {
			if err := b.Fork(parent.Hash()); err != nil {
				return err
			}
			info, err := contract.Task(ctx, taskID)
			if err != nil {
				t.Errorf("reading the task after the fork: %v", err)
			}
			forked = info
			return nil
		})
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("fork: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if agentrig.Phase(forked.Phase) != agentrig.PhaseDraw {
		t.Fatalf("after the fork: phase %d", forked.Phase)
	}
	reports := waitSettled(ctx, t, d, ids)
	if !reports[0].Agreed || reports[0].Reveals != 3 {
		t.Fatalf("after the reorg: %+v", reports[0])
	}
	for i := range d.Runners {
		e, _ := d.entryOf(ctx, i, ids[0])
		if e.Salt != salts[i] || e.State != journal.StateSettled {
			t.Fatalf("process %d after the reorg: %+v", i, e)
		}
		// a commit mined again after the reorg is the same rig's one commit of the task
		mu.Lock()
		m := metrics[i]
		mu.Unlock()
		if c, r := testutil.ToFloat64(m.Committed), testutil.ToFloat64(m.Revealed); c != 1 || r != 1 {
			t.Errorf("process %d: tasks_committed_total %v, tasks_revealed_total %v; want 1 each for its rig's one task", i+1, c, r)
		}
	}
	// The accounts follow the chain: the transactions the reorg dropped left the journals (or
	// were journaled again from the block that mined them again), so every journaled
	// transaction is on the chain at the fee its receipt shows, and every one the rigs' keys
	// got mined is journaled.
	senders := map[common.Address]bool{}
	for addr := range d.senders() {
		senders[addr] = true
	}
	var onChain chainSpend
	var journaled map[common.Hash]journal.TxRecord
	waitFor(ctx, t, "the journals to hold the chain's transactions", func() bool {
		onChain = spendOnChain(ctx, t, d, senders, d.configs[0].FromBlock)
		journaled, _ = journalSpend(ctx, t, d)
		return len(journaled) == len(onChain.fees)
	})
	for hash, tx := range journaled {
		if fee, ok := onChain.fees[hash]; !ok || fee.Cmp(tx.Fee) != 0 {
			t.Errorf("journaled %s (%s, block %d, fee %s wei): on chain %v, fee %v", hash.Hex(), tx.Purpose, tx.Block, tx.Fee, ok, fee)
		}
	}
}
