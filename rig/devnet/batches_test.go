package devnet

import (
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// The `safe` and `finalized` tags answer as a Nitro node's do: from the start (the chain's first
// block), then a block turns safe once the batch poster posted a batch holding it, and final
// once that batch's L1 block is FinalL1Blocks behind L1's head. The chain's and the loop's clock
// is the test's, an hour in the past (go-ethereum refuses blocks stamped in its future).
func TestSafeAndFinalizedFollowTheBatchPosterAndL1(t *testing.T) {
	priv, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(priv.PublicKey)
	var clockMu sync.Mutex
	now := time.Now().Add(-time.Hour).Truncate(time.Second)
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	advance := func(d time.Duration) { clockMu.Lock(); now = now.Add(d); clockMu.Unlock() }
	c, err := StartChainWithOptions(types.GenesisAlloc{from: {Balance: big.NewInt(params.Ether)}},
		ChainOptions{L1Block: 21_000_000, L1Interval: time.Second, BatchInterval: 10 * time.Second, FinalL1Blocks: 5,
			GasPrice: big.NewInt(10_000_000), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Pause()
	ctx := testContext(t)
	client, err := c.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	var mu sync.Mutex
	paused := false
	var holdAfter func() bool
	loop := sealLoop{mu: &mu, paused: &paused, holdAfter: &holdAfter, seq: c.seq, now: clock,
		onError: func(err error) { t.Errorf("sealing: %v", err) }}
	st := loopState{last: clock()}
	tag := func(name string, n rpc.BlockNumber) uint64 {
		t.Helper()
		h, err := client.HeaderByNumber(ctx, big.NewInt(int64(n)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return h.Number.Uint64()
	}
	start := tag("latest", rpc.LatestBlockNumber)
	if s, f := tag("safe", rpc.SafeBlockNumber), tag("finalized", rpc.FinalizedBlockNumber); s != start || f != start {
		t.Fatalf("at the start: safe %d, finalized %d, want the first block %d", s, f, start)
	}
	// a block of one transaction, 3 s in: no batch yet
	to := from
	to[0] ^= 1
	id := new(big.Int).SetUint64(c.ChainID)
	tip, _ := client.SuggestGasTipCap(ctx)
	tx, _ := types.SignNewTx(priv, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, GasTipCap: tip, GasFeeCap: tip, Gas: 21000, To: &to, Value: big.NewInt(1)})
	if err := client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	advance(3 * time.Second)
	loop.step(&st)
	advance(MinBlockInterval)
	loop.step(&st)
	mined := tag("latest", rpc.LatestBlockNumber)
	if mined != start+1 || tag("safe", rpc.SafeBlockNumber) != start {
		t.Fatalf("before a batch: latest %d, safe %d; want %d and %d", mined, tag("safe", rpc.SafeBlockNumber), start+1, start)
	}
	// the batch poster's interval passes: the block is safe, not final
	advance(7 * time.Second)
	loop.step(&st)
	if s, f := tag("safe", rpc.SafeBlockNumber), tag("finalized", rpc.FinalizedBlockNumber); s != mined || f != start {
		t.Fatalf("after a batch: safe %d, finalized %d; want %d and %d", s, f, mined, start)
	}
	// five L1 blocks later the batch's L1 block is final
	advance(5 * time.Second)
	loop.step(&st)
	if f := tag("finalized", rpc.FinalizedBlockNumber); f != mined {
		t.Fatalf("five L1 blocks after the batch: finalized %d, want %d", f, mined)
	}
}
