package agentrig

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// Chain is the AgentRig protocol as the seeds define it: the transactions of a task's life,
// encoded as Calls the caller sends with its own Sender (so simulation, nonces and fee bumps
// stay in one place), and the two views any contract reads. *Contract implements it for the
// reference contract; what the seeds leave open is the Deployment's.
type Chain interface {
	// OrderCall orders one task per input (order, or orderMany for several).
	OrderCall(jobID uint32, price *big.Int, inputs []OrderInput) txm.Call
	// DrawCall draws a task's rigs (anyone, once past its order block).
	DrawCall(taskID uint64) txm.Call
	// CommitCall commits a drawn rig's commitment, sent by its operator.
	CommitCall(taskID uint64, commitment common.Hash) txm.Call
	// RevealCall reveals the answer and salt behind a commitment, sent by the rig's operator.
	RevealCall(taskID uint64, answer numeric.Answer, salt task.Salt) txm.Call
	// SettleCall settles a task whose reveal window closed or whose rigs all revealed.
	SettleCall(taskID uint64) txm.Call
	// CommitManyCall and RevealManyCall carry entries signed (EIP-712) by operator keys in one
	// transaction; entries that do not apply are skipped, not reverted.
	CommitManyCall(entries []SignedCommit) txm.Call
	RevealManyCall(entries []SignedReveal) txm.Call
	// PhaseOf reads phaseOf: where a task stands.
	PhaseOf(ctx context.Context, taskID uint64) (Phase, error)
	// ReadAnswer reads answerOf.
	ReadAnswer(ctx context.Context, taskID uint64) (Answer, error)
}

var _ Chain = (*Contract)(nil)

// SignedCommit is a commitMany entry: a commit with its operator's EIP-712 Commit signature.
type SignedCommit struct {
	TaskID     uint64
	Commitment common.Hash
	Signature  []byte
}

// SignedReveal is a revealMany entry: a reveal with its operator's EIP-712 Reveal signature.
type SignedReveal struct {
	TaskID    uint64
	Answer    numeric.Answer
	Salt      task.Salt
	Signature []byte
}

// CommitCall commits a drawn rig's commitment, sent by its operator.
func (c *Contract) CommitCall(taskID uint64, commitment common.Hash) txm.Call {
	return txm.Call{Function: fmt.Sprintf("commit(%d, %s)", taskID, commitment.Hex()), To: c.Address,
		Data: c.abi.PackCommit(new(big.Int).SetUint64(taskID), commitment)}
}

// RevealCall reveals the answer and salt behind a commitment, sent by the rig's operator.
func (c *Contract) RevealCall(taskID uint64, answer numeric.Answer, salt task.Salt) txm.Call {
	return txm.Call{Function: fmt.Sprintf("reveal(%d, %s)", taskID, common.Hash(answer).Hex()), To: c.Address,
		Data: c.abi.PackReveal(new(big.Int).SetUint64(taskID), answer, salt)}
}

// CommitManyCall carries signed commits of any rigs and tasks in one transaction.
func (c *Contract) CommitManyCall(entries []SignedCommit) txm.Call {
	commits := make([]AgentRigCommit, len(entries))
	sigs := make([][]byte, len(entries))
	for i, e := range entries {
		commits[i] = AgentRigCommit{TaskId: new(big.Int).SetUint64(e.TaskID), Commitment: e.Commitment}
		sigs[i] = e.Signature
	}
	return txm.Call{Function: fmt.Sprintf("commitMany(%d entries)", len(entries)), To: c.Address, Data: c.abi.PackCommitMany(commits, sigs)}
}

// RevealManyCall carries signed reveals of any rigs and tasks in one transaction.
func (c *Contract) RevealManyCall(entries []SignedReveal) txm.Call {
	reveals := make([]AgentRigReveal, len(entries))
	sigs := make([][]byte, len(entries))
	for i, e := range entries {
		reveals[i] = AgentRigReveal{TaskId: new(big.Int).SetUint64(e.TaskID), Answer: e.Answer, Salt: e.Salt}
		sigs[i] = e.Signature
	}
	return txm.Call{Function: fmt.Sprintf("revealMany(%d entries)", len(entries)), To: c.Address, Data: c.abi.PackRevealMany(reveals, sigs)}
}

// PhaseOf reads phaseOf.
func (c *Contract) PhaseOf(ctx context.Context, taskID uint64) (Phase, error) {
	out, err := c.call(ctx, c.abi.PackPhaseOf(new(big.Int).SetUint64(taskID)))
	if err != nil {
		return 0, fmt.Errorf("phaseOf(%d): %w", taskID, err)
	}
	p, err := c.abi.UnpackPhaseOf(out)
	return Phase(p), err
}
