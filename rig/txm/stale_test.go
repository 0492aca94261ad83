package txm

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/pricerig/pricerig/rig/internal/nodetest"
)

// A reorg drops a mined transaction of the key, so the sender's next nonce lies behind a gap: the
// next transaction waits there until BumpAfter and is then sent again at the chain's nonce. The
// version first sent stays in the pool and is mined as soon as the gap fills: a second copy of
// the same call, paid for. Both are reported to OnMined, so the accounts hold every transaction
// the key got mined. Before, only the one Send returned was, and the devnet's reorg accounting
// test waited for the journals to match the chain until CI's deadline.
func TestSenderReportsAVersionLeftBehindANonceGap(t *testing.T) {
	key := newTestKey(t)
	b, chain := newSimChain(t, key.Address)
	var mu sync.Mutex
	reported := map[common.Hash]bool{}
	s := NewSender(chain, key, big.NewInt(1337), SenderConfig{Poll: time.Millisecond, BumpAfter: 50 * time.Millisecond,
		RebroadcastAfter: time.Hour, OnMined: func(_ context.Context, _ common.Address, _ []byte, r *types.Receipt) {
			mu.Lock()
			reported[r.TxHash] = true
			mu.Unlock()
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	genesis, err := chain.HeaderByNumber(ctx, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}

	// The first transaction is mined in block 1, then a reorg takes block 1 away and the pool
	// loses it: the sender still holds nonce 1 as its next.
	done := make(chan error, 1)
	go func() {
		_, err := s.Send(ctx, to, nil, big.NewInt(1))
		done <- err
	}()
	waitPendingNonce(t, chain, key.Address, 1)
	b.Commit()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := b.Fork(genesis.Hash()); err != nil {
		t.Fatal(err)
	}
	b.Rollback()
	waitPendingNonce(t, chain, key.Address, 0)

	nodetest.MineWhen(t, b, func() bool { return true })
	rec, err := s.Send(ctx, to, nil, big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}

	// Every transaction of the key on the chain now is reported, and nothing else.
	for {
		n, err := chain.NonceAt(ctx, key.Address, nil)
		if err != nil && ctx.Err() == nil {
			t.Fatal(err)
		}
		mu.Lock()
		count := len(reported)
		mu.Unlock()
		if n == 2 && count == 2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the key's mined nonce is %d and %d of its transactions were reported; Send returned %s", n, count, rec.TxHash.Hex())
		case <-time.After(time.Millisecond):
		}
	}
	head, err := chain.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	onChain := map[common.Hash]bool{}
	signer := types.LatestSignerForChainID(big.NewInt(1337))
	for i := uint64(1); i <= head.Number.Uint64(); i++ {
		block, err := chain.BlockByNumber(ctx, new(big.Int).SetUint64(i))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range block.Transactions() {
			if from, err := types.Sender(signer, tx); err == nil && from == key.Address {
				onChain[tx.Hash()] = true
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(onChain) != 2 {
		t.Fatalf("%d transactions of the key on the chain, want the resend and the version left behind the gap", len(onChain))
	}
	for h := range onChain {
		if !reported[h] {
			t.Errorf("mined %s was not reported", h.Hex())
		}
	}
}

// refusingReplacements takes a key's first transaction of each nonce and refuses every other
// version as underpriced, as a full pool or another holder of the nonce paying more would.
type refusingReplacements struct {
	simulated.Client
	mu       sync.Mutex
	seen     map[uint64]bool
	refusals int
}

func (c *refusingReplacements) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[tx.Nonce()] {
		c.refusals++
		return nodeError{msg: "replacement transaction underpriced", code: -32000} // geth's words and code
	}
	c.seen[tx.Nonce()] = true
	return c.Client.SendTransaction(ctx, tx)
}

// A node that refuses every replacement as underpriced does not make the sender walk the fee up
// without end: each refusal counts against MaxBumps, and Send gives up with ErrUnderpriced.
// Before, the replacement loop had no bound but the node's own fee cap (1 ETH on geth).
func TestSenderStopsBumpingWhenEveryReplacementIsRefused(t *testing.T) {
	key := newTestKey(t)
	b, _ := newSimChain(t, key.Address)
	chain := &refusingReplacements{Client: b.Client(), seen: map[uint64]bool{}}
	const maxBumps = 3
	s := NewSender(chain, key, big.NewInt(1337), SenderConfig{Poll: time.Millisecond, BumpAfter: 5 * time.Millisecond, MaxBumps: maxBumps})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// nothing is mined: the first version waits in the pool
	_, err := s.Send(ctx, common.HexToAddress("0x00000000000000000000000000000000000000dd"), nil, big.NewInt(1))
	if !errors.Is(err, ErrUnderpriced) {
		t.Fatalf("Send: %v, want ErrUnderpriced", err)
	}
	chain.mu.Lock()
	defer chain.mu.Unlock()
	if chain.refusals == 0 || chain.refusals > maxBumps+1 {
		t.Fatalf("%d replacements refused, want 1..%d", chain.refusals, maxBumps+1)
	}
}
