package rpcpool_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/pricerig/pricerig/rig/devnet"
	"github.com/pricerig/pricerig/rig/internal/nodetest"
	"github.com/pricerig/pricerig/rig/rpcpool"
)

// The tests run one real node (a devnet chain, go-ethereum serving JSON-RPC over HTTP and
// websockets on loopback) behind proxies that kill, freeze or lag an endpoint.

const (
	probe   = 100 * time.Millisecond
	attempt = 1500 * time.Millisecond // generous: the machine is shared, and -race slows every call
)

type rig struct {
	t       *testing.T
	chain   *devnet.Chain
	key     *ecdsa.PrivateKey
	proxies []*nodetest.Proxy
	pool    *rpcpool.Pool
}

func newRig(t *testing.T, endpoints int, lagFirst uint64) *rig {
	t.Helper()
	key, _ := crypto.GenerateKey()
	alloc := types.GenesisAlloc{crypto.PubkeyToAddress(key.PublicKey): {Balance: new(big.Int).Lsh(big.NewInt(1), 100)}}
	chain, err := devnet.StartChain(alloc, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = chain.Close() })
	r := &rig{t: t, chain: chain, key: key}
	var urls []string
	for range endpoints {
		p, err := nodetest.NewProxy(chain.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		r.proxies = append(r.proxies, p)
		urls = append(urls, p.URL)
	}
	if lagFirst > 0 {
		r.waitHead(lagFirst + 2)
		r.proxies[0].Lag(lagFirst)
	}
	pool, err := rpcpool.New(t.Context(), rpcpool.Config{URLs: urls, ChainID: devnet.ChainID, Probe: probe, Attempt: attempt,
		StallAfter: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	r.pool = pool
	return r
}

// waitHead waits for the node to reach block n.
func (r *rig) waitHead(n uint64) {
	c, err := ethclient.Dial(r.chain.URL)
	if err != nil {
		r.t.Fatal(err)
	}
	defer c.Close()
	r.eventually("the node reaches block "+big.NewInt(int64(n)).String(), func() bool {
		h, err := c.BlockNumber(r.t.Context())
		return err == nil && h >= n
	})
}

// eventually waits (up to 20s) for cond, reading it every probe.
func (r *rig) eventually(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			r.t.Fatalf("never: %s; endpoints %+v", what, r.pool.Status())
		}
		time.Sleep(probe)
	}
}

func (r *rig) status(i int) rpcpool.Status { return r.pool.Status()[i] }

