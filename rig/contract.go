package rig

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/agentrig"
)

// Backend is what the rig calls on a node: the sender's calls (TxChain), the chain id, logs
// (the reference deployment's events, operator status) and balances (Prepare).
// *ethclient.Client satisfies it, so does the simulated backend's client.
type Backend interface {
	TxChain
	ChainID(ctx context.Context) (*big.Int, error)
	FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error)
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
}

// Contract reads an AgentRig deployment through its abigen binding.
type Contract struct {
	Address common.Address
	abi     *agentrig.AgentRig
	backend Backend
}

// NewContract binds an AgentRig deployment.
func NewContract(backend Backend, address common.Address) *Contract {
	return &Contract{Address: address, abi: agentrig.NewAgentRig(), backend: backend}
}

// ABI is the binding, for packing transactions.
func (c *Contract) ABI() *agentrig.AgentRig { return c.abi }

func (c *Contract) call(ctx context.Context, data []byte) ([]byte, error) {
	out, err := c.backend.CallContract(ctx, ethereum.CallMsg{To: &c.Address, Data: data}, nil)
	if err != nil {
		return nil, ClassifyRPCError(err)
	}
	return out, nil
}

// Task reads taskOf.
func (c *Contract) Task(ctx context.Context, taskID *big.Int) (agentrig.AgentRigTaskInfo, error) {
	out, err := c.call(ctx, c.abi.PackTaskOf(taskID))
	if err != nil {
		return agentrig.AgentRigTaskInfo{}, fmt.Errorf("taskOf(%s): %w", taskID, err)
	}
	return c.abi.UnpackTaskOf(out)
}

// Job reads jobOf.
func (c *Contract) Job(ctx context.Context, jobID uint32) (agentrig.AgentRigJobInfo, error) {
	out, err := c.call(ctx, c.abi.PackJobOf(jobID))
	if err != nil {
		return agentrig.AgentRigJobInfo{}, fmt.Errorf("jobOf(%d): %w", jobID, err)
	}
	return c.abi.UnpackJobOf(out)
}

// AnswerOf reads answerOf.
func (c *Contract) AnswerOf(ctx context.Context, taskID *big.Int) (agentrig.AnswerOfOutput, error) {
	out, err := c.call(ctx, c.abi.PackAnswerOf(taskID))
	if err != nil {
		return agentrig.AnswerOfOutput{}, fmt.Errorf("answerOf(%s): %w", taskID, err)
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
func (c *Contract) TaskInput(ctx context.Context, taskID uint64) (agentrig.AgentRigTaskOrdered, error) {
	logs, err := c.backend.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int), Addresses: []common.Address{c.Address},
		Topics: [][]common.Hash{{c.abi.GetABI().Events["TaskOrdered"].ID}, {common.BigToHash(new(big.Int).SetUint64(taskID))}},
	})
	if err != nil {
		return agentrig.AgentRigTaskOrdered{}, fmt.Errorf("input of task %d: %w", taskID, ClassifyRPCError(err))
	}
	for i := range logs {
		if ev, err := c.abi.UnpackTaskOrderedEvent(&logs[i]); err == nil && !logs[i].Removed {
			return *ev, nil
		}
	}
	return agentrig.AgentRigTaskOrdered{}, fmt.Errorf("input of task %d: %w", taskID, ErrNoOrder)
}

// RevertReason names the contract's custom error in a failed call or transaction, when the node
// returned its data; "" otherwise.
func RevertReason(err error) string {
	if re, ok := agentrig.DecodeRevert(err); ok {
		return re.Name
	}
	return ""
}
