package agentrig

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"
)

// The money of a rig's gas: what a transaction pays per gas now, what a day of tasks costs the
// key that pays the gas, how many days its balance covers, and the gas price above which a task
// costs its rig more than it earns. `pricerig operator status` and `pricerig doctor` both show
// them.

// GasReader is what the gas price is read from; *ethclient.Client and every Backend have it.
type GasReader interface {
	// SuggestGasTipCap is the node's suggested priority fee (eth_maxPriorityFeePerGas).
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	// HeaderByNumber is a block's header (nil: the latest), for its base fee.
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
}

// GasPrice is what a transaction sent now pays per gas: the latest head's base fee plus the
// node's suggested tip (EIP-1559: the base fee is burnt, the tip goes to the block's producer).
func GasPrice(ctx context.Context, node GasReader) (*big.Int, error) {
	tip, err := node.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, fmt.Errorf("eth_maxPriorityFeePerGas: %w", err)
	}
	head, err := node.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("the latest head: %w", err)
	}
	price := new(big.Int).Set(tip)
	if head.BaseFee != nil {
		price.Add(price, head.BaseFee)
	}
	return price, nil
}

// GasDay is a day of a rig's tasks at a gas price: GasPerTask (its latest commit and reveal)
// times TasksPerDay times GasPrice, in wei.
type GasDay struct {
	GasPerTask  uint64
	TasksPerDay int
	GasPrice    *big.Int
	Wei         *big.Int
}

// NewGasDay is a day of tasksPerDay tasks of gasPerTask gas each at price wei a gas.
func NewGasDay(gasPerTask uint64, tasksPerDay int, price *big.Int) GasDay {
	wei := new(big.Int).Mul(new(big.Int).SetUint64(gasPerTask), price)
	wei.Mul(wei, big.NewInt(int64(tasksPerDay)))
	return GasDay{GasPerTask: gasPerTask, TasksPerDay: tasksPerDay, GasPrice: new(big.Int).Set(price), Wei: wei}
}

// Covers is how many whole days of gas balance pays for; nil when a day costs nothing.
func (d GasDay) Covers(balance *big.Int) *big.Int {
	if d.Wei.Sign() <= 0 {
		return nil
	}
	return new(big.Int).Quo(balance, d.Wei)
}

// RigShare is what each agreeing rig's operator is credited for an agreed task of price wei
// that agree rigs agreed on: the price less the builder's BuilderBps, in equal shares, as the
// reference contract pays it (AgentRig.sol, _payAgreed: the division's dust goes to the builder).
// A relayer's fee, when the operator consented to one, comes out of it.
func RigShare(price *big.Int, agree int) *big.Int {
	if agree <= 0 {
		return new(big.Int)
	}
	builder := new(big.Int).Quo(new(big.Int).Mul(price, big.NewInt(BuilderBps)), big.NewInt(10_000))
	rest := new(big.Int).Sub(price, builder)
	return rest.Quo(rest, big.NewInt(int64(agree)))
}

// BreakEvenGasPrice is the highest gas price at which a task's gasPerTask gas costs no more than
// the share it earns (rounded down); nil when the gas is unknown (0).
func BreakEvenGasPrice(share *big.Int, gasPerTask uint64) *big.Int {
	if gasPerTask == 0 {
		return nil
	}
	return new(big.Int).Quo(share, new(big.Int).SetUint64(gasPerTask))
}
