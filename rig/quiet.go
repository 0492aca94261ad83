package rig

// A quiet chain. Robinhood Chain (Nitro) seals a block only for a transaction, and simulating a
// call reads the latest block: its block.number (the L1 number) and block.timestamp. While nobody
// sends anything, a task's order block never looks passed and its windows never look closed,
// so every simulation of the step that would move the chain on says it is too early — and no
// transaction ever moves it. The step's own transaction makes the block it is judged in: stamped
// now, under the L1 number of now. So when the network's clock says the time has come (L1 past
// the order block, the wall clock past a window's end) and the chain's head is simply older, the
// scheduled process sends it, with a fixed gas (it cannot be estimated), refused only if the
// simulation gives another reason than the chain's lag. A Nitro sequencer mines a transaction
// at once or refuses it, so the next rank, a stage delay later, finds it done.

import (
	"context"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/txm"
)

// quietMargin is how long past a window's end by the wall clock a quiet chain's block is sent
// for: room for the sequencer's clock a little behind ours.
const quietMargin = 2 * time.Second

// The gas a quiet send carries, which the node cannot estimate on a chain that says it is too
// early; unused gas is not charged. A draw scans at most 64 rigs (MAX_SCAN) for a quorum of up
// to five; a settle pays up to five rigs; a reveal is one rig's (about 70,000 gas measured).
const (
	quietDrawGas   = 800_000
	quietSettleGas = 800_000
	quietRevealGas = 300_000
)

// quietWindow reports whether a commit or reveal window of the task has ended by the wall
// clock while the chain's newest block is older than its end, on a network with no pool (Nitro):
// the chain says the window is open only because nothing was sealed since.
func (r *Runner) quietWindow(head Head, info agentrig.TaskView, now time.Time) bool {
	if r.cfg.Clock.Pooled() {
		return false
	}
	var end time.Time
	switch info.Phase {
	case agentrig.PhaseCommit:
		end = info.CommitDeadline
	case agentrig.PhaseReveal:
		end = info.RevealDeadline
	default:
		return false
	}
	return !end.IsZero() && time.Unix(int64(head.Time), 0).Before(end) && !now.Before(end.Add(quietMargin))
}

// tooEarly is the draw's refusal while the chain is not past the order block.
func tooEarly(err error) bool { return agentrig.IsRevert(err, "TooEarly") }

// wrongPhase is a call's refusal while the chain still holds the task in phase p.
func wrongPhase(p agentrig.Phase) func(error) bool {
	return func(err error) bool {
		re, ok := agentrig.DecodeRevert(err)
		if !ok || re.Name != "WrongPhase" {
			return false
		}
		v, ok := re.Value.(*agentrig.AgentRigWrongPhase)
		return ok && agentrig.Phase(v.Phase) == p
	}
}

// sendQuiet sends call from s on a quiet chain: simulated first, and stopped unless it goes
// through or is refused only for the chain's lag (early); then sent with gas, not estimated.
func (r *Runner) sendQuiet(ctx context.Context, what string, taskID, rigID uint64, s *txm.Sender, call txm.Call, gas uint64, early func(error) bool) {
	if err := s.Simulate(ctx, call.To, call.Data, call.Value); err != nil && !early(err) {
		r.logSendError(what, taskID, rigID, err)
		return
	}
	if err := r.lead.gate(ctx); err != nil {
		r.logSendError(what, taskID, rigID, err)
		return
	}
	key := fmt.Sprintf("%s/%d", what, taskID)
	r.pace.begin(key, r.cfg.Now())
	rec, err := s.SendChecked(ctx, call.To, call.Data, call.Value, gas)
	r.pace.end(key, r.cfg.Now(), rec != nil)
	if err != nil {
		r.logSendError(what, taskID, rigID, err)
		return
	}
	r.log.Info(what, "task", taskID, "tx", rec.TxHash.Hex(), "quiet_chain", true)
	// A reveal journals as mined ones do (a one-entry revealMany unless the chain skipped it).
	if what == reveals.name && rigID != 0 && (s != r.relayer || !r.deploy.Skipped(rec)[0]) {
		r.revealed(ctx, taskID, rigID, rec)
	}
}

// quietReveal sends the reveal of one of our committed rigs on a quiet chain whose commit window
// ended by the clock: its block opens the reveal window for every rig's reveal after it. Behind
// a relayer it is a one-entry revealMany (whose entry the chain skips rather than refuses while
// it holds the commit phase, so nothing is refused on simulation).
func (r *Runner) quietReveal(ctx context.Context, t *taskState, info agentrig.TaskView, mine map[uint64]int) {
	for rigID, idx := range mine {
		if info.Committed&(1<<idx) == 0 || info.Revealed&(1<<idx) != 0 {
			continue
		}
		entry, found, err := r.journaledAnswer(ctx, t, rigID)
		if err != nil || !found || entry.Salt == ([32]byte{}) || entry.State.Before(journal.StateAnswered) {
			continue
		}
		h := r.rigs[rigID]
		sender, call := h.sender, reveals.call(r.chain, entry)
		if r.relayer != nil {
			digest, err := reveals.digest(r.domain, entry)
			if err != nil {
				continue
			}
			sig, err := h.signer.SignDigest(digest)
			if err != nil {
				continue
			}
			sender, call = r.relayer, reveals.many(r.chain, []journal.Entry{entry}, [][]byte{sig})
		}
		a := answerTx{kind: reveals, entry: entry}
		r.spawn(ctx, a.key(), func(ctx context.Context) {
			r.sendQuiet(ctx, reveals.name, t.id, rigID, sender, call, quietRevealGas, wrongPhase(agentrig.PhaseCommit))
		})
		return // one block opens the window for all
	}
}
