package txm

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
)

// acceptCounter counts, per transaction hash, the broadcasts the node took as new (it answers
// "already known" for one it still holds).
type acceptCounter struct {
	simulated.Client
	mu       sync.Mutex
	accepted map[common.Hash]int
}

func (c *acceptCounter) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	err := c.Client.SendTransaction(ctx, tx)
	if err == nil {
		c.mu.Lock()
		c.accepted[tx.Hash()]++
		c.mu.Unlock()
	}
	return err
}

func (c *acceptCounter) taken(h common.Hash) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accepted[h]
}

// A transaction the node loses from its pool (cleared here, as a restart, an eviction or a
// node behind a load balancer that never got it would) while the sender waits for its receipt
// is sent again as it is, and mined: the sender does not wait for BumpAfter (an hour here), and
// what is mined is the very transaction first sent, not a replacement. Before, the wait ran to
// BumpAfter, and every later nonce of the key queued behind it.
func TestSenderSendsAgainATransactionTheNodeLost(t *testing.T) {
	key := newTestKey(t)
	b, _ := newSimChain(t, key.Address, common.HexToAddress("0xbeef"))
	chain := &acceptCounter{Client: b.Client(), accepted: map[common.Hash]int{}}
	s := NewSender(chain, key, big.NewInt(1337), SenderConfig{Poll: time.Millisecond, BumpAfter: time.Hour, RebroadcastAfter: time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type result struct {
		rec *types.Receipt
		err error
	}
	done := make(chan result, 1)
	go func() {
		rec, err := s.Send(ctx, common.HexToAddress("0xbeef"), nil, big.NewInt(1))
		done <- result{rec, err}
	}()
	// the first broadcast, which the node takes
	var first common.Hash
	for first == (common.Hash{}) {
		chain.mu.Lock()
		for h := range chain.accepted {
			first = h
		}
		chain.mu.Unlock()
		select {
		case <-ctx.Done():
			t.Fatal("the transaction was never sent")
		case <-time.After(time.Millisecond):
		}
	}
	b.Rollback() // the node loses it: the pool is emptied, no block has been sealed
	for chain.taken(first) < 2 {
		select {
		case <-ctx.Done():
			t.Fatalf("the node lost the transaction and the sender never sent it again (taken %d times)", chain.taken(first))
		case r := <-done:
			t.Fatalf("Send returned before the transaction was sent again: %+v", r)
		case <-time.After(time.Millisecond):
		}
	}
	for {
		b.Commit()
		select {
		case r := <-done:
			if r.err != nil || r.rec.TxHash != first || r.rec.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("Send: %+v, %v; want the receipt of %s", r.rec, r.err, first.Hex())
			}
			if n := len(chain.accepted); n != 1 {
				t.Fatalf("%d different transactions were sent, want the one", n)
			}
			return
		case <-ctx.Done():
			t.Fatal("the transaction sent again was never mined")
		case <-time.After(5 * time.Millisecond):
		}
	}
}
