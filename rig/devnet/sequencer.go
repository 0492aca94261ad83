package devnet

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/miner"
	"github.com/ethereum/go-ethereum/node"
)

// Sequencer seals the devnet's blocks itself, as Robinhood Chain's sequencer does, instead of
// go-ethereum's simulated beacon (ethclient/simulated), which stamps every block with random
// bytes in mixHash and has no hook to put anything first in a block. Each block is built by the
// node's own miner from its transaction pool (miner.BuildTestingPayload, the path of go-ethereum's
// testing_buildBlockV1, which takes the header's mixHash, extraData and time from the caller and
// builds synchronously; the engine API's public getPayload may hand back the empty payload it
// builds first) and inserted as the new head (BlockChain.InsertBlockWithoutSetHead and
// SetCanonical, as testing_commitBlockV1 does), which fires the head events subscriptions and the
// pool follow.
//
// On a Nitro-style chain (an L1 clock) every block's mixHash packs its L1 block number as Nitro
// does, its extraData is the (empty) send root, and its first transaction is the sequencer's
// startBlock call to DevnetArbOS (nitro.go).
//
// Tests drive it through Chain.Do: Commit, Fork, Rollback and AdjustTime keep the meaning they had
// on the simulated backend.
type Sequencer struct {
	node  *node.Node
	eth   *eth.Ethereum
	local *ethclient.Client // in-process, to the node's full API (the Nitro one where it overrides)
	key   *ecdsa.PrivateKey // sends the startBlock transactions; the blocks' fee recipient
	addr  common.Address
	clock *L1Clock // nil on an Ethereum-style chain
	arbos *DevnetArbOS
	// minTip is the least tip the miner takes (its gas price); startBlock pays it
	minTip *big.Int
	// now is the chain's clock, which stamps its blocks (ChainOptions.Now)
	now func() time.Time
	// l1Fees charges each transaction's L1 part in the chain's blocks (l1fee.go); nil: none
	l1Fees *l1FeeProcessor
	// batches is the batch poster's and L1's pace, which make blocks safe and final
	// (batches.go); nil on an Ethereum-style chain
	batches *batchPoster
}

// stamp is the time a block sealed now carries.
func (s *Sequencer) stamp() uint64 { return uint64(s.now().Unix()) }

// Client is an in-process JSON-RPC client of the chain, answering as the served one does.
func (s *Sequencer) Client() *ethclient.Client { return s.local }

// Commit seals a block of whatever the pool holds (possibly none) and returns the head's hash:
// the new block's, or the old head's when sealing failed (as the simulated backend's Commit).
func (s *Sequencer) Commit() common.Hash {
	_ = s.seal(s.stamp())
	return s.eth.BlockChain().CurrentBlock().Hash()
}

// Rollback drops every transaction the pool holds.
func (s *Sequencer) Rollback() { s.eth.TxPool().Clear() }

// Fork makes the block parentHash the head, as a reorg to it would; the transactions of the
// blocks it drops go back to the pool. It refuses while the pool holds a transaction.
func (s *Sequencer) Fork(parentHash common.Hash) error {
	pool := s.eth.TxPool()
	if err := pool.Sync(); err != nil {
		return err
	}
	if pending, _ := pool.Stats(); pending != 0 {
		return errors.New("pending block dirty") // the simulated beacon's words
	}
	parent := s.eth.BlockChain().GetBlockByHash(parentHash)
	if parent == nil {
		return errors.New("parent not found")
	}
	_, err := s.eth.BlockChain().SetCanonical(parent)
	return err
}

// AdjustTime seals an empty block stamped adjustment after the head's time. It refuses while
// the pool holds a transaction.
func (s *Sequencer) AdjustTime(adjustment time.Duration) error {
	if pending, _ := s.eth.TxPool().Stats(); pending != 0 {
		return errors.New("could not adjust time on non-empty block") // the simulated beacon's words
	}
	return s.seal(s.eth.BlockChain().CurrentBlock().Time + uint64(adjustment/time.Second))
}

// firstBlock seals the chain's first block and waits for the transaction indexer to index it.
// Until the indexer's first pass, which waits for a block past the genesis, go-ethereum answers
// the receipt of a transaction not yet mined with "transaction indexing is in progress" instead
// of null, and ethers.js gives up on the transaction.
func (s *Sequencer) firstBlock() error {
	if err := s.seal(s.stamp()); err != nil {
		return fmt.Errorf("devnet: the first block: %w", err)
	}
	if s.batches != nil { // the chain's start is in its first batch, final from the start
		chain := s.eth.BlockChain()
		chain.SetSafe(chain.CurrentBlock())
		chain.SetFinalized(chain.CurrentBlock())
	}
	for deadline := time.Now().Add(time.Minute); !s.eth.BlockChain().TxIndexDone(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			return errors.New("devnet: the transaction indexer did not index the first block")
		}
	}
	return nil
}

// pending is how many transactions the pool holds ready to be sealed.
func (s *Sequencer) pending() int {
	n, _ := s.eth.TxPool().Stats()
	return n
}

// seal builds the next block on the head, stamped timestamp (at least a second after its
// parent: go-ethereum's consensus rules want strictly increasing times), and makes it the head.
func (s *Sequencer) seal(timestamp uint64) error { return s.sealBlock(timestamp, false) }

// sealBeat seals a heartbeat's block: none of the pool's transactions, only the sequencer's own
// startBlock on a Nitro-style chain. A beat comes on its own schedule, so a transaction that
// arrived just before it would be sealed younger than MinBlockInterval, which the wallet-safety
// rule forbids (see MinBlockInterval); the pool's transactions wait for their own block.
func (s *Sequencer) sealBeat(timestamp uint64) error { return s.sealBlock(timestamp, true) }

