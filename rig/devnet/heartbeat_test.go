package devnet

import (
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// A heartbeat never seals a transaction younger than MinBlockInterval: a beat due 100 ms after a
// transaction arrived seals a block without it (on a Nitro-style chain, the sequencer's
// startBlock alone), and the transaction is sealed once it has waited MinBlockInterval. The
// loop is stepped by hand on its own clock (the chain's loop held), so no wall-clock time is
// asserted.
func TestHeartbeatNeverSealsATransactionYoungerThanTheHold(t *testing.T) {
	priv, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(priv.PublicKey)
	c, err := StartChainWithOptions(types.GenesisAlloc{from: {Balance: big.NewInt(params.Ether)}},
		ChainOptions{L1Block: 21_000_000, GasPrice: big.NewInt(10_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Pause() // the chain's own loop seals nothing; the test's loop below does
	ctx := testContext(t)
	client, err := c.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	paused := false
	var holdAfter func() bool
	loop := sealLoop{mu: &mu, paused: &paused, holdAfter: &holdAfter, seq: c.seq, heartbeat: time.Second,
		now: func() time.Time { return now }, onError: func(err error) { t.Errorf("sealing: %v", err) }}
	st := loopState{last: now}

	to := from
	to[0] ^= 1
	tip, _ := client.SuggestGasTipCap(ctx)
	head, _ := client.HeaderByNumber(ctx, nil)
	id := new(big.Int).SetUint64(c.ChainID)
	tx, err := types.SignNewTx(priv, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: 0, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: 21000, To: &to, Value: big.NewInt(7)})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(900 * time.Millisecond)
	if err := client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	loop.step(&st) // the transaction is seen, 100 ms before the beat
	now = now.Add(100 * time.Millisecond)
	loop.step(&st) // the beat: 100 ms after the transaction arrived
	beat, err := client.BlockByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if beat.NumberU64() != head.Number.Uint64()+1 {
		t.Fatalf("head %d after the beat, want %d: the beat sealed no block", beat.NumberU64(), head.Number.Uint64()+1)
	}
	for _, in := range beat.Transactions() {
		if in.Hash() == tx.Hash() {
			t.Fatalf("the beat's block %d sealed a transaction 100 ms old (the hold is %s)", beat.NumberU64(), MinBlockInterval)
		}
	}
	if n := len(beat.Transactions()); n != 1 {
		t.Errorf("the beat's block holds %d transactions, want the startBlock alone", n)
	}
	now = now.Add(MinBlockInterval - 100*time.Millisecond)
	loop.step(&st) // the transaction has waited the hold: its block
	r, err := client.TransactionReceipt(ctx, tx.Hash())
	if err != nil || r.Status != types.ReceiptStatusSuccessful || r.BlockNumber.Uint64() != beat.NumberU64()+1 {
		t.Fatalf("after the hold: receipt %+v (%v), want it in block %d", r, err, beat.NumberU64()+1)
	}
}
