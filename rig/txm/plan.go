package txm

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Call is one transaction a command wants to send to the contract.
type Call struct {
	Function string // what a person reads: registerRig(2, 0x…)
	To       common.Address
	Data     []byte
	Value    *big.Int // wei; never nil after Prepare
}

// Plan is a Call checked against the chain before anything is sent: simulated with eth_call from
// the sender, estimated and priced. It is what a person confirms.
type Plan struct {
	Call
	From     common.Address
	Result   []byte   // what eth_call returned (the function's return data)
	Gas      uint64   // eth_estimateGas
	GasLimit uint64   // what the transaction will carry: the estimate plus the sender's headroom
	BaseFee  *big.Int // of the latest block
	Tip      *big.Int // the node's suggested priority fee
	FeeCap   *big.Int // 2 × base fee + tip, what the sender offers at most per gas
	Fee      *big.Int // Gas × (BaseFee + Tip): what the transaction should cost
	MaxFee   *big.Int // GasLimit × FeeCap: the most it can cost
	Balance  *big.Int // the sender's balance now
}

// Total is the value plus the most the fee can be: what the sender must hold.
func (p Plan) Total() *big.Int { return new(big.Int).Add(p.Value, p.MaxFee) }

// Refused is a call the contract would revert: eth_call said so, and nothing was sent.
type Refused struct {
	Function string
	Reason   string // the contract's error name, e.g. NotEnoughRigs; "" when the node gave no data
	Detail   string // the decoded error's fields, or the node's message
	Explain  string // what it means for the person who asked, when known
}

func (r *Refused) Error() string {
	s := r.Function + " would revert"
	if r.Reason != "" {
		s += " with " + r.Reason
	}
	if r.Detail != "" {
		s += " " + r.Detail
	}
	if r.Explain != "" {
		s += ": " + r.Explain
	}
	return s + " (nothing was sent)"
}

// PlanChain is what Prepare needs of a node: the sender's calls, and the sender's balance.
type PlanChain interface {
	TxChain
	// BalanceAt is an account's balance at a block (nil: the latest).
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
}

// Prepare simulates call from the sender with eth_call, estimates its gas and prices it. A call
// the contract would refuse returns a *Refused with its decoded reason (a registered contract's
// error, RegisterErrors).
func Prepare(ctx context.Context, node PlanChain, from common.Address, call Call) (Plan, error) {
	if call.Value == nil {
		call.Value = new(big.Int)
	}
	p := Plan{Call: call, From: from}
	msg := ethereum.CallMsg{From: from, To: &call.To, Value: call.Value, Data: call.Data}
	out, err := node.CallContract(ctx, msg, nil)
	if err != nil {
		if r := refusal(call.Function, err); r != nil {
			return p, r
		}
		return p, fmt.Errorf("simulating %s: %w", call.Function, ClassifyRPCError(err))
	}
	p.Result = out
	if p.Gas, err = node.EstimateGas(ctx, msg); err != nil {
		if r := refusal(call.Function, err); r != nil {
			return p, r
		}
		return p, fmt.Errorf("estimating %s: %w", call.Function, ClassifyRPCError(err))
	}
	headroom := SenderConfig{}.withDefaults().GasHeadroomPct
	p.GasLimit = p.Gas + p.Gas*uint64(headroom)/100
	if p.Tip, err = node.SuggestGasTipCap(ctx); err != nil {
		return p, fmt.Errorf("fees: %w", ClassifyRPCError(err))
	}
	head, err := node.HeaderByNumber(ctx, nil)
	if err != nil {
		return p, fmt.Errorf("fees: %w", ClassifyRPCError(err))
	}
	p.BaseFee = new(big.Int)
	if head.BaseFee != nil {
		p.BaseFee.Set(head.BaseFee)
	}
	p.FeeCap = new(big.Int).Add(new(big.Int).Mul(p.BaseFee, big.NewInt(2)), p.Tip)
	p.Fee = new(big.Int).Mul(new(big.Int).SetUint64(p.Gas), new(big.Int).Add(p.BaseFee, p.Tip))
	p.MaxFee = new(big.Int).Mul(new(big.Int).SetUint64(p.GasLimit), p.FeeCap)
	if p.Balance, err = node.BalanceAt(ctx, from, nil); err != nil {
		return p, fmt.Errorf("balance: %w", ClassifyRPCError(err))
	}
	return p, nil
}

// refusal turns a reverting eth_call or estimate into a *Refused, or nil when err is not a revert.
func refusal(function string, err error) *Refused {
	if e, ok := contractError(err); ok {
		return &Refused{Function: function, Reason: e.Name, Detail: e.Detail, Explain: e.Explain}
	}
	if msg, ok := RevertMessage(err); ok { // reverted without a custom error of the contract
		return &Refused{Function: function, Detail: msg}
	}
	return nil
}

// SentTx is a transaction SendPlan sent, once mined: its hash and block, what it cost to the wei,
// and its logs (what the call did, for the caller to read: OrderedTasks, RegisteredRig).
type SentTx struct {
	TxHash            common.Hash
	Block             uint64
	GasUsed           uint64
	EffectiveGasPrice *big.Int
	FeePaid           *big.Int // GasUsed × EffectiveGasPrice
	Logs              []*types.Log
}

// SendPlan sends a prepared plan through the sender and returns what it cost.
func SendPlan(ctx context.Context, s *Sender, p Plan) (SentTx, error) {
	r, err := s.Send(ctx, p.To, p.Data, p.Value)
	if err != nil {
		if re := refusal(p.Function, err); re != nil {
			return SentTx{}, re
		}
		return SentTx{}, fmt.Errorf("%s: %w", p.Function, err)
	}
	return sentTx(r), nil
}

func sentTx(r *types.Receipt) SentTx {
	price := new(big.Int)
	if r.EffectiveGasPrice != nil {
		price.Set(r.EffectiveGasPrice)
	}
	fee := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), price)
	var block uint64
	if r.BlockNumber != nil {
		block = r.BlockNumber.Uint64()
	}
	return SentTx{TxHash: r.TxHash, Block: block, GasUsed: r.GasUsed, EffectiveGasPrice: price, FeePaid: fee, Logs: r.Logs}
}
