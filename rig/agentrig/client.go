package agentrig

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig/txm"
)

// Backend is what the rig calls on a node: the sender's calls (TxChain), the chain id, logs
// (the reference deployment's events, operator status) and balances (Prepare).
// *ethclient.Client satisfies it, so does the simulated backend's client.
type Backend interface {
	txm.TxChain
	// ChainID is the node's chain id (eth_chainId): every EIP-712 domain and transaction's.
	ChainID(ctx context.Context) (*big.Int, error)
	// FilterLogs lists the logs a query matches (eth_getLogs): the contract's events.
	FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error)
	// BalanceAt is an account's balance at a block (nil: the latest).
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
}

// Contract reads an AgentRig deployment through its abigen binding.
type Contract struct {
	Address common.Address
	abi     *AgentRig
	backend Backend
}

// NewContract binds an AgentRig deployment.
func NewContract(backend Backend, address common.Address) *Contract {
	return &Contract{Address: address, abi: NewAgentRig(), backend: backend}
}

// ABI is the binding, for packing transactions.
func (c *Contract) ABI() *AgentRig { return c.abi }

func (c *Contract) call(ctx context.Context, data []byte) ([]byte, error) {
	return CallView(ctx, c.backend, c.Address, data)
}

// ViewCaller is what a view call needs of a node: eth_call. *ethclient.Client has it, and so
// does every Backend.
type ViewCaller interface {
	// CallContract runs a call at a block (nil: the latest) and returns what it returned.
	CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
}

// CallView calls a view of the contract at address with data (eth_call at the latest block), its
// error sorted as the transaction manager sorts a node's errors (txm.ClassifyRPCError: an
// unreachable node is txm.ErrRPCUnavailable), for a reader that holds the binding alone (the
// operator's page).
func CallView(ctx context.Context, node ViewCaller, address common.Address, data []byte) ([]byte, error) {
	out, err := node.CallContract(ctx, ethereum.CallMsg{To: &address, Data: data}, nil)
	if err != nil {
		return nil, txm.ClassifyRPCError(err)
	}
	return out, nil
}

// Task reads taskOf.
func (c *Contract) Task(ctx context.Context, taskID *big.Int) (AgentRigTaskInfo, error) {
	out, err := c.call(ctx, c.abi.PackTaskOf(taskID))
	if err != nil {
		return AgentRigTaskInfo{}, fmt.Errorf("taskOf(%s): %w", taskID, err)
	}
	return c.abi.UnpackTaskOf(out)
}

// tasksPerBatch bounds the taskOf calls of one JSON-RPC batch (geth takes at most 1000 requests
// and 25 MB of answers per batch; a taskOf answer is about 1.5 kB).
const tasksPerBatch = 200

// Tasks reads taskOf for each of ids at block (nil: the latest), in JSON-RPC batches when the
// backend offers them, else one call each. errs[i] is the failure of ids[i] alone; err is one
// that failed them all.
func (c *Contract) Tasks(ctx context.Context, ids []uint64, block *big.Int) (infos []AgentRigTaskInfo, errs []error, err error) {
	infos, errs = make([]AgentRigTaskInfo, len(ids)), make([]error, len(ids))
	bc := txm.BatcherOf(c.backend)
	if bc == nil {
		for i, id := range ids {
			out, err := c.backend.CallContract(ctx, ethereum.CallMsg{To: &c.Address, Data: c.abi.PackTaskOf(new(big.Int).SetUint64(id))}, block)
			if err != nil {
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				errs[i] = fmt.Errorf("taskOf(%d): %w", id, txm.ClassifyRPCError(err))
				continue
			}
			infos[i], errs[i] = c.abi.UnpackTaskOf(out)
		}
		return infos, errs, nil
	}
	at := "latest"
	if block != nil {
		at = hexutil.EncodeBig(block)
	}
	for start := 0; start < len(ids); start += tasksPerBatch {
		chunk := ids[start:min(start+tasksPerBatch, len(ids))]
		elems := make([]rpc.BatchElem, len(chunk))
		outs := make([]hexutil.Bytes, len(chunk))
		for i, id := range chunk {
			arg := map[string]any{"to": c.Address, "data": hexutil.Bytes(c.abi.PackTaskOf(new(big.Int).SetUint64(id)))}
			elems[i] = rpc.BatchElem{Method: "eth_call", Args: []any{arg, at}, Result: &outs[i]}
		}
		if err := bc.BatchCallContext(ctx, elems); err != nil {
			return nil, nil, fmt.Errorf("taskOf of %d tasks: %w", len(chunk), txm.ClassifyRPCError(err))
		}
		for i, id := range chunk {
			if elems[i].Error != nil {
				errs[start+i] = fmt.Errorf("taskOf(%d): %w", id, txm.ClassifyRPCError(elems[i].Error))
				continue
			}
			infos[start+i], errs[start+i] = c.abi.UnpackTaskOf(outs[i])
		}
	}
	return infos, errs, nil
}

