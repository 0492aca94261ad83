package devnet

import (
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// The `safe` and `finalized` block tags, as a Nitro node answers them: safe is the last block of
// the newest batch the batch poster put on L1, finalized the last block of the newest batch
// whose L1 block is final (OffchainLabs/nitro execution/gethexec/sync_monitor.go:
// SafeBlockNumber and FinalizedBlockNumber are the blocks of the consensus's safe and finalized
// message counts, which batches posted to L1 carry). The devnet posts nothing anywhere: its
// batch poster is a pace (a batch of every block sealed since the last, every BatchInterval)
// and L1's finality a number of L1 blocks (Ethereum's two epochs, 64 slots). go-ethereum then
// serves both tags from what the sequencer marks (BlockChain.SetSafe, SetFinalized), where it
// answered "safe block not found" before.

// DefaultBatchInterval is how often the devnet's batch poster posts a batch: Nitro's batch
// poster posts once a batch is full or has waited its max delay, minutes on a quiet chain; the
// devnet's is short, so that a run of a few minutes sees blocks turn safe and final.
const DefaultBatchInterval = 30 * time.Second

// DefaultFinalL1Blocks is how many L1 blocks after the one holding a batch it is final:
// Ethereum finalizes a block two epochs (64 slots) after it.
const DefaultFinalL1Blocks = 64

// postedBatch is a batch on L1: its last L2 block, and the L1 block that holds it.
type postedBatch struct {
	last *types.Header
	l1   uint64
}

// batchPoster is the pace of the devnet's batch poster and of L1's finality.
type batchPoster struct {
	interval   time.Duration
	finalAfter uint64 // L1 blocks
	lastPost   time.Time
	pending    []postedBatch // posted, not yet final, oldest first
}

// postBatches posts a batch when one is due (the head not in a batch yet, the interval passed
// since the last post) and marks the blocks safe and final as L1 takes them. A Nitro-style chain
// only (its L1 clock numbers the L1 blocks); it runs with block production held, on the chain's
// clock.
func (s *Sequencer) postBatches() {
	p := s.batches
	if p == nil || s.clock == nil {
		return
	}
	chain := s.eth.BlockChain()
	head := chain.CurrentBlock()
	now := s.now()
	l1 := s.clock.At(uint64(now.Unix()))
	if now.Sub(p.lastPost) >= p.interval {
		safe := chain.CurrentSafeBlock()
		if safe == nil || safe.Number.Cmp(head.Number) < 0 {
			p.pending = append(p.pending, postedBatch{last: head, l1: l1})
			chain.SetSafe(head)
		}
		p.lastPost = now
	}
	final := -1
	for i, b := range p.pending {
		if b.l1+p.finalAfter <= l1 {
			final = i
		}
	}
	if final >= 0 {
		chain.SetFinalized(p.pending[final].last)
		p.pending = p.pending[final+1:]
	}
}
