package devnet

import (
	"cmp"
	"context"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// What the chain itself holds of a run, read from blocks, receipts and the contract's events,
// independently of what the rigs journal: benchmarks and tests count with it.

// MinedTx is one transaction to the contract, as its block and receipt show it.
type MinedTx struct {
	Hash     common.Hash
	Block    uint64
	From     common.Address
	Method   string   // the contract method called, "" for anything the ABI does not know
	Tasks    []uint64 // the tasks it moved, from its events; for a reverted draw, settle, commit or reveal, the task it named
	Answers  int      // Committed or Revealed events: rig-answers carried (a batch carries several)
	GasUsed  uint64
	Reverted bool
}

// Mined lists the transactions to the contract mined in blocks from..to (inclusive), with
// their receipts.
func (d *Devnet) Mined(ctx context.Context, from, to uint64) ([]MinedTx, error) {
	signer := types.LatestSignerForChainID(new(big.Int).SetUint64(d.ChainID))
	abi := d.abi.GetABI()
	ev := abi.Events
	byTask := map[common.Hash]bool{ev["TaskDrawn"].ID: true, ev["Committed"].ID: true, ev["Revealed"].ID: true, ev["Settled"].ID: true, ev["Refunded"].ID: true}
	answers := map[common.Hash]bool{ev["Committed"].ID: true, ev["Revealed"].ID: true}
	var out []MinedTx
	for n := from; n <= to; n++ {
		block, err := d.client.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", n, err)
		}
		receipts, err := d.client.BlockReceipts(ctx, rpc.BlockNumberOrHashWithNumber(rpc.BlockNumber(n)))
		if err != nil {
			return nil, fmt.Errorf("receipts of block %d: %w", n, err)
		}
		for i, tx := range block.Transactions() {
			if tx.To() == nil || *tx.To() != d.Contract {
				continue
			}
			rec := receipts[i]
			from, err := types.Sender(signer, tx)
			if err != nil {
				return nil, err
			}
			m := MinedTx{Hash: tx.Hash(), Block: n, From: from, GasUsed: rec.GasUsed, Reverted: rec.Status != types.ReceiptStatusSuccessful}
			data := tx.Data()
			if len(data) >= 4 {
				if method, err := abi.MethodById(data[:4]); err == nil {
					m.Method = method.Name
				}
			}
			seen := map[uint64]bool{}
			for _, l := range rec.Logs {
				if len(l.Topics) < 2 || !byTask[l.Topics[0]] {
					continue
				}
				if answers[l.Topics[0]] {
					m.Answers++
				}
				if id := l.Topics[1].Big().Uint64(); !seen[id] {
					seen[id] = true
					m.Tasks = append(m.Tasks, id)
				}
			}
			if m.Reverted && len(data) >= 36 {
				switch m.Method {
				case "draw", "settle", "commit", "reveal":
					m.Tasks = []uint64{new(big.Int).SetBytes(data[4:36]).Uint64()}
				}
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// Head is the newest block number.
func (d *Devnet) Head(ctx context.Context) (uint64, error) { return d.client.BlockNumber(ctx) }

// Timeline is where a task's steps landed on chain, by block number (0: not seen).
type Timeline struct {
	Drawn     uint64 // the block of its (last) TaskDrawn
	Committed uint64 // the block of its last Committed event
	Commits   int
	Settled   uint64
}

// Timelines reads the tasks' TaskDrawn, Committed and Settled events mined in blocks from..to.
func (d *Devnet) Timelines(ctx context.Context, from, to uint64, ids []uint64) (map[uint64]*Timeline, error) {
	txs, err := d.Mined(ctx, from, to)
	if err != nil {
		return nil, err
	}
	out := map[uint64]*Timeline{}
	for _, id := range ids {
		out[id] = &Timeline{}
	}
	for _, tx := range txs {
		if tx.Reverted {
			continue
		}
		for _, id := range tx.Tasks {
			tl := out[id]
			if tl == nil {
				continue
			}
			switch tx.Method {
			case "draw":
				tl.Drawn = tx.Block
			case "commit", "commitMany":
				tl.Committed = max(tl.Committed, tx.Block)
				tl.Commits++
			case "settle":
				tl.Settled = tx.Block
			}
		}
	}
	return out, nil
}

// HeadClock stamps the wall time at which each new block reached a newHeads subscription over
// the devnet's websocket endpoint: the devnet's block timestamps run ahead of the wall clock
// (a second per block at least), so latencies are read from here.
type HeadClock struct {
	mu     sync.Mutex
	at     map[uint64]time.Time
	client *ethclient.Client
	cancel context.CancelFunc
	done   chan struct{}
}

// WatchHeads starts a HeadClock; Close stops it.
func (c *Chain) WatchHeads(ctx context.Context) (*HeadClock, error) {
	client, err := ethclient.DialContext(ctx, c.WSURL)
	if err != nil {
		return nil, err
	}
	ch := make(chan *types.Header, 64)
	sub, err := client.SubscribeNewHead(ctx, ch)
	if err != nil {
		client.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h := &HeadClock{at: map[uint64]time.Time{}, client: client, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		defer sub.Unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return
			case <-sub.Err():
				return
			case head := <-ch:
				now := time.Now()
				h.mu.Lock()
				if _, ok := h.at[head.Number.Uint64()]; !ok {
					h.at[head.Number.Uint64()] = now
				}
				h.mu.Unlock()
			}
		}
	}()
	return h, nil
}

// At is when block n arrived, and whether it was seen.
func (h *HeadClock) At(n uint64) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.at[n]
	return t, ok
}

// Close stops the subscription.
func (h *HeadClock) Close() {
	h.cancel()
	<-h.done
	h.client.Close()
}

// WaitCommitted waits until every task has quorum Committed events in the blocks from from on
// and returns the head it saw last.
func (d *Devnet) WaitCommitted(ctx context.Context, from uint64, ids []uint64, quorum int) (uint64, error) {
	return d.waitEvents(ctx, from, ids, "Committed", quorum)
}

// WaitSettled waits until every task has a Settled or Refunded event in the blocks from from on
// and returns the head it saw last.
func (d *Devnet) WaitSettled(ctx context.Context, from uint64, ids []uint64) (uint64, error) {
	return d.waitEvents(ctx, from, ids, "", 1)
}

// waitEvents waits until every task has n events of the name (distinct by their second indexed
// topic, the rig, when they have one; "" means Settled or Refunded), reading the contract's logs
// as blocks come: no per-task calls, so the wait does not load the node the rigs use.
func (d *Devnet) waitEvents(ctx context.Context, from uint64, ids []uint64, name string, n int) (uint64, error) {
	want := map[common.Hash]bool{}
	for _, id := range ids {
		want[common.BigToHash(new(big.Int).SetUint64(id))] = true
	}
	events := d.abi.GetABI().Events
	topics := []common.Hash{events["Settled"].ID, events["Refunded"].ID}
	if name != "" {
		topics = []common.Hash{events[name].ID}
	}
	seen := map[common.Hash]map[common.Hash]bool{} // task -> rigs (or transactions)
	done, next := 0, from
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		head, err := d.client.BlockNumber(ctx)
		if err != nil {
			return 0, err
		}
		if head >= next {
			logs, err := d.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(next), ToBlock: new(big.Int).SetUint64(head),
				Addresses: []common.Address{d.Contract}, Topics: [][]common.Hash{topics}})
			if err != nil {
				return 0, err
			}
			for _, l := range logs {
				if len(l.Topics) < 2 || !want[l.Topics[1]] {
					continue
				}
				task, key := l.Topics[1], l.TxHash
				if len(l.Topics) >= 3 {
					key = l.Topics[2]
				}
				if seen[task] == nil {
					seen[task] = map[common.Hash]bool{}
				}
				if !seen[task][key] {
					seen[task][key] = true
					if len(seen[task]) == n {
						done++
					}
				}
			}
			next = head + 1
		}
		if done == len(want) {
			return head, nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("waiting for %d %s events per task: %d of %d tasks there: %w", n, cmp.Or(name, "Settled"), done, len(want), ctx.Err())
		case <-tick.C:
		}
	}
}

