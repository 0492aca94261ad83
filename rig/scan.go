package rig

// Following the chain: which tasks of the job exist, which of our rigs were drawn, and each
// task's input.

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/txm"
)

// lookBack is how far back a runner with no journal cursor starts following the contract: a
// task nobody drew within the refund hour is the orderer's to refund (agentrig.RefundAfter);
// one ordered since may still be drawn, and one drawn since announces itself by its TaskDrawn
// event. A minute more covers clocks a little apart.
const lookBack = agentrig.RefundAfter + time.Minute

// startBlock is where a runner starts following the contract when FromBlock is unset: the
// newest block stamped lookBack before the head, found by its time (a binary search over the
// blocks' headers), not by a count of blocks, which a quiet chain makes few of and a busy one
// many. A journal's cursor older than that is followed from there too (scan): what happened
// before it is past the refund hour.
func startBlock(ctx context.Context, node txm.TxChain) (uint64, error) {
	head, err := node.HeaderByNumber(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("head: %w", txm.ClassifyRPCError(err))
	}
	if head.Time < uint64(lookBack/time.Second) {
		return 0, nil
	}
	target := head.Time - uint64(lookBack/time.Second)
	lo, hi := uint64(0), head.Number.Uint64()
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		h, err := node.HeaderByNumber(ctx, new(big.Int).SetUint64(mid))
		if err != nil {
			return 0, fmt.Errorf("block %d: %w", mid, txm.ClassifyRPCError(err))
		}
		if h.Time <= target {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, nil
}

// scan reads the contract's events from a little before the cursor up to head. The journal's
// cursor is read once and written by the leader only; each process follows from its own.
func (r *Runner) scan(ctx context.Context, head uint64, leader bool) error {
	cursor := r.scanned
	if cursor == 0 {
		var err error
		if cursor, err = r.journal.Cursor(ctx, r.cursorKey); err != nil {
			return err
		}
	}
	from := r.cfg.FromBlock
	if cursor > 0 {
		// Look again at the last ReorgDepth blocks: events of a reorganised chain are seen, and
		// handling an event twice is harmless. A chain that went back below the cursor (a
		// reorg) is looked at from its new tip.
		from = min(cursor+1, head+1)
		from -= min(from, r.cfg.ReorgDepth)
		from = max(from, r.cfg.FromBlock)
	}
	if from > head {
		return nil
	}
	const chunk = 2000
	for start := from; start <= head; start += chunk {
		end := min(start+chunk-1, head)
		events, err := r.deploy.Events(ctx, start, end)
		if err != nil {
			return err
		}
		for _, ev := range events {
			r.onEvent(ctx, ev)
		}
	}
	r.scanned = head
	if !leader || head == r.cursorAt {
		return nil
	}
	if err := r.journal.SetCursor(ctx, r.cursorKey, head); err != nil {
		return err
	}
	r.cursorAt = head // a look at an unchanged head writes nothing
	return nil
}

// onEvent takes in what happened to a task: an order of our job gives its input, a draw of our
// rigs is journaled before anything else.
func (r *Runner) onEvent(ctx context.Context, ev agentrig.TaskEvent) {
	switch ev.Kind {
	case agentrig.TaskOrdered:
		if ev.JobID != r.cfg.JobID {
			return
		}
		r.setInput(r.task(ev.TaskID), ev.InputURI, ev.InputHash)
	case agentrig.TaskDrawn:
		if ev.JobID != r.cfg.JobID {
			return
		}
		for _, id := range ev.RigIDs {
			if _, ours := r.rigs[id]; ours {
				t := r.task(ev.TaskID)
				r.mu.Lock()
				t.commitDeadline = ev.CommitDeadline
				at, done := t.drawn[id]
				r.mu.Unlock()
				if done && at.Equal(ev.CommitDeadline) {
					continue // journaled at an earlier look over the same blocks
				}
				if err := r.journal.Drawn(context.WithoutCancel(ctx), ev.TaskID, id, ev.CommitDeadline); err != nil {
					r.log.Error("journal write failed", "task", ev.TaskID, "rig", id, "error", err)
					continue
				}
				r.mu.Lock()
				if t.drawn == nil {
					t.drawn = map[uint64]time.Time{}
				}
				t.drawn[id] = ev.CommitDeadline
				r.mu.Unlock()
			}
		}
	case agentrig.TaskReanchored:
		// The next drive of the task sees the new anchor and draws again.
		r.log.Info("task re-anchored", "task", ev.TaskID, "anchor", ev.Anchor)
	}
}

func (r *Runner) setInput(t *taskState, uri string, hash common.Hash) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.haveInput {
		return
	}
	t.uri, t.hash, t.haveInput = uri, hash, true
	t.input, t.inputErr = r.cfg.Inputs.Decode(uri, hash)
}

// ensureInput finds a task's input URI when the runner started after the order was placed.
func (r *Runner) ensureInput(ctx context.Context, t *taskState) error {
	r.mu.Lock()
	have := t.haveInput
	r.mu.Unlock()
	if have {
		return nil
	}
	uri, hash, err := r.deploy.TaskInput(ctx, t.id)
	if err != nil {
		return err
	}
	r.setInput(t, uri, hash)
	return nil
}
