package txm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/pricerig/pricerig/rig/internal/nodetest"
)

// risingFeeChain is a node whose base fee rose ten-fold after the sender's quote: the first
// header it answers carries a tenth of the base fee (the block before the rise), and it refuses
// at submission a fee cap below the current base fee as Nitro's sequencer does, in go-ethereum's
// words (core.ErrFeeCapTooLow) and JSON-RPC's generic code. Its tip suggestion is the
// simulated sealer's least (0.001 gwei, go-ethereum's miner default): Nitro suggests 0, which
// the simulated sealer would never mine.
type risingFeeChain struct {
	*nodetest.GatedChain
	stale   atomic.Bool
	refused atomic.Int32
}

func (c *risingFeeChain) SuggestGasTipCap(context.Context) (*big.Int, error) {
	return big.NewInt(params.GWei / 1000), nil
}

func (c *risingFeeChain) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	h, err := c.GatedChain.HeaderByNumber(ctx, n)
	if err != nil || !c.stale.CompareAndSwap(true, false) {
		return h, err
	}
	before := types.CopyHeader(h)
	before.BaseFee = new(big.Int).Div(h.BaseFee, big.NewInt(10))
	return before, nil
}

func (c *risingFeeChain) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	head, err := c.GatedChain.HeaderByNumber(ctx, nil)
	if err != nil {
		return err
	}
	if tx.GasFeeCap().Cmp(head.BaseFee) < 0 {
		c.refused.Add(1)
		from, _ := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
		return nodeError{code: -32000, msg: fmt.Sprintf("max fee per gas less than block base fee: address %s, maxFeePerGas: %s, baseFee: %s", from.Hex(), tx.GasFeeCap(), head.BaseFee)}
	}
	return c.GatedChain.SendTransaction(ctx, tx)
}

// A base fee ten times the one quoted: the node refuses the first fee cap, the sender quotes
// again and sends at the same nonce, so the next transaction follows with no gap. With a
// --max-gas-price under the chain's fee, nothing is sent and the error says the answer is held
// back by it; the nonce it did not use is the next send's.
func TestSenderRepricesWhenTheBaseFeeRoseTenFold(t *testing.T) {
	key := newTestKey(t)
	b, gated := newSimChain(t, key.Address)
	nodetest.MineWhen(t, b, func() bool { return true })
	chain := &risingFeeChain{GatedChain: gated}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	head, err := gated.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}

	capped := NewSender(chain, key, big.NewInt(1337), SenderConfig{Poll: time.Millisecond, MaxGasPrice: new(big.Int).Div(head.BaseFee, big.NewInt(2))})
	if _, err := capped.Send(ctx, to, nil, big.NewInt(1)); !errors.Is(err, ErrGasPriceCapped) || gated.Sends.Load() != 0 {
		t.Fatalf("under a cap half the base fee: %v after %d broadcasts, want ErrGasPriceCapped and none", err, gated.Sends.Load())
	}

	s := NewSender(chain, key, big.NewInt(1337), SenderConfig{Poll: time.Millisecond})
	chain.stale.Store(true)
	r, err := s.Send(ctx, to, nil, big.NewInt(1))
	if err != nil {
		t.Fatalf("after a ten-fold rise: %v (%d refused)", err, chain.refused.Load())
	}
	if chain.refused.Load() != 1 {
		t.Errorf("%d refusals, want the stale quote's one", chain.refused.Load())
	}
	tx, _, err := gated.TransactionByHash(ctx, r.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Nonce() != 0 {
		t.Errorf("mined at nonce %d, want 0", tx.Nonce())
	}
	r, err = s.Send(ctx, to, nil, big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}
	if tx, _, err = gated.TransactionByHash(ctx, r.TxHash); err != nil || tx.Nonce() != 1 {
		t.Fatalf("the next transaction at nonce %v (%v), want 1: no gap", tx.Nonce(), err)
	}
}
