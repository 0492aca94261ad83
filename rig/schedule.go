package rig

import (
	"bytes"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// The transactions anyone may send for a task — draw (and the draw again after a re-anchor) and
// settle — are sent by one rig at a time, as Chainlink OCR's transmission schedule does: every
// process ranks the rigs by keccak256(abi.encode(uint256 taskId, uint64 rigId)), the same order
// everywhere, and a process sends only once the task has stayed in that phase for its rank times
// the stage delay. Rank 0 sends at once; when its process is down, rank 1 takes over one stage
// delay later, and so on. Whatever still slips through (two ranks racing) is caught by the
// sender's simulation against the pending state.
//
// A fixed stage delay is not enough: when the machine or the chain is slow, rank 0's
// transaction is still on its way when rank 1's delay runs out, and a node whose pending state
// does not show it yet (geth caches its pending block for up to 2 s; an Arbitrum node has no
// pool to show) lets rank 1's through too, to revert. So the delay stretches with how long this
// process's own draws and settles take from coming due to being mined (stagePace: its peers on
// the chain see about the same), and a rank also waits for as many blocks as its rank since
// the stage began, so a stalled chain does not bring the next rank in on a transaction that
// waits in the pool.

// ScheduleKey is a rig's place-giving key for a task: keccak256(abi.encode(taskId, rigId)).
func ScheduleKey(taskID, rigID uint64) common.Hash {
	var buf [64]byte
	new(big.Int).SetUint64(taskID).FillBytes(buf[:32])
	new(big.Int).SetUint64(rigID).FillBytes(buf[32:])
	return crypto.Keccak256Hash(buf[:])
}

// ScheduleOrder returns the rigs in the order they send a task's public-good transaction: first
// the rigs of first (the drawn rigs, for settle: they are paid by it and surely watching), then
// those of rest not already listed, each group sorted by ScheduleKey.
func ScheduleOrder(taskID uint64, first, rest []uint64) []uint64 {
	sorted := func(ids []uint64) []uint64 {
		out := slices.Clone(ids)
		slices.SortFunc(out, func(a, b uint64) int {
			ka, kb := ScheduleKey(taskID, a), ScheduleKey(taskID, b)
			return bytes.Compare(ka[:], kb[:])
		})
		return out
	}
	order := sorted(first)
	var others []uint64
	for _, id := range rest {
		if !slices.Contains(first, id) && !slices.Contains(others, id) {
			others = append(others, id)
		}
	}
	return append(order, sorted(others)...)
}

// ScheduleRank is the place of the first of ours in order; len(order) when none is in it (a
// process none of whose rigs the chain lists still sends, last).
func ScheduleRank(order []uint64, ours func(uint64) bool) int {
	for i, id := range order {
		if ours(id) {
			return i
		}
	}
	return len(order)
}

// unknownRank is the rank of a process that could not read the job's rigs (and none of whose
// rigs is among a task's drawn ones): the back of the schedule, behind as many rigs as the
// reference contract looks at in a draw (MAX_SCAN in contract/AgentRig.sol). It still sends, so a
// task moves on when every process's node fails that read.
const unknownRank = 64

// DefaultStageDelay is the stage delay of a chain: how long a rank waits for the one before it.
// It leaves room for a transaction to be broadcast, mined and seen by the next rank. Robinhood
// Chain (4663) makes 250 ms blocks that a rig sees over a real network: 2 s (eight blocks). The
// devnet runs the same chain id and block interval on purpose — it imitates Robinhood Chain, so
// a devnet signature is a mainnet one and the schedule's handover is timed there as on mainnet —
// and so takes the same 2 s. go-ethereum's local chains (1337: geth --dev, the simulated backend)
// seal on the machine the rigs run on: 1 s. Elsewhere 4 s.
func DefaultStageDelay(chainID *big.Int) time.Duration {
	switch chainID.Uint64() {
	case 1337:
		return time.Second
	case 4663:
		return 2 * time.Second
	}
	return 4 * time.Second
}

// paceSamples is how many of the latest sends stagePace keeps; paceFactor is the stretch over
// the slowest of them (room for a peer a little slower than us); paceCap bounds the stretch, in
// stage delays, so a send stuck behind a fee bump does not hold the next rank back for long.
const (
	paceSamples = 32
	paceFactor  = 2
	paceCap     = 10
)

// stagePace measures how long this process's draws and settles take from the moment they come
// due to their receipt, and stretches the stage delay to fit: the delay is at least paceFactor
// times the slowest of the last paceSamples sends and of the sends still on their way (so a
// burst stretches it before any of them is mined).
type stagePace struct {
	mu      sync.Mutex
	recent  []time.Duration // ring of the last paceSamples
	next    int
	pending map[string]time.Time // key -> when it came due
}

// begin notes that the send named key came due at at.
func (p *stagePace) begin(key string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		p.pending = map[string]time.Time{}
	}
	p.pending[key] = at
}

// end notes that the send named key is over at at; mined says whether it reached a block
// (one not sent, because it would revert, is no measure of mining).
func (p *stagePace) end(key string, at time.Time, mined bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	start, ok := p.pending[key]
	delete(p.pending, key)
	if !ok || !mined {
		return
	}
	d := at.Sub(start)
	if len(p.recent) < paceSamples {
		p.recent = append(p.recent, d)
		return
	}
	p.recent[p.next] = d
	p.next = (p.next + 1) % paceSamples
}

// delay is the stage delay to use at now: base, stretched to paceFactor times the slowest
// recent or pending send, at most paceCap times base.
func (p *stagePace) delay(base time.Duration, now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var slowest time.Duration
	for _, d := range p.recent {
		slowest = max(slowest, d)
	}
	for _, start := range p.pending {
		slowest = max(slowest, now.Sub(start))
	}
	return min(max(base, paceFactor*slowest), paceCap*base)
}