// Job reads jobOf.
func (c *Contract) Job(ctx context.Context, jobID uint32) (AgentRigJobInfo, error) {
	out, err := c.call(ctx, c.abi.PackJobOf(jobID))
	if err != nil {
		return AgentRigJobInfo{}, fmt.Errorf("jobOf(%d): %w", jobID, err)
	}
	return c.abi.UnpackJobOf(out)
}

// AnswerOf reads answerOf.
func (c *Contract) AnswerOf(ctx context.Context, taskID *big.Int) (AnswerOfOutput, error) {
	out, err := c.call(ctx, c.abi.PackAnswerOf(taskID))
	if err != nil {
		return AnswerOfOutput{}, fmt.Errorf("answerOf(%s): %w", taskID, err)
	}
	return c.abi.UnpackAnswerOf(out)
}

// JobRigs reads jobRigs: the job's active rigs.
func (c *Contract) JobRigs(ctx context.Context, jobID uint32) ([]uint64, error) {
	out, err := c.call(ctx, c.abi.PackJobRigs(jobID))
	if err != nil {
		return nil, fmt.Errorf("jobRigs(%d): %w", jobID, err)
	}
	return c.abi.UnpackJobRigs(out)
}

// RigIDsOf finds the rig ids of job jobID whose operator is one of the given addresses.
func (c *Contract) RigIDsOf(ctx context.Context, jobID uint32, operators []common.Address) (map[common.Address]uint64, error) {
	ids, err := c.JobRigs(ctx, jobID)
	if err != nil {
		return nil, err
	}
	want := map[common.Address]bool{}
	for _, a := range operators {
		want[a] = true
	}
	found := map[common.Address]uint64{}
	for _, id := range ids {
		out, err := c.call(ctx, c.abi.PackRigOf(id))
		if err != nil {
			return nil, fmt.Errorf("rigOf(%d): %w", id, err)
		}
		info, err := c.abi.UnpackRigOf(out)
		if err != nil {
			return nil, err
		}
		if want[info.Operator] && info.Active {
			if _, dup := found[info.Operator]; !dup {
				found[info.Operator] = id
			}
		}
	}
	return found, nil
}

// ErrNoOrder means the chain holds no TaskOrdered event for a task.
var ErrNoOrder = errors.New("no TaskOrdered event")

// TaskInput reads a task's order from its TaskOrdered event: the input URI lives only there
// (taskOf holds the hash alone).
func (c *Contract) TaskInput(ctx context.Context, taskID uint64) (AgentRigTaskOrdered, error) {
	logs, err := c.backend.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int), Addresses: []common.Address{c.Address},
		Topics: [][]common.Hash{{c.abi.GetABI().Events["TaskOrdered"].ID}, {common.BigToHash(new(big.Int).SetUint64(taskID))}},
	})
	if err != nil {
		return AgentRigTaskOrdered{}, fmt.Errorf("input of task %d: %w", taskID, txm.ClassifyRPCError(err))
	}
	for i := range logs {
		if ev, err := c.abi.UnpackTaskOrderedEvent(&logs[i]); err == nil && !logs[i].Removed {
			return *ev, nil
		}
	}
	return AgentRigTaskOrdered{}, fmt.Errorf("input of task %d: %w", taskID, ErrNoOrder)
}