// A read in flight on an endpoint that freezes is tried on the next within the attempt bound;
// the frozen endpoints leave rotation, saying why, and come back once they answer.
func TestReadsFailOverFromFrozenEndpoints(t *testing.T) {
	r := newRig(t, 3, 0)
	r.eventually("all three in rotation", func() bool { return r.pool.Healthy() == 3 })
	r.proxies[0].Freeze()
	r.proxies[1].Freeze()
	eth := r.pool.Eth()
	ctx, cancel := context.WithTimeout(t.Context(), 4*attempt) // two frozen attempts, then the third answers
	defer cancel()
	for range 5 {
		if _, err := eth.BlockNumber(ctx); err != nil {
			t.Fatalf("a read with two of three endpoints frozen: %v", err)
		}
	}
	r.eventually("the frozen endpoints out of rotation", func() bool { return !r.status(0).Up && !r.status(1).Up && r.status(2).Up })
	// A frozen endpoint leaves by whichever rule sees it first: its read times out ("not
	// answering", counted as an error), or its head stops while the others' move on ("lagging",
	// when the chain mines past MaxLag before the attempt bound ends: seen under -race in CI).
	if s := r.status(0); !(strings.Contains(s.Reason, "not answering") && s.Errors > 0) && !strings.Contains(s.Reason, "lagging") {
		t.Errorf("a frozen endpoint's status: %+v", s)
	}
	// the same read on one frozen endpoint alone does not answer
	alone, err := ethclient.Dial(r.proxies[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	actx, acancel := context.WithTimeout(t.Context(), 2*attempt)
	defer acancel()
	if _, err := alone.BlockNumber(actx); err == nil {
		t.Fatal("a frozen endpoint answered: the test proves nothing")
	}
	r.proxies[0].Thaw()
	r.proxies[1].Thaw()
	r.eventually("the thawed endpoints back in rotation", func() bool { return r.pool.Healthy() == 3 })
}

// An endpoint whose head lags leaves rotation and reads go to the highest head; caught up, it
// is back.
func TestALaggingEndpointLeavesRotation(t *testing.T) {
	r := newRig(t, 2, 8)
	r.eventually("the lagging endpoint out", func() bool {
		s := r.status(0)
		return !s.Up && strings.Contains(s.Reason, "lagging") && s.Lag >= 8
	})
	direct, err := ethclient.Dial(r.chain.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	eth := r.pool.Eth()
	for range 5 {
		want, err := direct.BlockNumber(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		h, err := eth.HeaderByNumber(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if h.Number.Uint64()+3 < want {
			t.Fatalf("the pool read head %d, the node is at %d: the read went to the lagging endpoint", h.Number, want)
		}
	}
	r.proxies[0].Lag(0)
	r.eventually("caught up, back in rotation", func() bool { return r.status(0).Up })
}

// An endpoint of another chain never joins rotation.
func TestAnEndpointOfAnotherChainStaysOut(t *testing.T) {
	r := newRig(t, 1, 0)
	other, err := devnet.StartChainWithID(types.GenesisAlloc{}, 0, 46630)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	pool, err := rpcpool.New(t.Context(), rpcpool.Config{URLs: []string{other.URL, r.proxies[0].URL}, ChainID: devnet.ChainID, Probe: probe, Attempt: attempt})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st := pool.Status()
	if st[0].Up || !strings.Contains(st[0].Reason, "wrong chain: chain id 46630") || !st[1].Up {
		t.Fatalf("endpoints %+v", st)
	}
	id, err := pool.Eth().ChainID(t.Context())
	if err != nil || id.Uint64() != devnet.ChainID {
		t.Fatalf("the pool's chain id %v (%v), want %d", id, err, devnet.ChainID)
	}
}

// A transaction goes to every endpoint in rotation; sent again it is accepted ("already
// known", or "nonce too low" for a transaction the node holds), and its receipt is read from
// any. A killed endpoint leaves rotation and, restarted, comes back with its chain id checked
// again.
func TestSendsGoToAllAndAKilledEndpointComesBack(t *testing.T) {
	r := newRig(t, 3, 0)
	r.eventually("all three in rotation", func() bool { return r.pool.Healthy() == 3 })
	r.proxies[1].Kill()
	eth := r.pool.Eth()
	to := crypto.PubkeyToAddress(r.key.PublicKey)
	tip, err := eth.SuggestGasTipCap(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(r.key, types.LatestSignerForChainID(big.NewInt(devnet.ChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(devnet.ChainID), Nonce: 0, GasTipCap: tip, GasFeeCap: new(big.Int).Add(tip, big.NewInt(100_000_000_000)), Gas: 21000, To: &to, Value: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := eth.SendTransaction(t.Context(), tx); err != nil {
		t.Fatalf("a send with one endpoint of three killed: %v", err)
	}
	if err := eth.SendTransaction(t.Context(), tx); err != nil {
		t.Fatalf("the same transaction sent again: %v", err)
	}
	r.eventually("the receipt", func() bool {
		rec, err := eth.TransactionReceipt(t.Context(), tx.Hash())
		return err == nil && rec.Status == types.ReceiptStatusSuccessful
	})
	if err := eth.SendTransaction(t.Context(), tx); err != nil {
		t.Fatalf("the same transaction sent after it was mined: %v", err)
	}
	// the node alone refuses the mined transaction: the pool's acceptance is its own
	direct, err := ethclient.Dial(r.chain.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	if err := direct.SendTransaction(t.Context(), tx); err == nil {
		t.Fatal("the node took a mined transaction again: the test proves nothing")
	}
	r.eventually("the killed endpoint out", func() bool { return !r.status(1).Up })
	if err := r.proxies[1].Restart(); err != nil {
		t.Fatal(err)
	}
	r.eventually("the restarted endpoint back, its chain id checked", func() bool {
		s := r.status(1)
		return s.Up && s.ChainID == devnet.ChainID
	})
}

// Heads arrive over each endpoint's websocket, and the pool's subscription follows the highest.
func TestHeadsBySubscription(t *testing.T) {
	r := newRig(t, 2, 0)
	r.eventually("both endpoints followed by websocket", func() bool { return r.status(0).Websocket && r.status(1).Websocket })
	ch := make(chan *types.Header, 4)
	sub, err := r.pool.SubscribeNewHead(t.Context(), ch)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	var last uint64
	for range 3 {
		select {
		case h := <-ch:
			if h.Number.Uint64() <= last {
				t.Fatalf("head %d after %d", h.Number, last)
			}
			last = h.Number.Uint64()
		case <-time.After(10 * time.Second):
			t.Fatal("no new head from the pool")
		}
	}
}

// Two nodes of the same chain id holding other blocks at the same height (a node on a fork, or
// another network that reuses the id): the first one read stays in rotation, the other is out.
func TestAnEndpointOnAnotherForkStaysOut(t *testing.T) {
	a, err := devnet.StartChain(types.GenesisAlloc{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := devnet.StartChainWithOptions(types.GenesisAlloc{}, devnet.ChainOptions{Now: func() time.Time { return time.Now().Add(-time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pool, err := rpcpool.New(t.Context(), rpcpool.Config{URLs: []string{a.URL, b.URL}, ChainID: devnet.ChainID, Probe: probe, Attempt: attempt})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st := pool.Status()
	if st[0].Head != st[1].Head || st[0].HeadHash == st[1].HeadHash {
		t.Fatalf("the two nodes are not at one height with other blocks: %+v", st)
	}
	up, out := st[0], st[1]
	if !up.Up {
		up, out = out, up
	}
	if !up.Up || out.Up || !strings.Contains(out.Reason, "another block at height") {
		t.Fatalf("endpoints %+v", st)
	}
}
