package agentrig

// A quiet chain. Robinhood Chain (Nitro) seals a block only for a transaction, and a call
// simulated at the head reads the head's block.number (the L1 number) and block.timestamp. While
// nobody sends anything, a task's order block never looks passed and its windows never look
// closed, so every simulation of the step that would move the chain on says it is too early, and
// nothing ever moves it. That step's own transaction makes the block it is judged in, stamped
// now, under the L1 number of now: when the network's clock says its time has come, it can be
// sent anyway, with a gas of its own (none can be estimated). The rig's runner and `order --wait`
// (Follow) both do.

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/txm"
)

// QuietMargin is how long past a window's end by the wall clock a quiet chain's step is sent:
// room for a sequencer's clock a little behind ours.
const QuietMargin = 2 * time.Second

// The gas a quiet send carries, which the node cannot estimate on a chain that says it is too
// early; unused gas is not charged. A draw scans at most 64 rigs (MAX_SCAN) for a quorum of up to
// five; a settle pays up to five rigs; a reveal is one rig's (about 70,000 gas measured).
const (
	QuietDrawGas   = 800_000
	QuietSettleGas = 800_000
	QuietRevealGas = 300_000
)

// PhaseAt is the phase a block stamped t would find a task in, from where the chain holds it at
// an older head (v): a commit window that has ended gives way to the reveal window, and a reveal
// window that has ended to settle, as AgentRig's phaseOf counts them by block.timestamp.
func PhaseAt(v TaskView, t time.Time) Phase {
	p := v.Phase
	if p == PhaseCommit && !t.Before(v.CommitDeadline) {
		p = PhaseReveal
	}
	if p == PhaseReveal && !t.Before(v.RevealDeadline) {
		p = PhaseSettle
	}
	return p
}

// QuietPhase is the phase a block sealed now would find the task in when a quiet Nitro chain
// (no pool: clock.Pooled is false) still holds it in an earlier one; ok is false otherwise.
func QuietPhase(clock ChainClock, v TaskView, now time.Time) (Phase, bool) {
	return QuietPhaseWithin(clock, v, now, QuietMargin)
}

// QuietPhaseWithin is QuietPhase with a margin of its own: QuietMargin plus how far the
// sequencer's clock was measured behind ours (SkewMeter), so that a quiet reveal is never sent
// while a block sealed now could still be stamped inside the commit window (it would revert and
// leave its salt public while other rigs can still commit).
func QuietPhaseWithin(clock ChainClock, v TaskView, now time.Time, margin time.Duration) (Phase, bool) {
	if clock == nil || clock.Pooled() {
		return v.Phase, false
	}
	p := PhaseAt(v, now.Add(-margin))
	return p, p != v.Phase
}

// skewSamples is how many new heads the SkewMeter remembers.
const skewSamples = 16

// SkewMeter measures how far behind ours the sequencer's clock stamps its blocks: each new
// head's arrival by our clock less its timestamp. A block is stamped when it is sealed, in whole
// seconds rounded down, and reaches us a moment later, so every sample is the skew plus up to a
// second and the flight; the least of the last skewSamples is the measure. No sample is taken
// from a head seen again (a quiet chain's old head: its age is the chain's quiet, not its clock)
// nor from one stamped a second after the head before it, which the sequencer may have stamped
// so only because a block must be later than its parent (chain time running ahead under load:
// it would hide the lag). The zero value is ready; it is safe for concurrent use.
type SkewMeter struct {
	mu       sync.Mutex
	last     common.Hash
	lastTime uint64
	samples  []time.Duration
}

// Observe notes head as read at now (our clock).
func (m *SkewMeter) Observe(head *types.Header, now time.Time) {
	if head == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	h := head.Hash()
	if h == m.last {
		return
	}
	prev := m.lastTime
	m.last, m.lastTime = h, head.Time
	if prev == 0 || head.Time <= prev+1 {
		return // the first head seen, or perhaps stamped by its parent's time
	}
	m.samples = append(m.samples, now.Sub(time.Unix(int64(head.Time), 0)))
	if len(m.samples) > skewSamples {
		m.samples = m.samples[1:]
	}
}

// Behind is how far the sequencer's clock is measured behind ours (0 when it is not, or
// nothing was measured yet).
func (m *SkewMeter) Behind() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.samples) == 0 {
		return 0
	}
	return max(0, slices.Min(m.samples))
}

// TooEarly is the draw's refusal while the chain is not past the order block.
func TooEarly(err error) bool { return IsRevert(err, "TooEarly") }

// WrongPhaseIn is a call's refusal while the chain holds the task in phase p.
func WrongPhaseIn(p Phase) func(error) bool {
	return func(err error) bool {
		re, ok := DecodeRevert(err)
		if !ok || re.Name != "WrongPhase" {
			return false
		}
		v, ok := re.Value.(*AgentRigWrongPhase)
		return ok && Phase(v.Phase) == p
	}
}

// SendQuiet sends call from s on a quiet chain: simulated first and stopped unless it goes
// through or is refused only for the chain's lag (early), then sent with gas, not estimated.
func SendQuiet(ctx context.Context, s *txm.Sender, call txm.Call, gas uint64, early func(error) bool) (*types.Receipt, error) {
	if err := s.Simulate(ctx, call.To, call.Data, call.Value); err != nil && !early(err) {
		return nil, err
	}
	rec, err := s.SendChecked(ctx, call.To, call.Data, call.Value, gas)
	if err != nil {
		return nil, fmt.Errorf("quiet chain: %w", err)
	}
	return rec, nil
}

// followQuiet sends, for Follow, the draw or settle a quiet Nitro chain waits for: the draw once
// the clock says L1 is past the order block the stale head is not past, the settle once the
// wall clock is past the reveal window the stale head still holds the task in (or the commit
// window of a task nobody committed to). sent is false when the chain is not quiet about the
// task, and the usual path goes on.
func followQuiet(ctx context.Context, c *Contract, s *txm.Sender, id uint64, phase Phase, o FollowOptions) (sent bool, err error) {
	if o.Clock == nil || o.Clock.Pooled() || (phase != PhaseDraw && phase != PhaseCommit && phase != PhaseReveal) {
		return false, nil
	}
	info, err := c.Task(ctx, new(big.Int).SetUint64(id))
	if err != nil {
		return false, err
	}
	v := taskView(id, info)
	now := time.Now()
	if o.Now != nil {
		now = o.Now()
	}
	var call txm.Call
	var gas uint64
	var early func(error) bool
	switch {
	case v.Phase == PhaseDraw:
		head, err := o.Clock.ReadHead(ctx, c.backend)
		if err != nil {
			return false, err
		}
		if o.Clock.Number(head) > v.OrderBlock || o.Clock.Reached(ctx, head, now) <= v.OrderBlock {
			return false, nil // not quiet, or not yet
		}
		call, gas, early = c.DrawCall(id), QuietDrawGas, TooEarly
	default:
		if p, quiet := QuietPhase(o.Clock, v, now); !quiet || p != PhaseSettle {
			return false, nil
		}
		call, gas, early = c.SettleCall(id), QuietSettleGas, WrongPhaseIn(v.Phase)
	}
	_, err = SendQuiet(ctx, s, call, gas, early)
	return true, err
}
