package rig

// Sending: a step's commits and reveals go out together at its end, each rig's as its own
// transaction or all of them as one commitMany/revealMany signed by the operators, whichever
// costs less gas (batch.go). Draw and settle go out from one sender of ours when the schedule says it is our
// turn. Every send runs in the background under a key, so a step never waits for a receipt and
// never sends the same thing twice at once.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// answerKind is what differs between commits and reveals on their way out.
type answerKind struct {
	name string
	// call is the rig's own transaction; digest is what the operator signs for a batch entry, and
	// many the batch of signed entries.
	call   func(c agentrig.Chain, e journal.Entry) txm.Call
	digest func(d task.Domain, e journal.Entry) (common.Hash, error)
	many   func(c agentrig.Chain, entries []journal.Entry, sigs [][]byte) txm.Call
	// done records a mined one.
	done func(r *Runner, ctx context.Context, a answerTx, rec *types.Receipt)
}

var commits = &answerKind{
	name: "commit",
	call: func(c agentrig.Chain, e journal.Entry) txm.Call { return c.CommitCall(e.TaskID, e.Commitment) },
	digest: func(d task.Domain, e journal.Entry) (common.Hash, error) {
		return d.CommitDigest(bigID(e.TaskID), e.Commitment)
	},
	many: func(c agentrig.Chain, entries []journal.Entry, sigs [][]byte) txm.Call {
		signed := make([]agentrig.SignedCommit, len(entries))
		for i, e := range entries {
			signed[i] = agentrig.SignedCommit{TaskID: e.TaskID, Commitment: e.Commitment, Signature: sigs[i]}
		}
		return c.CommitManyCall(signed)
	},
	done: func(r *Runner, ctx context.Context, a answerTx, rec *types.Receipt) {
		r.committed(ctx, a.entry.TaskID, a.entry.RigID, rec, a.deadline, a.chainNow)
	},
}

var reveals = &answerKind{
	name: "reveal",
	call: func(c agentrig.Chain, e journal.Entry) txm.Call { return c.RevealCall(e.TaskID, e.Answer, e.Salt) },
	digest: func(d task.Domain, e journal.Entry) (common.Hash, error) {
		return d.RevealDigest(bigID(e.TaskID), e.Answer, e.Salt)
	},
	many: func(c agentrig.Chain, entries []journal.Entry, sigs [][]byte) txm.Call {
		signed := make([]agentrig.SignedReveal, len(entries))
		for i, e := range entries {
			signed[i] = agentrig.SignedReveal{TaskID: e.TaskID, Answer: e.Answer, Salt: e.Salt, Signature: sigs[i]}
		}
		return c.RevealManyCall(signed)
	},
	done: func(r *Runner, ctx context.Context, a answerTx, rec *types.Receipt) {
		r.revealed(ctx, a.entry.TaskID, a.entry.RigID, rec)
	},
}

// answerTx is one rig's commit or reveal of one task, from the journaled entry.
type answerTx struct {
	kind  *answerKind
	entry journal.Entry
	// deadline and chainNow (commits) feed the commit-margin metric.
	deadline, chainNow time.Time
}

func (a answerTx) key() string {
	return fmt.Sprintf("%s/%d/%d", a.kind.name, a.entry.TaskID, a.entry.RigID)
}

// answerBatch collects one step's commits and reveals.
type answerBatch struct {
	commits, reveals []answerTx
}

// queue adds a to the step's batch unless a transaction carrying it is still on its way.
func (r *Runner) queue(to *[]answerTx, a answerTx) {
	if !r.isInflight(a.key()) {
		*to = append(*to, a)
	}
}

// flush sends the step's batch: commits, then reveals.
func (r *Runner) flush(ctx context.Context, b answerBatch) {
	r.submit(ctx, b.commits)
	r.submit(ctx, b.reveals)
}

// submit sends answers of one kind in the background, in batches of at most maxBatch, each
// the cheaper way (see sendPlanned).
func (r *Runner) submit(ctx context.Context, txs []answerTx) {
	for len(txs) > 0 {
		chunk := txs[:min(len(txs), maxBatch)]
		txs = txs[len(chunk):]
		keys := make([]string, len(chunk))
		for i, a := range chunk {
			keys[i] = a.key()
		}
		r.spawnMany(ctx, keys, func(ctx context.Context) { r.sendPlanned(ctx, chunk) })
	}
}

