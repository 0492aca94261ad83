package rig

// A quiet chain (agentrig/quiet.go says what it is): when the network's clock says a step's time
// has come and the chain's head is merely older, the process whose turn it is in the schedule
// sends it anyway — the draw past the order block by L1's clock, the settle past the reveal
// window, or, behind a closed commit window, one reveal of ours, whose block opens the reveal
// window for every other rig's — refused only if its simulation gives another reason than the
// chain's lag. A Nitro sequencer mines a transaction at once or refuses it, so the next rank, a
// stage delay later, finds it done.

import (
	"context"
	"fmt"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/txm"
)

// sendQuiet sends call from s on a quiet chain (agentrig.SendQuiet), as sendAny sends.
func (r *Runner) sendQuiet(ctx context.Context, what string, taskID, rigID uint64, s *txm.Sender, call txm.Call, gas uint64, early func(error) bool) {
	if err := r.lead.gate(ctx); err != nil {
		r.logSendError(what, taskID, rigID, err)
		return
	}
	key := fmt.Sprintf("%s/%d", what, taskID)
	r.pace.begin(key, r.cfg.Now())
	rec, err := agentrig.SendQuiet(ctx, s, call, gas, early)
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

// quietStep sends the step a quiet chain waits for: the settle, or one reveal of ours.
func (r *Runner) quietStep(ctx context.Context, t *taskState, info agentrig.TaskView, mine map[uint64]int, phase agentrig.Phase) {
	switch phase {
	case agentrig.PhaseReveal:
		r.quietReveal(ctx, t, info, mine)
	case agentrig.PhaseSettle:
		r.spawn(ctx, fmt.Sprintf("settle/%d", t.id), func(ctx context.Context) {
			r.sendQuiet(ctx, "settle", t.id, 0, r.anySender(), r.chain.SettleCall(t.id), agentrig.QuietSettleGas, agentrig.WrongPhaseIn(info.Phase))
		})
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
			r.sendQuiet(ctx, reveals.name, t.id, rigID, sender, call, agentrig.QuietRevealGas, agentrig.WrongPhaseIn(agentrig.PhaseCommit))
		})
		return // one block opens the window for all
	}
}
