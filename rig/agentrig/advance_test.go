package agentrig_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/rig/agentrig"
)

// AdvanceTime with a transaction in the pool waits for the pool to empty, then seals a block d
// later. The refusal it waits out is go-ethereum's words, which this test pins: an upgrade that
// rewords it fails here rather than in every test that moves time.
func TestAdvanceTimeWaitsForThePoolToEmpty(t *testing.T) {
	ctx := context.Background()
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	from := crypto.PubkeyToAddress(sim.Keys[1].PublicKey)
	nonce, err := sim.Client.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	head, err := sim.Head()
	if err != nil {
		t.Fatal(err)
	}
	to := crypto.PubkeyToAddress(sim.Keys[0].PublicKey)
	tx, err := types.SignNewTx(sim.Keys[1], types.LatestSignerForChainID(sim.ChainID), &types.DynamicFeeTx{
		ChainID: sim.ChainID, Nonce: nonce, Gas: 21_000, To: &to, Value: big.NewInt(1),
		GasFeeCap: new(big.Int).Mul(head.BaseFee, big.NewInt(4)), GasTipCap: big.NewInt(1_000_000_000),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	// The pool lists a transaction as pending only once its background loop has promoted it,
	// a moment after SendTransaction returns, and AdjustTime looks at the pending list without
	// waiting for that loop (sealing does wait): the pool's pending nonce moves on promotion.
	for deadline := time.Now().Add(time.Minute); ; {
		n, err := sim.Client.PendingNonceAt(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		if n > nonce {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the pool never listed the transaction as pending")
		}
		time.Sleep(time.Millisecond)
	}
	if err := sim.Backend.AdjustTime(time.Hour); err == nil || !agentrig.RefusedForPooledTransaction(err) {
		t.Fatalf("AdjustTime with a pooled transaction: %v, not the refusal AdvanceTime waits out", err)
	}
	done := make(chan error, 1)
	go func() { done <- sim.AdvanceTime(time.Hour) }()
	sim.Mine(1) // mines the pooled transaction; AdvanceTime goes on once the pool forgets it
	if err := <-done; err != nil {
		t.Fatalf("AdvanceTime: %v", err)
	}
	last, err := sim.Head()
	if err != nil {
		t.Fatal(err)
	}
	parent, err := sim.Client.HeaderByHash(ctx, last.ParentHash)
	if err != nil {
		t.Fatal(err)
	}
	if last.Time-parent.Time != 3600 {
		t.Errorf("the sealed block is %d s after its parent, want 3600", last.Time-parent.Time)
	}
	if r, err := sim.Client.TransactionReceipt(ctx, tx.Hash()); err != nil || r.BlockNumber.Cmp(parent.Number) > 0 {
		t.Errorf("the pooled transaction: %+v, %v", r, err)
	}
}
