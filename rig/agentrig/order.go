package agentrig

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// What a user of the oracle does on chain: order job-2 tasks, follow them to their answer, read
// answers, and take back the price of a task nobody drew.

// OrderInput is one task's input, built exactly as a rig checks it.
type OrderInput struct {
	Symbol string
	Minute time.Time
	URI    string      // data:application/json,{...}
	Hash   common.Hash // keccak256 of the URI's bytes
}

// BuildInputs encodes each (symbol, minute) under the rules and checks it as the rigs do
// (InputRules.Refusal), so an input the rigs would refuse is refused here, before anything is
// paid. commitDeadline is the earliest the commit window of a task ordered now can end (zero:
// not checked): a minute that closes after it cannot be priced before the rigs must commit.
func BuildInputs(rules task.InputRules, pairs []OrderInput, commitDeadline time.Time) ([]OrderInput, error) {
	out := make([]OrderInput, 0, len(pairs))
	for i, p := range pairs {
		uri, hash, err := rules.Encode(p.Symbol, p.Minute)
		if err != nil {
			return nil, fmt.Errorf("input %d (%s %s): the rigs would refuse it (%s)", i+1, p.Symbol, p.Minute.UTC().Format(time.RFC3339), task.RefusalText(err))
		}
		// exactly the rigs' own check: a refused task is answered the spec's refusal_answer, so
		// paying for it buys nothing
		in, err := rules.Refusal(uri, hash, commitDeadline)
		if err != nil {
			return nil, fmt.Errorf("input %d (%s %s): the rigs would refuse it (%s)", i+1, p.Symbol, p.Minute.UTC().Format(time.RFC3339), task.RefusalText(err))
		}
		out = append(out, OrderInput{Symbol: in.Symbol, Minute: in.Minute, URI: uri, Hash: hash})
	}
	return out, nil
}

// OrderCall orders one task per input on jobID at price wei each: order for one input,
// orderMany for several (one transaction).
func (c *Contract) OrderCall(jobID uint32, price *big.Int, inputs []OrderInput) txm.Call {
	value := new(big.Int).Mul(price, big.NewInt(int64(len(inputs))))
	if len(inputs) == 1 {
		return txm.Call{Function: fmt.Sprintf("order(%d, %s, %s)", jobID, inputs[0].Hash.Hex(), inputs[0].URI), To: c.Address,
			Data: c.abi.PackOrder(jobID, inputs[0].Hash, inputs[0].URI), Value: value}
	}
	hashes := make([][32]byte, len(inputs))
	uris := make([]string, len(inputs))
	for i, in := range inputs {
		hashes[i], uris[i] = in.Hash, in.URI
	}
	return txm.Call{Function: fmt.Sprintf("orderMany(%d, %d inputs)", jobID, len(inputs)), To: c.Address,
		Data: c.abi.PackOrderMany(jobID, hashes, uris), Value: value}
}

// OrderedTasks reads the task ids of the TaskOrdered events of an order transaction.
func (c *Contract) OrderedTasks(r txm.SentTx) []uint64 {
	var ids []uint64
	for _, l := range r.Logs {
		if ev, err := c.abi.UnpackTaskOrderedEvent(l); err == nil {
			ids = append(ids, ev.TaskId.Uint64())
		}
	}
	return ids
}

// DrawCall draws a task's rigs; SettleCall settles it; RefundCall refunds a task nobody drew.
func (c *Contract) DrawCall(taskID uint64) txm.Call {
	return txm.Call{Function: fmt.Sprintf("draw(%d)", taskID), To: c.Address, Data: c.abi.PackDraw(new(big.Int).SetUint64(taskID))}
}

// SettleCall settles a task whose reveal window closed or whose rigs all revealed.
func (c *Contract) SettleCall(taskID uint64) txm.Call {
	return txm.Call{Function: fmt.Sprintf("settle(%d)", taskID), To: c.Address, Data: c.abi.PackSettle(new(big.Int).SetUint64(taskID))}
}

// RefundCall credits the orderer the price of a task nobody drew within the hour.
func (c *Contract) RefundCall(taskID uint64) txm.Call {
	return txm.Call{Function: fmt.Sprintf("refund(%d)", taskID), To: c.Address, Data: c.abi.PackRefund(new(big.Int).SetUint64(taskID))}
}

// Windows reads the contract's commit and reveal windows.
func (c *Contract) Windows(ctx context.Context) (commit, reveal time.Duration, err error) {
	out, err := c.call(ctx, c.abi.PackCommitWindow())
	if err != nil {
		return 0, 0, fmt.Errorf("commitWindow: %w", err)
	}
	cw, err := c.abi.UnpackCommitWindow(out)
	if err != nil {
		return 0, 0, err
	}
	if out, err = c.call(ctx, c.abi.PackRevealWindow()); err != nil {
		return 0, 0, fmt.Errorf("revealWindow: %w", err)
	}
	rw, err := c.abi.UnpackRevealWindow(out)
	if err != nil {
		return 0, 0, err
	}
	return time.Duration(cw) * time.Second, time.Duration(rw) * time.Second, nil
}

// Answer is a task's outcome as answerOf gives it.
type Answer struct {
	TaskID  uint64
	Phase   Phase
	Agreed  bool
	Answer  [32]byte
	Agree   int
	Reveals int
}

