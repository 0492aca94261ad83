package rig

// The phase machine: each look at the chain moves every open task on by what its phase asks.

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
)

// drive moves one task on by what its phase on chain (info, read at head) asks for.
func (r *Runner) drive(ctx context.Context, t *taskState, info agentrig.TaskView, head agentrig.Head, batch *answerBatch) error {
	if info.JobID != r.cfg.JobID {
		r.finish(t)
		return nil
	}
	mine := r.ours(info)
	if len(mine) > 0 && !t.seen {
		t.seen = true
		for range mine {
			r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Seen })
		}
	}
	now := r.cfg.Now()
	drawable, quietPhase, quiet := r.noteStage(ctx, t, info, head, now)
	switch info.Phase {
	case agentrig.PhaseDraw:
		// Draw once our rank's turn has come; again after a re-anchor, or when a draw that was
		// mined vanished in a reorg (still undrawn a stage delay later).
		if drawable && !now.Before(t.drawRetryAt) && r.due(ctx, t, head, nil) {
			t.drawRetryAt = now.Add(r.pace.delay(r.cfg.StageDelay, now))
			stale := r.cfg.Clock.Number(head) <= info.OrderBlock // a quiet chain, past it by L1's clock
			r.spawn(ctx, fmt.Sprintf("draw/%d", t.id), func(ctx context.Context) {
				if stale {
					r.sendQuiet(ctx, "draw", t.id, 0, r.anySender(), r.chain.DrawCall(t.id), agentrig.QuietDrawGas, agentrig.TooEarly)
					return
				}
				r.sendAny(ctx, "draw", t.id, r.chain.DrawCall(t.id))
			})
		}
	case agentrig.PhaseCommit:
		if len(mine) == 0 {
			return nil
		}
		if err := r.ensureInput(ctx, t); err != nil {
			return err
		}
		for rigID, idx := range mine {
			if info.Committed&(1<<idx) != 0 {
				r.advance(ctx, t.id, rigID, journal.StateCommitted, nil)
				continue
			}
			r.commit(ctx, t, info, head, rigID, batch)
		}
	case agentrig.PhaseReveal:
		for rigID, idx := range mine {
			switch {
			case info.Revealed&(1<<idx) != 0:
				r.advance(ctx, t.id, rigID, journal.StateRevealed, nil)
			case info.Committed&(1<<idx) == 0:
				r.advance(ctx, t.id, rigID, journal.StateMissed, func(e *journal.Entry) { e.Reason = "commit window closed before our commit was mined" })
			default:
				r.advance(ctx, t.id, rigID, journal.StateCommitted, nil)
				r.reveal(ctx, t, rigID, batch)
			}
		}
	case agentrig.PhaseSettle:
		for rigID, idx := range mine {
			if info.Revealed&(1<<idx) != 0 {
				r.advance(ctx, t.id, rigID, journal.StateRevealed, nil)
			}
		}
		if r.due(ctx, t, head, info.RigIDs) {
			r.spawn(ctx, fmt.Sprintf("settle/%d", t.id), func(ctx context.Context) {
				r.sendAny(ctx, "settle", t.id, r.chain.SettleCall(t.id))
			})
		}
	case agentrig.PhaseSettled:
		if err := r.recordSettlement(ctx, t, info, mine); err != nil {
			return err
		}
		r.finish(t)
	case agentrig.PhaseRefunded:
		for rigID := range mine {
			r.advance(ctx, t.id, rigID, journal.StateRefunded, nil)
		}
		r.finish(t)
	}
	if quiet && r.due(ctx, t, head, info.RigIDs) {
		r.quietStep(ctx, t, info, mine, quietPhase)
	}
	return nil
}

// noteStage notes the stage a task is in at head, and when this process first saw it: the
// schedule's clock (due). A follower notes stages too (noteStages), so that an instance taking
// over knows how long a task has waited and whose turn it is now, instead of counting from the
// takeover as if its rank's turn had just begun. drawable says the draw may be sent; quiet, the
// phase a block sealed now would find the task in on a quiet Nitro chain (quietPhase).
func (r *Runner) noteStage(ctx context.Context, t *taskState, info agentrig.TaskView, head agentrig.Head, now time.Time) (drawable bool, quietPhase agentrig.Phase, quiet bool) {
	// The schedule's clock starts when the chain allows the step: a draw only once the chain is
	// past the order block (else every rank would come due together when that block arrives).
	// The order block is a number as the contract counts (block.number: on Robinhood Chain the
	// L1 block number), which the network's clock reads from the head and, on a quiet Nitro
	// chain, from the time since it (a draw then makes the block that moves the chain).
	stage := fmt.Sprintf("%d@%d", info.Phase, info.OrderBlock)
	drawable = info.Phase == agentrig.PhaseDraw && r.cfg.Clock.Reached(ctx, head, now) > info.OrderBlock
	if info.Phase == agentrig.PhaseDraw && !drawable {
		stage = "wait " + stage
	}
	// On a quiet Nitro chain a window may have ended by the clock while the chain, whose head is
	// older, still holds the task in it: a new stage, whose ranks count from now (quiet.go). The
	// margin past the window's end covers the sequencer's clock as measured behind ours.
	quietPhase, quiet = agentrig.QuietPhaseWithin(r.cfg.Clock, info, now, agentrig.QuietMargin+r.skew.Behind())
	if quiet {
		stage = fmt.Sprintf("quiet %d ", quietPhase) + stage
	}
	if stage != t.stage {
		t.stage, t.stageSince, t.stageBlock = stage, now, head.Number.Uint64()
	}
	return drawable, quietPhase, quiet
}

