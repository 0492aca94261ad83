package devnet

// How the devnet follows its tasks to their end and reports them.

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"sort"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
)

// TaskReport is how one task ended.
type TaskReport struct {
	TaskID  uint64
	Phase   agentrig.Phase
	Agreed  bool
	Answer  string // the stored answer as a price
	Agree   int
	Reveals int
	Rigs    []RigReport
}

// RigReport is one rig's part in a task, from its journal.
type RigReport struct {
	RigID       uint64
	Price       string
	State       journal.State
	DistanceBps string // to the stored median
	Inside      bool
}

// Wait follows the tasks until each is settled or refunded, emitting each step of their life,
// and reports how they ended.
func (d *Devnet) Wait(ctx context.Context, ids []uint64) ([]TaskReport, error) {
	contract := agentrig.NewContract(d.client, d.Contract)
	last := map[uint64]string{}
	done := map[uint64]TaskReport{}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	lastSaid := d.opts.Now()
	for len(done) < len(ids) {
		infos := map[uint64]agentrig.AgentRigTaskInfo{}
		for _, id := range ids {
			if _, ok := done[id]; ok {
				continue
			}
			info, err := contract.Task(ctx, new(big.Int).SetUint64(id))
			if err != nil {
				return nil, err
			}
			infos[id] = info
			step, detail := describe(info)
			if step != last[id] {
				last[id] = step
				lastSaid = d.opts.Now()
				d.emit(Event{TaskID: id, Phase: step, Detail: detail})
			}
			switch agentrig.Phase(info.Phase) {
			case agentrig.PhaseSettled, agentrig.PhaseRefunded:
				rep, err := d.report(ctx, contract, id, info)
				if err != nil {
					return nil, err
				}
				done[id] = rep
				delete(infos, id)
			}
		}
		// Between steps the rigs wait (for final bars, for a window): say what for and until when
		// rather than stay silent (issue 37: ~17 s without a word between task lines).
		if now := d.opts.Now(); now.Sub(lastSaid) >= d.opts.QuietAfter && len(infos) > 0 {
			lastSaid = now
			for _, id := range ids {
				if info, ok := infos[id]; ok {
					d.emit(Event{TaskID: id, Phase: "waiting", Detail: waitingFor(info), Waiting: true})
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for tasks: %w", ctx.Err())
		case <-tick.C:
		}
	}
	out := make([]TaskReport, 0, len(ids))
	for _, id := range ids {
		out = append(out, done[id])
	}
	return out, nil
}

// waitingFor says what a task waits for in its phase and until when (the contract's deadlines are
// block timestamps: AgentRig.sol sets commitDeadline = block.timestamp + commitWindow).
func waitingFor(info agentrig.AgentRigTaskInfo) string {
	at := func(unix uint64) string { return time.Unix(int64(unix), 0).UTC().Format(time.TimeOnly) + " UTC" }
	count := func(mask uint8) int { return bits.OnesCount8(mask) }
	switch agentrig.Phase(info.Phase) {
	case agentrig.PhaseDraw:
		return "for a draw of its rigs"
	case agentrig.PhaseCommit:
		return fmt.Sprintf("for commits (%d/%d): each rig commits once its sources' bars of the minute are final, until the commit window closes at %s",
			count(info.CommittedMask), len(info.RigIds), at(info.CommitDeadline))
	case agentrig.PhaseReveal:
		return fmt.Sprintf("for reveals (%d/%d) until the reveal window closes at %s", count(info.RevealedMask), len(info.RigIds), at(info.RevealDeadline))
	case agentrig.PhaseSettle:
		return fmt.Sprintf("for a settlement (the reveal window closed at %s)", at(info.RevealDeadline))
	}
	return "for its end"
}

func describe(info agentrig.AgentRigTaskInfo) (string, string) {
	count := func(mask uint8) int {
		n := 0
		for ; mask != 0; mask &= mask - 1 {
			n++
		}
		return n
	}
	rigs := fmt.Sprint(info.RigIds)
	switch agentrig.Phase(info.Phase) {
	case agentrig.PhaseDraw:
		return "ordered", ""
	case agentrig.PhaseCommit:
		if info.CommittedMask == 0 {
			return "drawn", "rigs " + rigs
		}
		return fmt.Sprintf("committed %d/%d", count(info.CommittedMask), len(info.RigIds)), ""
	case agentrig.PhaseReveal:
		if info.RevealedMask == 0 {
			return "committed", fmt.Sprintf("%d/%d rigs", count(info.CommittedMask), len(info.RigIds))
		}
		return fmt.Sprintf("revealed %d/%d", count(info.RevealedMask), len(info.RigIds)), ""
	case agentrig.PhaseSettle:
		return "revealed", fmt.Sprintf("%d/%d rigs", count(info.RevealedMask), len(info.RigIds))
	case agentrig.PhaseSettled:
		return "settled", ""
	case agentrig.PhaseRefunded:
		return "refunded", ""
	}
	return fmt.Sprintf("phase %d", info.Phase), ""
}

func (d *Devnet) report(ctx context.Context, contract *agentrig.Contract, id uint64, info agentrig.AgentRigTaskInfo) (TaskReport, error) {
	rep := TaskReport{TaskID: id, Phase: agentrig.Phase(info.Phase)}
	ans, err := contract.AnswerOf(ctx, new(big.Int).SetUint64(id))
	if err != nil {
		return rep, err
	}
	rep.Agreed, rep.Agree, rep.Reveals = ans.Agreed, int(ans.Agree), int(ans.Reveals)
	rep.Answer = numeric.FormatScaled(numeric.AnswerInt(ans.Answer))
	// Each rig's own journal says what it answered and how far that was from the median. A
	// runner records its settlement one step after the chain settles: wait for it briefly.
	for _, rigID := range info.RigIds {
		rr := RigReport{RigID: rigID}
		for attempt := 0; attempt < 100; attempt++ {
			if e, ok := d.journalEntry(ctx, id, rigID); ok {
				rr.Price, rr.State, rr.Inside = e.Price.String(), e.State, e.Inside
				rr.DistanceBps = feeds.FormatCentiBps(e.RealizedCentiBps)
				if e.State.Final() {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		rep.Rigs = append(rep.Rigs, rr)
	}
	sort.Slice(rep.Rigs, func(i, j int) bool { return rep.Rigs[i].RigID < rep.Rigs[j].RigID })
	return rep, nil
}

func (d *Devnet) journalEntry(ctx context.Context, taskID, rigID uint64) (journal.Entry, bool) {
	for _, j := range d.journals {
		if j == nil {
			continue
		}
		if e, ok, err := j.Get(ctx, taskID, rigID); err == nil && ok {
			return e, true
		}
	}
	return journal.Entry{}, false
}

// Summary is a one-line description of a report, for logs.
func (t TaskReport) Summary() string {
	var parts []string
	for _, r := range t.Rigs {
		parts = append(parts, fmt.Sprintf("rig %d %s (%s bps)", r.RigID, r.Price, r.DistanceBps))
	}
	return fmt.Sprintf("task %d agreed=%v answer=%s %s", t.TaskID, t.Agreed, t.Answer, strings.Join(parts, ", "))
}