// Price is the stored answer read as price × 10^8.
func (a Answer) Price() string { return numeric.FormatScaled(numeric.AnswerInt(a.Answer)) }

// Final is whether the task is settled or refunded.
func (a Answer) Final() bool {
	return a.Phase == PhaseSettled || a.Phase == PhaseRefunded
}

// RefusedBy says whether the task was refused by the spec the rules are of: it settled in
// agreement on the spec's refusal_answer, which every rig commits for a task the spec refuses.
func (a Answer) RefusedBy(rules task.InputRules) bool {
	return a.Phase == PhaseSettled && a.Agreed && rules.IsRefusal(a.Answer)
}

// ReadAnswer reads answerOf (whose status is phaseOf).
func (c *Contract) ReadAnswer(ctx context.Context, taskID uint64) (Answer, error) {
	a, err := c.AnswerOf(ctx, new(big.Int).SetUint64(taskID))
	if err != nil {
		return Answer{}, err
	}
	return Answer{TaskID: taskID, Phase: Phase(a.Status), Agreed: a.Agreed, Answer: a.Answer, Agree: int(a.Agree), Reveals: int(a.Reveals)}, nil
}

// FollowOptions tune Follow.
type FollowOptions struct {
	Poll time.Duration // between looks at the chain; default 500ms
	// Grace is how long a task may wait in the draw or settle phase for someone else (the rigs
	// draw and settle) before the follower sends the transaction itself; default 10s.
	Grace time.Duration
	// Step receives each change of a task's phase, for printing (may be nil).
	Step func(taskID uint64, phase Phase, detail string)
	// Clock is how the network numbers its blocks (nil: Ethereum-style). On a quiet Nitro chain
	// the draw or settle whose time has come by the clock is sent though the chain's stale head
	// says it is too early: its own block moves the chain (quiet.go).
	Clock ChainClock
	// Now is the wall clock (nil: time.Now).
	Now func() time.Time
}

// Follow follows tasks through draw, commit, reveal and settle until each is settled or
// refunded, drawing or settling a task itself (from the sender) when nobody has within the
// grace. It returns each task's answer. A node that does not answer for a while (a busy or
// restarting RPC) is asked again at the next poll until ctx ends, which then reports the last
// error.
func Follow(ctx context.Context, c *Contract, s *txm.Sender, ids []uint64, o FollowOptions) ([]Answer, error) {
	if o.Poll == 0 {
		o.Poll = 500 * time.Millisecond
	}
	if o.Grace == 0 {
		o.Grace = 10 * time.Second
	}
	last := map[uint64]Phase{}
	since := map[uint64]time.Time{}
	done := map[uint64]Answer{}
	tick := time.NewTicker(o.Poll)
	defer tick.Stop()
	var lastErr error
	for len(done) < len(ids) {
		for _, id := range ids {
			if _, ok := done[id]; ok {
				continue
			}
			a, err := c.ReadAnswer(ctx, id)
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				lastErr = err
				continue
			}
			if a.Phase == PhaseNone {
				return nil, fmt.Errorf("there is no task %d", id)
			}
			if a.Phase != last[id] {
				last[id], since[id] = a.Phase, time.Now()
				if o.Step != nil {
					o.Step(id, a.Phase, stepDetail(a))
				}
			}
			if a.Final() {
				done[id] = a
				continue
			}
			if s == nil || time.Since(since[id]) < o.Grace {
				continue
			}
			if sent, err := followQuiet(ctx, c, s, id, a.Phase, o); sent || err != nil {
				if errors.Is(err, txm.ErrInsufficientFunds) {
					return nil, err
				}
				if err != nil {
					lastErr = err
				}
				since[id] = time.Now()
				continue
			}
			var call txm.Call
			switch a.Phase {
			case PhaseDraw:
				call = c.DrawCall(id)
			case PhaseSettle:
				call = c.SettleCall(id)
			default:
				continue
			}
			p, err := txm.Prepare(ctx, c.backend, s.Address(), call)
			var refused *txm.Refused
			if errors.As(err, &refused) {
				continue // someone else moved it on, or it is too early: look again
			}
			if err != nil {
				lastErr = err
				continue
			}
			if _, err := txm.SendPlan(ctx, s, p); err != nil && !errors.As(err, &refused) {
				if errors.Is(err, txm.ErrInsufficientFunds) {
					return nil, err
				}
				lastErr = err
				continue
			}
			since[id] = time.Now()
		}
		if len(done) == len(ids) {
			break
		}
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return nil, fmt.Errorf("waiting for tasks %s: %w (last error: %v)", joinIDs(ids), ctx.Err(), lastErr)
			}
			return nil, fmt.Errorf("waiting for tasks %s: %w", joinIDs(ids), ctx.Err())
		case <-tick.C:
		}
	}
	out := make([]Answer, len(ids))
	for i, id := range ids {
		out[i] = done[id]
	}
	return out, nil
}

func stepDetail(a Answer) string {
	switch a.Phase {
	case PhaseReveal, PhaseSettle:
		return fmt.Sprintf("%d revealed", a.Reveals)
	case PhaseSettled:
		return fmt.Sprintf("agreed=%v answer %s (%d of %d reveals agree)", a.Agreed, a.Price(), a.Agree, a.Reveals)
	}
	return ""
}

func joinIDs(ids []uint64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ", ")
}
