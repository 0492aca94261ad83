package agentrig

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Deployment answers, for one AgentRig deployment, what the seeds leave open: how a rig learns of
// new tasks and that it was drawn, where a task stands (its windows, who committed and
// revealed), which rigs a job has, and which entries of a relayed batch were skipped. The seeds
// define the calls (Chain); a contract that exposes these differently (no events, other views)
// needs one new file implementing Deployment, set in rig.Config.Deployment. ReferenceDeployment
// (deployment_reference.go) is the reference contract's.
type Deployment interface {
	// Job reads a job's parameters.
	Job(ctx context.Context, jobID uint32) (JobInfo, error)
	// JobRigs lists the job's active rigs (the draw/settle schedule ranks them).
	JobRigs(ctx context.Context, jobID uint32) ([]uint64, error)
	// RigIDsOf finds the active rigs of job jobID operated by the given addresses.
	RigIDsOf(ctx context.Context, jobID uint32, operators []common.Address) (map[common.Address]uint64, error)
	// Events lists what happened to tasks in blocks [from, to]: orders, draws and re-anchors,
	// in chain order. Seeing an event twice must be harmless to the caller.
	Events(ctx context.Context, from, to uint64) ([]TaskEvent, error)
	// Task reads where a task stands now.
	Task(ctx context.Context, taskID uint64) (TaskView, error)
	// TaskInput reads a task's input URI and hash (for a task ordered before the rig started).
	TaskInput(ctx context.Context, taskID uint64) (uri string, hash common.Hash, err error)
	// Skipped lists the indexes of the entries a mined commitMany/revealMany skipped.
	Skipped(rec *types.Receipt) map[int]bool
}

// TasksReader is implemented by a Deployment that reads where many tasks stand at once. The
// runner reads every open task at each look at the chain; with it that is one round trip, not
// one a task (a hundred open tasks cost seconds a look over a loaded node).
type TasksReader interface {
	// Tasks reads each of ids at block (nil: the latest). errs[i] is the failure of ids[i]
	// alone; err one that failed them all.
	Tasks(ctx context.Context, ids []uint64, block *big.Int) (views []TaskView, errs []error, err error)
}

// JobInfo is what the rig reads of a job.
type JobInfo struct {
	Kind         uint8 // numeric.Kind: 0 EXACT, 1 NUMERIC
	Quorum       uint8
	ToleranceBps uint32
	SpecURI      string
}

// TaskView is where a task stands.
type TaskView struct {
	ID    uint64
	JobID uint32
	Phase Phase // phaseOf
	// OrderBlock is the block the draw is anchored on (moved by a re-anchor).
	OrderBlock uint64
	// RigIDs are the drawn rigs in draw order; bit i of Committed and Revealed is RigIDs[i].
	RigIDs              []uint64
	Committed, Revealed uint64
	// CommitDeadline and RevealDeadline are the windows' ends (chain time); meaningless before the
	// draw.
	CommitDeadline, RevealDeadline time.Time
}

// TaskEventKind tells the events a runner follows apart.
type TaskEventKind int

// The events a runner follows.
const (
	TaskOrdered    TaskEventKind = iota + 1 // InputURI and InputHash are set
	TaskDrawn                               // RigIDs and CommitDeadline are set
	TaskReanchored                          // Anchor is set; the task must be drawn again
)

// TaskEvent is one thing that happened to a task.
type TaskEvent struct {
	Kind   TaskEventKind
	TaskID uint64
	JobID  uint32 // 0 for TaskReanchored

	InputURI  string
	InputHash common.Hash

	RigIDs         []uint64
	CommitDeadline time.Time

	Anchor uint64
}
