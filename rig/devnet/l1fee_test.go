package devnet

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/holiman/uint256"

	"github.com/pricerig/pricerig/rig/txm"
)

// On a chain charging Robinhood Chain's L1 part, a transaction's sender pays exactly (execution
// gas + gasUsedForL1) × effectiveGasPrice, block by block; the receipt's gasUsed is that sum;
// gasUsedForL1 is the poster cost (16 units a brotli-compressed byte at the L1 price) over the
// gas price, so it grows with the transaction's size; the L1 pricer's pool gets what was charged.
func TestTheL1PartIsChargedAsNitroChargesIt(t *testing.T) {
	key, from, ctx, raw, client, id, to := startL1FeeChain(t)

	var lastUnits, poolPaid uint64
	for i, size := range []int{100, 1000} {
		data := make([]byte, size) // random bytes: brotli cannot shrink them
		_, _ = rand.Read(data)
		nonce, err := client.PendingNonceAt(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		rules, value := params.Rules{IsHomestead: true, IsIstanbul: true, IsPrague: true, IsOsaka: true}, uint256.NewInt(7)
		intrinsic, _ := core.IntrinsicGas(data, nil, nil, from, &to, value, rules)
		floor, _ := core.FloorDataGas(rules, from, &to, value, data, nil)
		execution := max(intrinsic, floor) // a call to an account without code runs nothing
		tx, _ := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce,
			GasTipCap: DefaultGasPrice, GasFeeCap: DefaultGasPrice, Gas: execution, To: &to, Value: big.NewInt(7), Data: data})
		if err := client.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		var receipt map[string]json.RawMessage
		waitFor(ctx, t, "the call mined", func() bool {
			return raw.CallContext(ctx, &receipt, "eth_getTransactionReceipt", tx.Hash()) == nil && receipt != nil
		})
		gasUsed, l1 := quantityOf(t, receipt["gasUsed"]), quantityOf(t, receipt["gasUsedForL1"])
		price := new(big.Int).SetUint64(quantityOf(t, receipt["effectiveGasPrice"]))
		units, err := PosterUnits(tx)
		if err != nil {
			t.Fatal(err)
		}
		wantL1 := new(big.Int).Quo(new(big.Int).Mul(DefaultL1BaseFee, new(big.Int).SetUint64(units)), price).Uint64()
		switch {
		case price.Cmp(DefaultGasPrice) != 0:
			t.Fatalf("effectiveGasPrice %s, want %s", price, DefaultGasPrice)
		case units < 16*uint64(size) || units <= lastUnits:
			t.Fatalf("%d bytes of random calldata: %d poster units, want at least %d and more than the smaller call's %d", size, units, 16*size, lastUnits)
		case l1 == 0 || l1 != wantL1:
			t.Fatalf("gasUsedForL1 %d, want %d (%d units at %s wei over %s)", l1, wantL1, units, DefaultL1BaseFee, price)
		case gasUsed != execution+l1:
			t.Fatalf("gasUsed %d, want the execution's %d + gasUsedForL1 %d", gasUsed, execution, l1)
		}
		lastUnits = units
		// the sender's balance moved by exactly the value and gasUsed × effectiveGasPrice
		block := new(big.Int).SetUint64(quantityOf(t, receipt["blockNumber"]))
		before, _ := client.BalanceAt(ctx, from, new(big.Int).Sub(block, common.Big1))
		after, _ := client.BalanceAt(ctx, from, block)
		paid := new(big.Int).Sub(before, after)
		if want := new(big.Int).Add(big.NewInt(7), new(big.Int).Mul(price, new(big.Int).SetUint64(gasUsed))); paid.Cmp(want) != 0 {
			t.Fatalf("transaction %d: the sender paid %s wei, want 7 + %d × %s = %s", i, paid, gasUsed, price, want)
		}
		// and the rig's reading of the receipt counts the same
		receiptJSON, _ := json.Marshal(receipt)
		if part, err := txm.ParseReceiptL1(receiptJSON); err != nil || part.GasUsed != l1 || part.Extra {
			t.Fatalf("the rig reads the L1 part as %+v (%v), want %d gas inside gasUsed", part, err, l1)
		}
		poolPaid += l1
		pool, _ := client.BalanceAt(ctx, L1FundsPool, block)
		if want := new(big.Int).Mul(price, new(big.Int).SetUint64(poolPaid)); pool.Cmp(want) != 0 {
			t.Fatalf("the L1 pricer's pool holds %s wei, want %s", pool, want)
		}
	}
}

// eth_estimateGas counts the L1 part as a Nitro node does: a transaction sent with the estimate
// as its gas limit is mined, and its receipt's gasUsed (execution + gasUsedForL1) does not pass
// the limit. go-ethereum's estimate alone is the execution's, which the receipt passed.
func TestEstimateGasCountsTheL1Part(t *testing.T) {
	key, from, ctx, raw, client, id, to := startL1FeeChain(t)
	data := make([]byte, 500)
	_, _ = rand.Read(data)
	limit, err := client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: big.NewInt(7), Data: data})
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: 0,
		GasTipCap: DefaultGasPrice, GasFeeCap: DefaultGasPrice, Gas: limit, To: &to, Value: big.NewInt(7), Data: data})
	if err := client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var receipt map[string]json.RawMessage
	waitFor(ctx, t, "the call mined", func() bool {
		return raw.CallContext(ctx, &receipt, "eth_getTransactionReceipt", tx.Hash()) == nil && receipt != nil
	})
	gasUsed, l1 := quantityOf(t, receipt["gasUsed"]), quantityOf(t, receipt["gasUsedForL1"])
	if l1 == 0 || gasUsed > limit || quantityOf(t, receipt["status"]) != 1 {
		t.Fatalf("estimate %d: gasUsed %d (gasUsedForL1 %d), status %s; want ok and gasUsed within the estimate", limit, gasUsed, l1, receipt["status"])
	}
}

// startL1FeeChain starts a chain charging Robinhood Chain's L1 part with one funded key, and
// dials it: the key and its address, the test's context, the raw and typed clients,
// the chain id, and an address to send to.
func startL1FeeChain(t *testing.T) (*ecdsa.PrivateKey, common.Address, context.Context, *rpc.Client, *ethclient.Client, *big.Int, common.Address) {
	t.Helper()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	c, err := StartChainWithOptions(types.GenesisAlloc{from: {Balance: big.NewInt(params.Ether)}},
		ChainOptions{L1Block: DefaultL1Block, GasPrice: DefaultGasPrice, L1BaseFee: DefaultL1BaseFee})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := testContext(t)
	raw, err := rpc.DialContext(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	client := ethclient.NewClient(raw)
	id := new(big.Int).SetUint64(c.ChainID)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	return key, from, ctx, raw, client, id, to
}
