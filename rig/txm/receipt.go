package txm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/internal/clock"
)

// L1Part is what a rollup's receipt says of the L1 share of a transaction's cost. go-ethereum's
// types.Receipt drops these fields, so they are read from the receipt's JSON.
//
// Arbitrum (and Orbit chains such as Robinhood Chain) add gasUsedForL1: the units of gasUsed
// that paid for posting the transaction to L1, charged at the same effectiveGasPrice, so the L1
// fee is inside gasUsed × effectiveGasPrice. OP-stack chains add l1Fee instead: wei charged on
// top of gasUsed × effectiveGasPrice.
type L1Part struct {
	// GasUsed is Arbitrum's gasUsedForL1 (0 when the receipt has none).
	GasUsed uint64
	// Fee is the wei of the transaction's cost that paid for L1; nil when the receipt does not
	// say. Extra tells an OP-style l1Fee (paid on top of gasUsed × effectiveGasPrice) from
	// Arbitrum's (part of it).
	Fee   *big.Int
	Extra bool
}

// rollupReceipt holds the rollup fields of an eth_getTransactionReceipt answer.
type rollupReceipt struct {
	GasUsedForL1      *hexutil.Big `json:"gasUsedForL1"`
	L1Fee             *hexutil.Big `json:"l1Fee"`
	EffectiveGasPrice *hexutil.Big `json:"effectiveGasPrice"`
}

// ParseReceiptL1 reads the L1 part of a receipt from its JSON (eth_getTransactionReceipt's
// answer). A receipt of a chain without L1 fields gives a zero L1Part.
func ParseReceiptL1(raw []byte) (L1Part, error) {
	var r rollupReceipt
	if err := json.Unmarshal(raw, &r); err != nil {
		return L1Part{}, fmt.Errorf("receipt: %w", err)
	}
	var p L1Part
	switch {
	case r.L1Fee != nil:
		p.Fee, p.Extra = (*big.Int)(r.L1Fee), true
	case r.GasUsedForL1 != nil:
		g := (*big.Int)(r.GasUsedForL1)
		if !g.IsUint64() {
			return L1Part{}, fmt.Errorf("receipt: gasUsedForL1 %s out of range", g)
		}
		p.GasUsed = g.Uint64()
		if r.EffectiveGasPrice != nil {
			p.Fee = new(big.Int).Mul(g, (*big.Int)(r.EffectiveGasPrice))
		}
	}
	return p, nil
}

// ReceiptFee is what a mined transaction cost its sender, in wei: gasUsed × effectiveGasPrice,
// plus an OP-style L1 fee that is charged on top. Arbitrum's L1 part is already in gasUsed.
func ReceiptFee(r *types.Receipt, l1 L1Part) *big.Int {
	fee := new(big.Int).SetUint64(r.GasUsed)
	if r.EffectiveGasPrice != nil {
		fee.Mul(fee, r.EffectiveGasPrice)
	} else {
		fee.SetInt64(0)
	}
	if l1.Extra && l1.Fee != nil {
		fee.Add(fee, l1.Fee)
	}
	return fee
}

// errNoRawClient is ReceiptL1's answer on a backend that lends no JSON-RPC client (RawClient).
var ErrNoRawClient = errors.New("no raw JSON-RPC client")

// ReceiptL1 reads the L1 part of a mined transaction's cost from the node's JSON receipt, which
// keeps the rollup's fields that types.Receipt drops, through the node's JSON-RPC client
// (RawClient; errNoRawClient when it lends none). A node that cannot be reached is asked again a
// few times, a moment apart: the receipt was just read, so the outage is likely brief.
func ReceiptL1(ctx context.Context, node any, hash common.Hash) (L1Part, error) {
	c := RawClientOf(node)
	if c == nil {
		return L1Part{}, ErrNoRawClient
	}
	var raw json.RawMessage
	pause := 100 * time.Millisecond
	for attempt := 0; ; attempt++ {
		err := ClassifyRPCError(c.CallContext(ctx, &raw, "eth_getTransactionReceipt", hash))
		if err == nil {
			break
		}
		if !errors.Is(err, ErrRPCUnavailable) || attempt >= 3 {
			return L1Part{}, err
		}
		if err := clock.Sleep(ctx, pause); err != nil {
			return L1Part{}, err
		}
		pause *= 2
	}
	if len(raw) == 0 || string(raw) == "null" {
		return L1Part{}, errors.New("no receipt")
	}
	return ParseReceiptL1(raw)
}
