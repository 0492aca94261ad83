package txm

// What a call would do before it is sent: simulated against the pending state, its gas
// estimated, and both at once for many calls in one JSON-RPC batch (CheckMany); a revert is told
// by the node's error code and data (revert.go).

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"golang.org/x/sync/errgroup"
)

// Simulate runs a call from this key against the pending state (the chain with the
// transactions the node knows of applied). One that would revert gives an error wrapping
// ErrWouldRevert and the node's error, whose revert data RevertMessage (and the AgentRig
// client's RevertReason) reads.
func (s *Sender) Simulate(ctx context.Context, to common.Address, data []byte, value *big.Int) error {
	msg := ethereum.CallMsg{From: s.from, To: &to, Data: data, Value: value}
	if err := s.retryRPC(ctx, func() error { _, err := s.chain.PendingCallContract(ctx, msg); return err }); err != nil {
		if errors.Is(err, ErrRPCUnavailable) || ctx.Err() != nil {
			return fmt.Errorf("simulate: %w", err)
		}
		return fmt.Errorf("%w: %w", ErrWouldRevert, err)
	}
	return nil
}

// Estimate is eth_estimateGas of a call from this key against the latest block, without the
// headroom Send adds.
func (s *Sender) Estimate(ctx context.Context, to common.Address, data []byte, value *big.Int) (uint64, error) {
	return s.estimateAt(ctx, ethereum.CallMsg{From: s.from, To: &to, Data: data, Value: value}, nil)
}

// pendingEstimator estimates gas at a block tag; *ethclient.Client does (and so the simulated
// backend's client).
type pendingEstimator interface {
	// EstimateGasAtBlock is eth_estimateGas at a block number or tag (pendingBlock).
	EstimateGasAtBlock(ctx context.Context, msg ethereum.CallMsg, blockNumber *big.Int) (uint64, error)
}

// pendingBlock is how ethclient names the pending block in a block-number argument.
var pendingBlock = big.NewInt(int64(rpc.PendingBlockNumber))

// estimateAt is eth_estimateGas at block (nil: the node's default, the latest; pendingBlock:
// the pending state). A call that reverts gives ErrWouldRevert.
func (s *Sender) estimateAt(ctx context.Context, msg ethereum.CallMsg, block *big.Int) (uint64, error) {
	var gas uint64
	err := s.retryRPC(ctx, func() error {
		var err error
		if pe, ok := s.chain.(pendingEstimator); ok && block != nil {
			gas, err = pe.EstimateGasAtBlock(ctx, msg, block)
		} else {
			gas, err = s.chain.EstimateGas(ctx, msg)
		}
		return err
	})
	if err != nil {
		if isRevert(err) {
			return 0, fmt.Errorf("%w: estimate gas: %w", ErrWouldRevert, err)
		}
		return 0, fmt.Errorf("estimate gas: %w", err)
	}
	return gas, nil
}

// Check simulates a call from this key against the pending state and estimates its gas (without
// the headroom Send adds). One that would revert gives an error wrapping ErrWouldRevert. A node
// that estimates at the pending state does both in one eth_estimateGas, which executes the call
// at the full gas cap first and reverts exactly when eth_call would; otherwise (or when the node
// refuses a block tag on eth_estimateGas) it is an eth_call at pending and an estimate at latest.
func (s *Sender) Check(ctx context.Context, to common.Address, data []byte, value *big.Int) (uint64, error) {
	msg := ethereum.CallMsg{From: s.from, To: &to, Data: data, Value: value}
	if _, ok := s.chain.(pendingEstimator); ok && !s.noPendingEstimate.Load() {
		gas, err := s.estimateAt(ctx, msg, pendingBlock)
		if err == nil || errors.Is(err, ErrWouldRevert) || errors.Is(err, ErrRPCUnavailable) || ctx.Err() != nil {
			return gas, err
		}
		// Not a revert: perhaps a node that takes no block tag here. Try the two calls; when they
		// pass, this node is asked that way from now on.
		if err := s.Simulate(ctx, to, data, value); err != nil {
			return 0, err
		}
		gas, lerr := s.Estimate(ctx, to, data, value)
		if lerr == nil {
			s.noPendingEstimate.Store(true)
			s.cfg.Logger.Warn("the node does not estimate gas at the pending state: simulating and estimating apart", "error", err)
		}
		return gas, lerr
	}
	if err := s.Simulate(ctx, to, data, value); err != nil {
		return 0, err
	}
	return s.Estimate(ctx, to, data, value)
}

// CheckRequest is one call to Check: the call, from one of the caller's senders.
type CheckRequest struct {
	From *Sender
	Call Call
}

// CheckResult is what Check gave a CheckRequest: the call's gas, or why it would not go.
type CheckResult struct {
	Gas uint64
	Err error
}

// checkWorkers bounds the calls CheckMany checks alone in flight at once (a node that takes no
// JSON-RPC batches).
const checkWorkers = 8

// CheckMany is Check of many calls, from any of the caller's senders on one node, in one JSON-RPC
// batch of eth_estimateGas at the pending state when the node takes batches and that tag: a plan
// of sixty answers is one round trip, not sixty. A call the batch could not settle (the node's
// batch failed, or its answer is neither a gas nor a revert) is checked alone; without batches
// every call is, checkWorkers at a time.
func CheckMany(ctx context.Context, reqs []CheckRequest) []CheckResult {
	out := make([]CheckResult, len(reqs))
	alone := make([]int, 0, len(reqs))
	bc := BatcherOf(reqs[0].From.chain)
	_, pending := reqs[0].From.chain.(pendingEstimator)
	if bc == nil || !pending || reqs[0].From.noPendingEstimate.Load() {
		for i := range reqs {
			alone = append(alone, i)
		}
	} else {
		gas := make([]hexutil.Uint64, len(reqs))
		elems := make([]rpc.BatchElem, len(reqs))
		for i, q := range reqs {
			arg := map[string]any{"from": q.From.from, "to": q.Call.To, "data": hexutil.Bytes(q.Call.Data)}
			if q.Call.Value != nil && q.Call.Value.Sign() != 0 {
				arg["value"] = (*hexutil.Big)(q.Call.Value)
			}
			elems[i] = rpc.BatchElem{Method: "eth_estimateGas", Args: []any{arg, "pending"}, Result: &gas[i]}
		}
		if err := bc.BatchCallContext(ctx, elems); err != nil {
			if ctx.Err() != nil {
				for i := range out {
					out[i].Err = ctx.Err()
				}
				return out
			}
			for i := range reqs {
				alone = append(alone, i)
			}
		} else {
			for i, e := range elems {
				switch {
				case e.Error == nil:
					out[i].Gas = uint64(gas[i])
				case isRevert(e.Error):
					out[i].Err = fmt.Errorf("%w: estimate gas: %w", ErrWouldRevert, e.Error)
				default:
					alone = append(alone, i)
				}
			}
		}
	}
	var g errgroup.Group
	g.SetLimit(checkWorkers)
	for _, i := range alone {
		g.Go(func() error {
			q := reqs[i]
			out[i].Gas, out[i].Err = q.From.Check(ctx, q.Call.To, q.Call.Data, q.Call.Value)
			return nil
		})
	}
	_ = g.Wait() // each result carries its error
	return out
}

// isRevert reports whether a node's error is the call reverting: its JSON-RPC code and data
// (RevertData), never its words.
func isRevert(err error) bool {
	_, reverts := RevertData(err)
	return reverts
}
