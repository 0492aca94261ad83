package rig

import (
	"math/big"
	"sync"
	"time"
)

// The pace of the draw/settle schedule (task.ScheduleOrder ranks the rigs; due, in phases.go,
// decides when our rank's turn has come): a process sends a task's draw or settle only once the
// task has stayed in that phase for its rank times the stage delay. Rank 0 sends at once; when
// its process is down, rank 1 takes over one stage delay later, and so on.
//
// A fixed stage delay is not enough: when the machine or the chain is slow, rank 0's
// transaction is still on its way when rank 1's delay runs out, and a node whose pending state
// does not show it yet (geth caches its pending block for up to 2 s; an Arbitrum node has no
// pool to show) lets rank 1's through too, to revert. So the delay stretches with how long this
// process's own draws and settles take from coming due to being mined (stagePace: its peers on
// the chain see about the same), and a rank also waits for as many blocks as its rank since
// the stage began, so a stalled chain does not bring the next rank in on a transaction that
// waits in the pool.
//
// Nor may a rank send whenever its time has come and gone. On Robinhood Chain two draws sent
// within one block interval of each other both pass simulation — "pending" is "latest" there
// (OffchainLabs/go-ethereum arbitrum/apibackend.go), and the sequencer gathers what arrives for
// up to 250 ms before it makes a block (OffchainLabs/nitro execution/gethexec/sequencer.go,
// DefaultSequencerConfig.MaxBlockSpeed) — and the second reverts WrongPhase, ~28k gas lost. A
// process whose rank's turn passed while it could not send (an instance taking over after the
// journal's database was down) and that sent the moment it could would race the next rank,
// which sends when its own turn begins. So the turns take their places in a cycle (onTurn): at
// any moment one listed rank may send, and none in the last quarter of a turn, so the moment a
// turn begins is a quarter of a stage delay from any send of a rank that came late.

// unknownRank is the rank of a process that could not read the job's rigs (and none of whose
// rigs is among a task's drawn ones): the back of the schedule, behind as many rigs as the
// reference contract looks at in a draw (MAX_SCAN in contract/AgentRig.sol). It still sends, so a
// task moves on when every process's node fails that read.
const unknownRank = 64

// onTurn reports whether rank (of ranks listed in the schedule) may send elapsed into a stage
// with the given stage delay. Turns follow each other in a cycle, one stage delay each: rank r
// holds turns r, r+ranks, r+2·ranks, … and sends in one but not in its last quarter (turnGuard),
// so a rank that comes late (its turn long passed) waits for its next turn rather than race the
// rank whose turn it is now, which sends as its turn begins, and a rank late in its own turn
// stops a quarter of a stage delay before the next one's begins. A draw that reverted (too early
// on a quiet chain) is tried again by whichever rank holds the next turn. A lone rank sends
// whenever it is due. A process behind every listed rank (none of its rigs listed, or the job's
// rigs unread) sends once its rank's time has come, only from the middle of a turn to its guard,
// when no listed rank is due to start a send.
func onTurn(rank, ranks int, elapsed, delay time.Duration) bool {
	if elapsed < time.Duration(rank)*delay {
		return false
	}
	if delay <= 0 || ranks <= 1 && rank == 0 {
		return true
	}
	into := elapsed % delay
	if into >= delay-delay/turnGuard {
		return false
	}
	if rank >= ranks {
		return into >= delay/2
	}
	return int(elapsed/delay)%ranks == rank
}

// turnGuard: the last 1/turnGuard of every turn is kept free of sends. At Robinhood Chain's 2 s
// stage delay that is 500 ms, two of its sequencer's 250 ms blocks.
const turnGuard = 4

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
