package devnet

import (
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

func TestChainServesJSONRPCAndMinesPendingTransactions(t *testing.T) {
	for _, want := range []uint64{ChainID, 46630} {
		t.Run(fmt.Sprint(want), func(t *testing.T) { testChainServes(t, want) })
	}
}

// The chain answers eth_chainId with the id it was started with and mines a transaction signed
// for that id (a transaction signed for another id would be refused).
func testChainServes(t *testing.T, want uint64) {
	priv, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(priv.PublicKey)
	c, err := StartChainWithID(types.GenesisAlloc{from: {Balance: big.NewInt(params.Ether)}}, time.Hour, want)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := testContext(t)
	client, err := c.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	id, err := client.ChainID(ctx)
	if err != nil || id.Uint64() != want || c.ChainID != want {
		t.Fatalf("chain id %v %v", id, err)
	}
	head, _ := client.HeaderByNumber(ctx, nil)
	tip, _ := client.SuggestGasTipCap(ctx)
	to := crypto.PubkeyToAddress(priv.PublicKey)
	to[0] ^= 1
	tx, _ := types.SignNewTx(priv, types.LatestSignerForChainID(id), &types.DynamicFeeTx{
		ChainID: id, Nonce: 0, GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: 21000, To: &to, Value: big.NewInt(7),
	})
	if err := client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	// Wait on the mining itself (the context only stops a hang; 2000 looks 5 ms apart were a
	// wall-clock bound), then for the head to reach the receipt's block: a receipt can be found
	// a moment before its block is the head that "latest" reads.
	var mined *types.Receipt
	waitFor(ctx, t, "the pending transaction mined", func() bool {
		r, err := client.TransactionReceipt(ctx, tx.Hash())
		if err == nil && r.Status == types.ReceiptStatusSuccessful {
			mined = r
		}
		return mined != nil
	})
	waitFor(ctx, t, "the head at the receipt's block", func() bool {
		n, err := client.BlockNumber(ctx)
		return err == nil && n >= mined.BlockNumber.Uint64()
	})
	if bal, _ := client.BalanceAt(ctx, to, nil); bal.Int64() != 7 {
		t.Fatalf("balance %s", bal)
	}
}

// A chain started with a gas price holds it: every transaction, the first and one sent after a
// run of empty blocks (which would lower a base fee), pays exactly that price per gas, the tip
// the node suggests; also a price above the node's gas-price oracle cap (500 gwei), where the
// suggestion fell short of the sealer's floor and nothing was mined.
func TestChainHoldsTheGasPriceItWasStartedWith(t *testing.T) {
	for _, price := range []*big.Int{
		big.NewInt(10_000_000),        // 0.01 gwei, Arbitrum's base-fee floor
		big.NewInt(1_000_000_000_000), // 1000 gwei
	} {
		t.Run(price.String(), func(t *testing.T) { chainHoldsGasPrice(t, price) })
	}
}

func chainHoldsGasPrice(t *testing.T, price *big.Int) {
	priv, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(priv.PublicKey)
	c, err := StartChainWithOptions(types.GenesisAlloc{from: {Balance: big.NewInt(params.Ether)}}, ChainOptions{GasPrice: price})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := testContext(t)
	client, err := c.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	to := from
	to[0] ^= 1
	for nonce := range uint64(2) {
		if nonce == 1 {
			_ = c.Do(func(b *Sequencer) error {
				for range 20 {
					b.Commit()
				}
				return nil
			})
		}
		tip, err := client.SuggestGasTipCap(ctx)
		if err != nil || tip.Cmp(price) != 0 {
			t.Fatalf("suggested tip %v (%v), want %s", tip, err, price)
		}
		head, err := client.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := types.SignNewTx(priv, types.LatestSignerForChainID(new(big.Int).SetUint64(c.ChainID)), &types.DynamicFeeTx{
			ChainID: new(big.Int).SetUint64(c.ChainID), Nonce: nonce, GasTipCap: tip,
			GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: 21000, To: &to, Value: big.NewInt(7)})
		if err != nil {
			t.Fatal(err)
		}
		if err := client.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		var r *types.Receipt
		// Waits on the mining itself: only the test's context stops a hang (2000 looks 5 ms
		// apart were a wall-clock bound).
		waitFor(ctx, t, "the transaction mined", func() bool {
			r, err = client.TransactionReceipt(ctx, tx.Hash())
			return err == nil
		})
		if r.EffectiveGasPrice.Cmp(price) != 0 {
			t.Fatalf("transaction %d paid %s wei per gas, want %s", nonce, r.EffectiveGasPrice, price)
		}
	}
}

// HoldAfter stops the chain in exactly the block after which its condition holds: no block
// follows it until Resume, whatever the heartbeat.
func TestHoldAfterStopsInTheBlockWhereTheConditionHolds(t *testing.T) {
	c, err := StartChain(types.GenesisAlloc{}, MinBlockInterval)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := testContext(t)
	client, err := c.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	head := func() uint64 {
		n, err := client.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	target := head() + 3
	c.HoldAfter(func() bool { return head() >= target })
	waitFor(ctx, t, "the hold", c.Held)
	if got := head(); got != target {
		t.Fatalf("held at block %d, want %d", got, target)
	}
	c.Resume()
	waitFor(ctx, t, "a block after the resume", func() bool { return head() > target })
}