// LatencyReport gathers draw-to-commit latencies: per task, from the block that drew it to the
// block holding its last commit, in wall time (HeadClock) and in blocks; per round, from the
// first draw to the last commit.
type LatencyReport struct {
	perTask []time.Duration
	blocks  []uint64
	rounds  []time.Duration
}

// Add takes one round's timelines.
func (l *LatencyReport) Add(clock *HeadClock, tl map[uint64]*Timeline) error {
	var first, last time.Time
	for id, t := range tl {
		if t.Drawn == 0 || t.Committed == 0 {
			return fmt.Errorf("task %d: drawn in block %d, last commit in block %d", id, t.Drawn, t.Committed)
		}
		drawn, ok1 := clock.At(t.Drawn)
		committed, ok2 := clock.At(t.Committed)
		if !ok1 || !ok2 {
			return fmt.Errorf("task %d: blocks %d and %d not both seen by the head clock", id, t.Drawn, t.Committed)
		}
		l.perTask = append(l.perTask, committed.Sub(drawn))
		l.blocks = append(l.blocks, t.Committed-t.Drawn)
		if first.IsZero() || drawn.Before(first) {
			first = drawn
		}
		if committed.After(last) {
			last = committed
		}
	}
	l.rounds = append(l.rounds, last.Sub(first))
	return nil
}

