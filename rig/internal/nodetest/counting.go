package nodetest

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// Backend is what CountingNode relays to: the AgentRig client's Backend (rig/agentrig), whose
// methods are listed here because this package may not import it.
type Backend interface {
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	NonceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (uint64, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	EstimateGas(ctx context.Context, call ethereum.CallMsg) (uint64, error)
	PendingCallContract(ctx context.Context, call ethereum.CallMsg) ([]byte, error)
	CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error)
	ChainID(ctx context.Context) (*big.Int, error)
	FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error)
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
}

// pendingEstimator estimates gas at a block tag, as the simulated backend's client does.
type pendingEstimator interface {
	EstimateGasAtBlock(ctx context.Context, msg ethereum.CallMsg, blockNumber *big.Int) (uint64, error)
}

// PendingBlock is how ethclient names the pending block in a block-number argument; CountingNode
// counts an estimate there as "eth_estimateGas@" + PendingBlock.String().
var PendingBlock = big.NewInt(int64(rpc.PendingBlockNumber))

// CountingNode is a Backend that counts the requests a runner (or a sender) makes of its node: each call, and
// each JSON-RPC batch with the requests it carried.
type CountingNode struct {
	Backend
	taskOf []byte // taskOf's selector

	Mu            sync.Mutex // held to read EstimatesInBatch
	calls         map[string]int
	taskOfSingles int // taskOf read one call at a time
	taskOfBatches int // JSON-RPC batches carrying taskOf reads
	taskOfInBatch int
	// EstimatesInBatch counts the eth_estimateGas requests carried by batches.
	EstimatesInBatch int
}

func NewCountingNode(b Backend) *CountingNode {
	return &CountingNode{Backend: b, taskOf: crypto.Keccak256([]byte("taskOf(uint256)"))[:4], calls: map[string]int{}}
}

func (c *CountingNode) count(method string) {
	c.Mu.Lock()
	c.calls[method]++
	c.Mu.Unlock()
}

func (c *CountingNode) Snapshot() (calls map[string]int, singles, batches, inBatch int) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	calls = map[string]int{}
	for k, v := range c.calls {
		calls[k] = v
	}
	return calls, c.taskOfSingles, c.taskOfBatches, c.taskOfInBatch
}

func (c *CountingNode) Reset() {
	c.Mu.Lock()
	c.calls, c.taskOfSingles, c.taskOfBatches, c.taskOfInBatch, c.EstimatesInBatch = map[string]int{}, 0, 0, 0, 0
	c.Mu.Unlock()
}

func (c *CountingNode) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	c.count("eth_call")
	if bytes.HasPrefix(msg.Data, c.taskOf) {
		c.Mu.Lock()
		c.taskOfSingles++
		c.Mu.Unlock()
	}
	return c.Backend.CallContract(ctx, msg, block)
}

func (c *CountingNode) PendingCallContract(ctx context.Context, msg ethereum.CallMsg) ([]byte, error) {
	c.count("eth_call@pending")
	return c.Backend.PendingCallContract(ctx, msg)
}

func (c *CountingNode) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	c.count("eth_estimateGas")
	return c.Backend.EstimateGas(ctx, msg)
}

func (c *CountingNode) EstimateGasAtBlock(ctx context.Context, msg ethereum.CallMsg, block *big.Int) (uint64, error) {
	c.count("eth_estimateGas@" + block.String())
	return c.Backend.(pendingEstimator).EstimateGasAtBlock(ctx, msg, block)
}

func (c *CountingNode) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	c.count("eth_sendRawTransaction")
	return c.Backend.SendTransaction(ctx, tx)
}

func (c *CountingNode) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	c.count("eth_getLogs")
	return c.Backend.FilterLogs(ctx, q)
}

func (c *CountingNode) BatchCallContext(ctx context.Context, b []rpc.BatchElem) error {
	c.count("batch")
	n := 0
	for _, e := range b {
		if args, ok := e.Args[0].(map[string]any); ok && e.Method == "eth_call" {
			if data, ok := args["data"].(hexutil.Bytes); ok && bytes.HasPrefix(data, c.taskOf) {
				n++
			}
		}
	}
	c.Mu.Lock()
	if n > 0 {
		c.taskOfBatches++
		c.taskOfInBatch += n
	}
	c.Mu.Unlock()
	// The simulated backend's client hides its raw JSON-RPC client, so the batch's calls are
	// made here one by one on the same chain (the devnet tests batch over real JSON-RPC).
	for i := range b {
		e := &b[i]
		args, ok := e.Args[0].(map[string]any)
		if !ok || len(e.Args) != 2 {
			e.Error = fmt.Errorf("CountingNode: cannot relay %s %v", e.Method, e.Args)
			continue
		}
		msg := ethereum.CallMsg{Data: args["data"].(hexutil.Bytes)}
		to := args["to"].(common.Address)
		msg.To = &to
		msg.From, _ = args["from"].(common.Address)
		if v, ok := args["value"].(*hexutil.Big); ok {
			msg.Value = v.ToInt()
		}
		var block *big.Int
		switch tag := e.Args[1].(string); tag {
		case "latest":
		case "pending":
			block = PendingBlock
		default:
			block = hexutil.MustDecodeBig(tag)
		}
		switch e.Method {
		case "eth_call":
			out, err := c.Backend.CallContract(ctx, msg, block)
			if err != nil {
				e.Error = err
				continue
			}
			*e.Result.(*hexutil.Bytes) = out
		case "eth_estimateGas":
			c.Mu.Lock()
			c.EstimatesInBatch++
			c.Mu.Unlock()
			gas, err := c.Backend.(pendingEstimator).EstimateGasAtBlock(ctx, msg, block)
			if err != nil {
				e.Error = err
				continue
			}
			*e.Result.(*hexutil.Uint64) = hexutil.Uint64(gas)
		default:
			e.Error = fmt.Errorf("CountingNode: cannot relay %s", e.Method)
		}
	}
	return nil
}

func (c *CountingNode) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	c.count("eth_maxPriorityFeePerGas")
	return c.Backend.SuggestGasTipCap(ctx)
}