// noteStages is a follower's look at its open tasks: it notes their stages (noteStage) and
// sends nothing. A failed read is only logged: the next look tries again.
func (r *Runner) noteStages(ctx context.Context, head agentrig.Head) {
	r.mu.Lock()
	var open []*taskState
	for _, t := range r.tasks {
		if !t.done && !t.over {
			open = append(open, t)
		}
	}
	r.mu.Unlock()
	if len(open) == 0 {
		return
	}
	views, errs, err := r.readTasks(ctx, open, head.Number)
	if err != nil {
		r.log.Debug("reading the tasks' stages while following failed", "error", err)
		return
	}
	now := r.cfg.Now()
	for i, t := range open {
		switch {
		case errs[i] != nil:
		case views[i].JobID != r.cfg.JobID || views[i].Phase == agentrig.PhaseSettled || views[i].Phase == agentrig.PhaseRefunded:
			t.over = true
		default:
			r.noteStage(ctx, t, views[i], head, now)
		}
	}
}

// due reports whether this process's turn has come to send a task's draw or settle: by onTurn,
// counted from when the task entered its current phase, in stage delays stretched to how long
// our own sends take to be mined, and, where a pool can hold a transaction, for at least as many
// blocks as our rank (see task.ScheduleOrder, drawn ranks first for settle, and stagePace).
func (r *Runner) due(ctx context.Context, t *taskState, head agentrig.Head, drawn []uint64) bool {
	now := r.cfg.Now()
	if r.jobRigs == nil || now.Sub(r.jobRigsAt) > 30*time.Second {
		if ids, err := r.deploy.JobRigs(ctx, r.cfg.JobID); err == nil {
			r.jobRigs, r.jobRigsAt = ids, now
		} else {
			r.log.Warn("reading the job's rigs for the send schedule failed", "error", err)
		}
	}
	order := task.ScheduleOrder(t.id, drawn, r.jobRigs)
	rank := task.ScheduleRank(order, func(id uint64) bool { _, ok := r.rigs[id]; return ok })
	if r.jobRigs == nil && rank == len(order) {
		// The job's rigs were never read: our place is unknown, and taking rank 0 would make
		// every process in this state send at once, the pile-up the schedule exists to prevent.
		// Wait behind every rank a job can have.
		rank = max(rank, unknownRank)
	}
	if !onTurn(rank, len(order), now.Sub(t.stageSince), r.pace.delay(r.cfg.StageDelay, now)) {
		return false
	}
	// Where a transaction can wait in a pool, a rank also waits for as many blocks (see
	// pace.go); a Nitro sequencer has mined or refused its predecessor's by then.
	return rank == 0 || !r.cfg.Clock.Pooled() || head.Number.Uint64() >= t.stageBlock+uint64(rank)
}

// commit makes sure the rig's answer is on disk, then queues its commit.
func (r *Runner) commit(ctx context.Context, t *taskState, info agentrig.TaskView, head agentrig.Head, rigID uint64, batch *answerBatch) {
	entry, found, err := r.journaledAnswer(ctx, t, rigID)
	if err != nil {
		r.log.Error("journal read failed", "task", t.id, "rig", rigID, "error", err)
		return
	}
	if found && entry.State.Final() {
		return
	}
	chainNow := time.Unix(int64(head.Time), 0)
	if !found || entry.State == journal.StateDrawn {
		// Price once per task for all our rigs; answer in the background so other tasks move on.
		r.spawn(ctx, fmt.Sprintf("price/%d", t.id), func(ctx context.Context) {
			r.answer(ctx, t, info, chainNow)
		})
		return
	}
	r.queue(&batch.commits, answerTx{kind: commits, entry: entry, deadline: info.CommitDeadline, chainNow: chainNow})
}

// reveal queues the reveal of a committed rig with the answer and salt on disk.
func (r *Runner) reveal(ctx context.Context, t *taskState, rigID uint64, batch *answerBatch) {
	entry, found, err := r.journaledAnswer(ctx, t, rigID)
	if err != nil || !found || entry.Salt == ([32]byte{}) {
		r.log.Error("committed but the journal holds no answer to reveal", "task", t.id, "rig", rigID, "error", err)
		return
	}
	r.queue(&batch.reveals, answerTx{kind: reveals, entry: entry})
}