// committed journals a mined commit. The metrics count a rig's commit of a task once: a commit
// mined again after a reorg dropped it is not a second one. (Whether the journal already says
// committed cannot tell: a look at the chain may journal the state before the receipt arrives.)
func (r *Runner) committed(ctx context.Context, taskID, rigID uint64, rec *types.Receipt, deadline, chainNow time.Time) {
	again := !r.firstMined(taskID, rigID, journal.StateCommitted)
	r.advance(ctx, taskID, rigID, journal.StateCommitted, func(e *journal.Entry) { e.CommitTx = rec.TxHash.Hex() })
	if !again {
		r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Committed })
		r.cfg.Metrics.observe(func(m *Metrics) prometheus.Histogram { return m.CommitMargin }, deadline.Sub(chainNow).Seconds())
	}
	r.log.Info("committed", "task", taskID, "rig", rigID, "tx", rec.TxHash.Hex(), "block", rec.BlockNumber, "again", again)
}

// revealed journals a mined reveal, counted once as committed is.
func (r *Runner) revealed(ctx context.Context, taskID, rigID uint64, rec *types.Receipt) {
	again := !r.firstMined(taskID, rigID, journal.StateRevealed)
	r.advance(ctx, taskID, rigID, journal.StateRevealed, func(e *journal.Entry) { e.RevealTx = rec.TxHash.Hex() })
	if !again {
		r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Revealed })
	}
	r.log.Info("revealed", "task", taskID, "rig", rigID, "tx", rec.TxHash.Hex(), "again", again)
}

// send sends a transaction to the contract from s, once the lease is checked in the database
// (a shared journal): an instance that lost the lease sends nothing.
func (r *Runner) send(ctx context.Context, s *txm.Sender, call txm.Call) (*types.Receipt, error) {
	if err := r.lead.gate(ctx); err != nil {
		return nil, err
	}
	return s.Send(ctx, call.To, call.Data, call.Value)
}

// sendChecked is send of a call planned a moment ago from gas estimated at the pending state
// (txm.Sender.Check), which stands for its simulation.
func (r *Runner) sendChecked(ctx context.Context, s *txm.Sender, call txm.Call, gas uint64) (*types.Receipt, error) {
	if err := r.lead.gate(ctx); err != nil {
		return nil, err
	}
	return s.SendChecked(ctx, call.To, call.Data, call.Value, gas)
}

// sendAny sends a transaction anyone may send (draw, settle) from the relayer or our first rig.
// A revert means another process got there first, or it is not time yet: the next step looks
// again.
func (r *Runner) sendAny(ctx context.Context, what string, taskID uint64, call txm.Call) {
	s := r.anySender()
	key := fmt.Sprintf("%s/%d", what, taskID)
	r.pace.begin(key, r.cfg.Now())
	rec, err := r.send(ctx, s, call)
	r.pace.end(key, r.cfg.Now(), rec != nil) // mined, ok or reverted
	if err != nil {
		r.logSendError(what, taskID, 0, err)
		return
	}
	r.log.Info(what, "task", taskID, "tx", rec.TxHash.Hex())
}

// anySender sends what anyone may send (draw, settle): the relayer, or our first rig.
func (r *Runner) anySender() *txm.Sender {
	if r.relayer != nil {
		return r.relayer
	}
	return r.rigs[r.RigIDs()[0]].sender
}

// logSendError logs a transaction that was not sent because it would revert (someone else got
// there first, or a predecessor of this process already did it: expected, info) apart from one
// that failed or reverted on chain (a warning with the decoded reason).
func (r *Runner) logSendError(what string, taskID, rigID uint64, err error) {
	log := r.log
	if taskID != 0 {
		log = log.With("task", taskID)
	}
	if rigID != 0 {
		log = log.With("rig", rigID)
	}
	if errors.Is(err, txm.ErrWouldRevert) {
		log.Info(what+" not sent: it would revert", "reason", txm.RevertName(err))
		return
	}
	log.Warn(what+" failed", "error", err, "reason", txm.RevertName(err))
}

// spawn runs f in the background unless a job with the same key is still running.
func (r *Runner) spawn(ctx context.Context, key string, f func(ctx context.Context)) {
	r.spawnMany(ctx, []string{key}, f)
}

func (r *Runner) spawnMany(ctx context.Context, keys []string, f func(ctx context.Context)) {
	r.mu.Lock()
	for _, k := range keys {
		if r.inflight[k] {
			r.mu.Unlock()
			return
		}
	}
	for _, k := range keys {
		r.inflight[k] = true
	}
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			for _, k := range keys {
				delete(r.inflight, k)
			}
			r.mu.Unlock()
		}()
		f(ctx)
	}()
}

func (r *Runner) isInflight(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inflight[key]
}

func bigID(id uint64) *big.Int { return new(big.Int).SetUint64(id) }