func median[T cmp.Ordered](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	var zero T
	if len(s) == 0 {
		return zero
	}
	return s[len(s)/2]
}

// P50 is the median draw-to-commit time of a task.
func (l *LatencyReport) P50() time.Duration { return median(l.perTask) }

// Max is the longest.
func (l *LatencyReport) Max() time.Duration {
	if len(l.perTask) == 0 {
		return 0
	}
	return slices.Max(l.perTask)
}

// P50Blocks is the median number of blocks from the draw's to the last commit's.
func (l *LatencyReport) P50Blocks() float64 { return float64(median(l.blocks)) }

// MaxBlocks is the most.
func (l *LatencyReport) MaxBlocks() uint64 {
	if len(l.blocks) == 0 {
		return 0
	}
	return slices.Max(l.blocks)
}

// AllCommitted is the median over rounds of the time from a round's first draw to its last
// commit.
func (l *LatencyReport) AllCommitted() time.Duration { return median(l.rounds) }

// Economics is what answering a run's tasks cost, counted from the chain's receipts.
type Economics struct {
	Mined    int // transactions the rigs got mined
	Reverted int
	// Answers counts rig-answers (Revealed events) by the mode of the sender that carried them:
	// "direct" (the operator's own transaction) or "relayed" (a relayer's batch).
	Answers map[string]int
	// GasPerAnswer is, per mode, the gas of that mode's commits and reveals (and of anything of
	// its senders that reverted) per rig-answer, plus every rig-answer's share of the draws and
	// settles, whoever sent them.
	GasPerAnswer map[string]float64
	// CallGas is the reference contract's own gas per successful call: the median gas used by
	// draw, commit, reveal and settle, and per entry of commitMany and revealMany.
	CallGas map[string]uint64
}

// LoneReference is the gas of the calls a lone rig cannot avoid for one rig-answer: one commit and
// one reveal sent alone (measured by the caller, since a batched run may mine none:
// SoloAnswerGas), and a quorum-th of one draw and one settle (CallGas each). It is a reference,
// not a floor: an entry of a commitMany or revealMany costs less than the same call sent alone
// (the batch pays one 21000 base and its warm storage for all its entries), so a batching run
// comes in under it.
func (e Economics) LoneReference(soloCommit, soloReveal uint64, quorum int) float64 {
	return float64(soloCommit+soloReveal) + float64(e.CallGas["draw"]+e.CallGas["settle"])/float64(quorum)
}

// Account counts the transactions of txs sent by rig senders (mode says which mode an address
// sends in, "" for any other sender, like the orderer).
func Account(txs []MinedTx, mode func(common.Address) string) Economics {
	e := Economics{Answers: map[string]int{}, GasPerAnswer: map[string]float64{}, CallGas: map[string]uint64{}}
	own := map[string]uint64{}
	var public uint64
	perCall := map[string][]uint64{}
	for _, tx := range txs {
		m := mode(tx.From)
		if m == "" {
			continue
		}
		e.Mined++
		if tx.Reverted {
			e.Reverted++
		}
		switch tx.Method {
		case "draw", "settle":
			public += tx.GasUsed
		default:
			own[m] += tx.GasUsed
		}
		if (tx.Method == "reveal" || tx.Method == "revealMany") && !tx.Reverted {
			e.Answers[m] += tx.Answers
		}
		if tx.Reverted {
			continue
		}
		switch tx.Method {
		case "commitMany", "revealMany":
			if tx.Answers > 0 {
				perCall[tx.Method+"/entry"] = append(perCall[tx.Method+"/entry"], tx.GasUsed/uint64(tx.Answers))
			}
		default:
			perCall[tx.Method] = append(perCall[tx.Method], tx.GasUsed)
		}
	}
	total := 0
	for _, n := range e.Answers {
		total += n
	}
	for m, n := range e.Answers {
		if n > 0 {
			e.GasPerAnswer[m] = float64(own[m])/float64(n) + float64(public)/float64(total)
		}
	}
	for call, gas := range perCall {
		e.CallGas[call] = median(gas)
	}
	return e
}
