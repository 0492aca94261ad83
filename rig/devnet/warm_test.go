package devnet

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/pgtest"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
	"github.com/pricerig/pricerig/sources"
)

// stuckPricer never answers: a leader that holds the lease and cannot price.
type stuckPricer struct{}

func (stuckPricer) Price(ctx context.Context, _ string, _ time.Time, _ ...feeds.PriceOption) (feeds.Result, error) {
	<-ctx.Done()
	return feeds.Result{}, ctx.Err()
}

// countingPricer counts the prices it fetched.
type countingPricer struct {
	next  rig.Pricer
	mu    sync.Mutex
	calls int
}

func (c *countingPricer) Price(ctx context.Context, s string, m time.Time, o ...feeds.PriceOption) (feeds.Result, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return c.next.Price(ctx, s, m, o...)
}

func (c *countingPricer) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// counterValue reads a counter's value.
func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// A follower on a shared PostgreSQL journal prices the tasks its rig is drawn for while another
// instance leads (here a leader that cannot price), and when it takes over it answers from those
// prices: every task it priced while following is answered with no fetch at the takeover.
func TestAFollowerPricesDrawnTasksAheadOfATakeover(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end devnet run on PostgreSQL")
	}
	ctx := testContext(t)
	url := pgtest.Start(t).NewDatabase(t)
	logger := testLogger(t)
	d, err := Start(ctx, Options{Instant: true, L1Interval: testL1Interval, Logger: logger, Spec: []byte(testSpec)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	key := d.Funded
	if err := d.RegisterRig(ctx, key); err != nil {
		t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	ids, err := d.contract.RigIDsOf(ctx, PriceJobID, []common.Address{addr})
	if err != nil {
		t.Fatal(err)
	}
	ourRig := ids[addr]
	head, err := d.client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// two instances of the one rig, each its own connections, journal and metrics
	type instance struct {
		runner  *rig.Runner
		metrics *rig.Metrics
		stop    context.CancelFunc
		done    chan struct{}
	}
	start := func(name string, pricer rig.Pricer) *instance {
		t.Helper()
		client, err := ethclient.DialContext(ctx, d.Chain.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(client.Close)
		journal, err := rigjournal.OpenJournal(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { journal.Close() })
		m := rig.NewMetrics(prometheus.NewRegistry())
		cfg := rig.Config{
			Contract: d.Contract, JobID: PriceJobID, FromBlock: head, Poll: 100 * time.Millisecond,
			SpecURI: d.Spec.SpecURI, Inputs: task.SpecInputRules(d.Spec), CommitMargin: time.Minute,
			Operators: []task.Key{{Address: addr, Private: key, From: "warm test " + name}},
			Sender:    txm.SenderConfig{Poll: 20 * time.Millisecond}, Metrics: m, Logger: logger.With("instance", name),
			// A stopped instance releases its lease, so the takeover waits one Renew, not the
			// TTL; a TTL long beside a loaded machine's late renewals keeps each instance's
			// leadership what the test made it (a 2 s TTL lapsed under load: the follower was
			// not the leader a moment after it answered every task).
			Lease: rig.LeaseConfig{TTL: 30 * time.Second, Renew: time.Second, Holder: name},
		}
		r, err := rig.NewRunner(ctx, client, journal, pricer, cfg)
		if err != nil {
			t.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		in := &instance{runner: r, metrics: m, stop: stop, done: make(chan struct{})}
		go func() { defer close(in.done); _ = r.Run(runCtx) }()
		t.Cleanup(func() { stop(); <-in.done })
		return in
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for !cond() {
			select {
			case <-ctx.Done():
				t.Fatalf("gave up waiting for %s", what)
			case <-tick.C:
			}
		}
	}

	leader := start("leader", stuckPricer{})
	waitFor("the first instance to lead", leader.runner.IsLeader)
	reconciler, err := feeds.New(d.Spec, feeds.Deps{Deps: sources.Deps{}})
	if err != nil {
		t.Fatal(err)
	}
	counted := &countingPricer{next: reconciler}
	follower := start("follower", counted)

	minute := DefaultMinute(time.Now(), []market.Session{market.Pre, market.Regular, market.Post})
	symbols := []string{"NVDA", "TSLA", "SPY", "NVDA", "TSLA", "SPY"}
	tasks, err := d.Order(ctx, symbols, minute)
	if err != nil {
		t.Fatal(err)
	}
	deploy := agentrig.NewReferenceDeployment(d.contract)
	var ours []uint64
	symbolsOfOurs := map[string]bool{}
	waitFor("every task drawn", func() bool {
		ours = ours[:0]
		for _, id := range tasks {
			v, err := deploy.Task(ctx, id)
			if err != nil || v.Phase == agentrig.PhaseDraw {
				return false
			}
			if slices.Contains(v.RigIDs, ourRig) {
				ours = append(ours, id)
				symbolsOfOurs[symbols[slices.Index(tasks, id)]] = true
			}
		}
		return true
	})
	if len(ours) == 0 {
		t.Fatalf("our rig %d was drawn for none of %d tasks", ourRig, len(tasks))
	}
	prepriced := func() int { return int(counterValue(t, follower.metrics.Prepriced)) }
	waitFor("the follower to price the tasks it is drawn for", func() bool { return prepriced() >= len(ours) })
	if n := prepriced(); n != len(ours) {
		t.Fatalf("prepriced_total %d for the %d tasks our rig is drawn for: a task is counted once", n, len(ours))
	}
	if follower.runner.IsLeader() {
		t.Fatal("the follower leads before the leader stopped")
	}
	// Tasks of one symbol at one minute share a fetch: at least one a symbol.
	fetched := counted.count()
	if fetched < len(symbolsOfOurs) {
		t.Fatalf("%d tasks of %d symbols priced while following with %d fetches", len(ours), len(symbolsOfOurs), fetched)
	}

	// the leader goes; the follower takes over and answers from what it priced
	leader.stop()
	<-leader.done
	journal, err := rigjournal.OpenJournal(url)
	if err != nil {
		t.Fatal(err)
	}
	defer journal.Close()
	waitFor("the new leader to answer every task of our rig", func() bool {
		for _, id := range ours {
			e, ok, err := journal.Get(ctx, id, ourRig)
			if err != nil || !ok || e.State == rigjournal.StateDrawn {
				return false
			}
		}
		return true
	})
	if !follower.runner.IsLeader() {
		t.Error("the follower answered without leading")
	}
	if got := int(counterValue(t, follower.metrics.WarmAnswers)); got != len(ours) {
		t.Errorf("%d answers from prices taken while following, want %d", got, len(ours))
	}
	if got := counted.count(); got != fetched {
		t.Errorf("the takeover fetched prices again: %d fetches after it, %d before", got, fetched)
	}
	for _, id := range ours {
		if e, _, _ := journal.Get(ctx, id, ourRig); e.Price <= 0 || e.Salt == ([32]byte{}) {
			t.Errorf("task %d: journaled %+v", id, e)
		}
	}
	if n := int(counterValue(t, leader.metrics.Prepriced)); n != 0 {
		t.Errorf("the leader counted %d tasks priced while following", n)
	}
}