func (s *Sequencer) sealBlock(timestamp uint64, beat bool) error {
	chain := s.eth.BlockChain()
	parent := chain.CurrentBlock()
	if timestamp <= parent.Time {
		timestamp = parent.Time + 1
	}
	// The pool settles what it was given, and a reorg's dropped transactions, before the block
	// is built from it (and before the sequencer's own nonce is read from it).
	if err := s.eth.TxPool().Sync(); err != nil {
		return fmt.Errorf("syncing the pool: %w", err)
	}
	var mix common.Hash
	var extra []byte
	var only []*types.Transaction // a beat's: the startBlock alone
	if s.clock != nil {
		l1 := max(s.clock.At(timestamp), nitroHeader(parent).L1BlockNumber)
		start, err := s.startBlock(parent, l1)
		if err != nil {
			return err
		}
		only = []*types.Transaction{start}
		info := NitroHeader{L1BlockNumber: l1, ArbOSVersion: ArbOSVersion}
		mix, extra = info.MixHash(), info.SendRoot[:]
	} else if _, err := rand.Read(mix[:]); err != nil { // prevrandao, as the simulated beacon's
		return err
	}
	if err := s.eth.TxPool().Sync(); err != nil { // the startBlock just added
		return fmt.Errorf("syncing the pool: %w", err)
	}
	number := new(big.Int).Add(parent.Number, common.Big1)
	args := &miner.BuildPayloadArgs{Parent: parent.Hash(), Timestamp: timestamp, FeeRecipient: s.addr, Random: mix,
		Withdrawals: types.Withdrawals{}, BeaconRoot: &common.Hash{}}
	if chain.Config().IsAmsterdam(number, timestamp) {
		var slot uint64
		args.SlotNum = &slot
	}
	var override []*types.Transaction
	if beat {
		override = only
	}
	// A beat on an Ethereum-style chain has no startBlock: an empty block (noTxs).
	block, _, err := s.eth.Miner().BuildTestingPayload(args, override, beat && len(override) == 0, extra)
	if err != nil {
		return fmt.Errorf("building block %s: %w", number, err)
	}
	if s.l1Fees != nil { // the miner's state root lacks the L1 parts the chain's processor charges
		header := block.Header()
		if header.Root, err = s.l1Fees.postState(chain, block); err != nil {
			return fmt.Errorf("charging block %s's L1 fees: %w", number, err)
		}
		block = block.WithSeal(header)
	}
	if _, err := chain.InsertBlockWithoutSetHead(context.Background(), block, false); err != nil {
		return fmt.Errorf("inserting block %s: %w", number, err)
	}
	if _, err := chain.SetCanonical(block); err != nil {
		return fmt.Errorf("making block %s the head: %w", number, err)
	}
	// The pool drops what the block mined as it follows the new head, in the background; wait
	// for it, so that whoever sealed (a test's Commit) sees a pool without the mined transactions.
	if err := s.eth.TxPool().Sync(); err != nil {
		return fmt.Errorf("syncing the pool after block %s: %w", number, err)
	}
	return nil
}

// close stops the node.
func (s *Sequencer) close() error {
	s.local.Close()
	return s.node.Close()
}

// sealLoop seals a block once a transaction has waited MinBlockInterval in the pool, and an
// empty one every heartbeat (0: never) while nothing is sent, until stop closes.
type sealLoop struct {
	mu        *sync.Mutex // held while sealing, and by Chain.Do
	paused    *bool
	holdAfter *func() bool // Chain.HoldAfter's condition, checked after each block sealed
	seq       *Sequencer
	heartbeat time.Duration
	now       func() time.Time
	onError   func(error)
}

func (l sealLoop) run(stop <-chan struct{}) {
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	st := loopState{last: l.now()}
	for {
		select {
		case <-stop:
			return
		case <-poll.C:
		}
		l.step(&st)
	}
}

// loopState is what the sealing loop remembers between two looks at the pool.
type loopState struct {
	last    time.Time // when the last block was sealed
	waiting time.Time // when the loop first saw a transaction pending since the last block
}

// step looks at the pool once, at l.now(), and seals what is due: a block of the pool's
// transactions once one has waited MinBlockInterval, else a heartbeat's block when one is due;
// then the batch poster posts what is due.
func (l sealLoop) step(st *loopState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// L1 moves on whether or not the chain makes blocks: batches post and turn final on their
	// own pace (batches.go), but for a stalled (paused) sequencer's.
	defer func() {
		if !*l.paused {
			l.seq.postBatches()
		}
	}()
	now := l.now()
	if l.seq.pending() == 0 {
		st.waiting = time.Time{}
	} else if st.waiting.IsZero() {
		st.waiting = now
	}
	// A transaction waits MinBlockInterval from when it was first seen: blocks come at most
	// that often, and no receipt appears sooner after its transaction was sent (see
	// MinBlockInterval).
	due := !st.waiting.IsZero() && now.Sub(st.waiting) >= MinBlockInterval
	beat := l.heartbeat > 0 && now.Sub(st.last) >= l.heartbeat
	if *l.paused || (!due && !beat) {
		return
	}
	var err error
	if due {
		err = l.seq.seal(l.seq.stamp())
		st.waiting = time.Time{}
	} else {
		// A beat seals none of the pool's transactions: one waiting keeps its time.
		err = l.seq.sealBeat(l.seq.stamp())
	}
	if err != nil {
		l.onError(err)
	}
	st.last = l.now()
	if held := *l.holdAfter; held != nil && held() {
		*l.paused, *l.holdAfter = true, nil
	}
}
