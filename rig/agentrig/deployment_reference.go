package agentrig

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/txm"
)

// ReferenceDeployment is the Deployment of the reference contract (contract/AgentRig.sol): a
// rig learns of tasks and draws from the TaskOrdered, TaskDrawn and Reanchored events, reads a
// task's windows and masks from taskOf, a job from jobOf and its rigs from jobRigs and rigOf, and
// a relayed batch's skipped entries from its Skipped events.
type ReferenceDeployment struct {
	c      *Contract
	topics []common.Hash // ordered, drawn, reanchored
}

var (
	_ Deployment  = (*ReferenceDeployment)(nil)
	_ TasksReader = (*ReferenceDeployment)(nil)
)

// NewReferenceDeployment reads the deployment behind c as the reference contract exposes it.
func NewReferenceDeployment(c *Contract) *ReferenceDeployment {
	ev := c.abi.GetABI().Events
	return &ReferenceDeployment{c: c, topics: []common.Hash{ev["TaskOrdered"].ID, ev["TaskDrawn"].ID, ev["Reanchored"].ID}}
}

// Job reads jobOf.
func (d *ReferenceDeployment) Job(ctx context.Context, jobID uint32) (JobInfo, error) {
	j, err := d.c.Job(ctx, jobID)
	if err != nil {
		return JobInfo{}, err
	}
	return JobInfo{Kind: j.Kind, Quorum: j.Quorum, ToleranceBps: j.ToleranceBps, SpecURI: j.SpecURI}, nil
}

// JobRigs reads jobRigs.
func (d *ReferenceDeployment) JobRigs(ctx context.Context, jobID uint32) ([]uint64, error) {
	return d.c.JobRigs(ctx, jobID)
}

// RigIDsOf scans the job's rigs with rigOf.
func (d *ReferenceDeployment) RigIDsOf(ctx context.Context, jobID uint32, operators []common.Address) (map[common.Address]uint64, error) {
	return d.c.RigIDsOf(ctx, jobID, operators)
}

// Events reads the contract's TaskOrdered, TaskDrawn and Reanchored logs in [from, to]. A log a
// reorg removed is passed over.
func (d *ReferenceDeployment) Events(ctx context.Context, from, to uint64) ([]TaskEvent, error) {
	logs, err := d.c.backend.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to),
		Addresses: []common.Address{d.c.Address},
		Topics:    [][]common.Hash{d.topics},
	})
	if err != nil {
		return nil, fmt.Errorf("logs %d..%d: %w", from, to, txm.ClassifyRPCError(err))
	}
	abi := d.c.abi
	var out []TaskEvent
	for i := range logs {
		l := &logs[i]
		if l.Removed || len(l.Topics) == 0 {
			continue
		}
		switch l.Topics[0] {
		case d.topics[0]:
			if ev, err := abi.UnpackTaskOrderedEvent(l); err == nil {
				out = append(out, TaskEvent{Kind: TaskOrdered, TaskID: ev.TaskId.Uint64(), JobID: ev.JobId, InputURI: ev.InputURI, InputHash: ev.InputHash})
			}
		case d.topics[1]:
			if ev, err := abi.UnpackTaskDrawnEvent(l); err == nil {
				out = append(out, TaskEvent{Kind: TaskDrawn, TaskID: ev.TaskId.Uint64(), JobID: ev.JobId, RigIDs: ev.RigIds,
					CommitDeadline: time.Unix(int64(ev.CommitDeadline), 0)})
			}
		case d.topics[2]:
			if ev, err := abi.UnpackReanchoredEvent(l); err == nil {
				out = append(out, TaskEvent{Kind: TaskReanchored, TaskID: ev.TaskId.Uint64(), Anchor: ev.OrderBlock})
			}
		}
	}
	return out, nil
}

// Task reads taskOf.
func (d *ReferenceDeployment) Task(ctx context.Context, taskID uint64) (TaskView, error) {
	info, err := d.c.Task(ctx, new(big.Int).SetUint64(taskID))
	if err != nil {
		return TaskView{}, err
	}
	return taskView(taskID, info), nil
}

// Tasks reads taskOf of many tasks in one JSON-RPC batch (see Contract.Tasks).
func (d *ReferenceDeployment) Tasks(ctx context.Context, ids []uint64, block *big.Int) ([]TaskView, []error, error) {
	infos, errs, err := d.c.Tasks(ctx, ids, block)
	if err != nil {
		return nil, nil, err
	}
	views := make([]TaskView, len(ids))
	for i, id := range ids {
		if errs[i] == nil {
			views[i] = taskView(id, infos[i])
		}
	}
	return views, errs, nil
}

func taskView(id uint64, info AgentRigTaskInfo) TaskView {
	return TaskView{ID: id, JobID: info.JobId, Phase: Phase(info.Phase), OrderBlock: info.OrderBlock,
		RigIDs: info.RigIds, Committed: uint64(info.CommittedMask), Revealed: uint64(info.RevealedMask),
		CommitDeadline: time.Unix(int64(info.CommitDeadline), 0), RevealDeadline: time.Unix(int64(info.RevealDeadline), 0)}
}

// TaskInput reads the task's TaskOrdered event.
func (d *ReferenceDeployment) TaskInput(ctx context.Context, taskID uint64) (string, common.Hash, error) {
	ev, err := d.c.TaskInput(ctx, taskID)
	if err != nil {
		return "", common.Hash{}, err
	}
	return ev.InputURI, ev.InputHash, nil
}

// Skipped reads the receipt's Skipped events.
func (d *ReferenceDeployment) Skipped(rec *types.Receipt) map[int]bool {
	out := map[int]bool{}
	for _, l := range rec.Logs {
		if l.Address != d.c.Address {
			continue
		}
		if ev, err := d.c.abi.UnpackSkippedEvent(l); err == nil {
			out[int(ev.Index.Int64())] = true
		}
	}
	return out
}
