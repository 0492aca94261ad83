package rig

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// fakeNitro is a Nitro node (Robinhood Chain) as far as a runner drawing a task sees one, on a
// clock the test moves: no pool, a block sealed for each transaction the moment it arrives under
// the L1 number of that moment, heads whose JSON carries l1BlockNumber, and one task whose draw
// reverts TooEarly unless the block's L1 number is past the order block — AgentRig's rule, with
// block.number the L1 number. It serves the runner's Backend and Deployment.
type fakeNitro struct {
	mu       sync.Mutex
	now      time.Time
	l1Start  uint64
	l1Origin time.Time
	blocks   []fakeBlock
	nonces   map[common.Address]uint64
	receipts map[common.Hash]*types.Receipt
	// the task
	orderBlock uint64 // its order block: an L1 number
	orderedIn  uint64 // the rollup block of its order
	drawnIn    uint64 // the rollup block of its draw (0: undrawn)
	draws      []fakeDraw
	// simulatedEarly counts the draw's simulations (eth_call or eth_estimateGas) before L1 was
	// past the order block.
	simulatedEarly int
	rpc            *rpc.Client
	// jobRigs are the job's rigs (nil: ours alone), ourRig the id of the runner's (0: 1).
	jobRigs []uint64
	ourRig  uint64
}

type fakeBlock struct {
	time uint64
	l1   uint64
}

type fakeDraw struct {
	block    uint64
	l1       uint64
	reverted bool
}

const fakeL1Interval = 12 * time.Second

func newFakeNitro(t *testing.T, l1Start, rollupStart uint64) *fakeNitro {
	t.Helper()
	t0 := time.Unix(1_800_000_000, 0)
	f := &fakeNitro{now: t0, l1Start: l1Start, l1Origin: t0, nonces: map[common.Address]uint64{}, receipts: map[common.Hash]*types.Receipt{}}
	// The chain so far: rollupStart blocks, the last of them now.
	for range rollupStart {
		f.blocks = append(f.blocks, fakeBlock{time: uint64(t0.Unix()), l1: l1Start})
	}
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", &fakeNitroRPC{f}); err != nil {
		t.Fatal(err)
	}
	f.rpc = rpc.DialInProc(srv)
	t.Cleanup(f.rpc.Close)
	return f
}

// l1 is the L1 number at the fake's clock.
func (f *fakeNitro) l1() uint64 {
	return f.l1Start + uint64(f.now.Sub(f.l1Origin)/fakeL1Interval)
}

// seal seals a block at the fake's clock and returns its number.
func (f *fakeNitro) seal() uint64 {
	f.blocks = append(f.blocks, fakeBlock{time: uint64(f.now.Unix()), l1: f.l1()})
	return uint64(len(f.blocks) - 1)
}

// advance moves the clock on; with traffic, someone else's transaction seals a block.
func (f *fakeNitro) advance(d time.Duration, traffic bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	if traffic {
		f.seal()
	}
}

func (f *fakeNitro) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// order orders the task in a block of its own.
func (f *fakeNitro) order() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.orderedIn = f.seal()
	f.orderBlock = f.blocks[f.orderedIn].l1
}

func (f *fakeNitro) header(n uint64) *types.Header {
	b := f.blocks[n]
	return &types.Header{Number: new(big.Int).SetUint64(n), Time: b.time, BaseFee: new(big.Int), Difficulty: big.NewInt(1)}
}

// draw is AgentRig's draw in a block of L1 number l1: TooEarly unless l1 is past the order
// block, WrongPhase once drawn.
func (f *fakeNitro) drawError(l1 uint64) error {
	switch {
	case f.drawnIn != 0:
		return fakeRevert("WrongPhase", agentrig.NewAgentRig().GetABI().Errors["WrongPhase"].ID.Bytes()[:4], 2)
	case l1 <= f.orderBlock:
		return fakeRevert("TooEarly", agentrig.NewAgentRig().GetABI().Errors["TooEarly"].ID.Bytes()[:4], -1)
	}
	return nil
}

// simulate runs a call at the head (Nitro: pending is latest).
func (f *fakeNitro) simulate(call ethereum.CallMsg) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	head := f.blocks[len(f.blocks)-1]
	if f.l1() <= f.orderBlock && f.drawnIn == 0 {
		f.simulatedEarly++
	}
	return f.drawError(head.l1)
}

// fakeRevert is a node's answer to a call that reverts with a custom error.
type fakeRevertError struct{ name, data string }

func (e fakeRevertError) Error() string          { return "execution reverted: " + e.name }
func (e fakeRevertError) ErrorCode() int         { return 3 }
func (e fakeRevertError) ErrorData() interface{} { return e.data }

func fakeRevert(name string, selector []byte, phase int) error {
	data := selector
	if phase >= 0 {
		data = append(data, common.LeftPadBytes([]byte{byte(phase)}, 32)...)
	}
	return fakeRevertError{name: name, data: hexutil.Encode(data)}
}

// The Backend.

func (f *fakeNitro) Client() *rpc.Client { return f.rpc }
func (f *fakeNitro) PendingNonceAt(_ context.Context, a common.Address) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nonces[a], nil
}
func (f *fakeNitro) NonceAt(ctx context.Context, a common.Address, _ *big.Int) (uint64, error) {
	return f.PendingNonceAt(ctx, a)
}
func (f *fakeNitro) SuggestGasTipCap(context.Context) (*big.Int, error) {
	return big.NewInt(10_000_000), nil
}
func (f *fakeNitro) HeaderByNumber(_ context.Context, n *big.Int) (*types.Header, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n == nil || n.Sign() < 0 {
		return f.header(uint64(len(f.blocks) - 1)), nil
	}
	if n.Uint64() >= uint64(len(f.blocks)) {
		return nil, ethereum.NotFound
	}
	return f.header(n.Uint64()), nil
}
func (f *fakeNitro) EstimateGas(_ context.Context, call ethereum.CallMsg) (uint64, error) {
	return 200_000, f.simulate(call)
}
func (f *fakeNitro) PendingCallContract(_ context.Context, call ethereum.CallMsg) ([]byte, error) {
	return nil, f.simulate(call)
}
func (f *fakeNitro) CallContract(_ context.Context, call ethereum.CallMsg, _ *big.Int) ([]byte, error) {
	return nil, f.simulate(call)
}
func (f *fakeNitro) ChainID(context.Context) (*big.Int, error) { return big.NewInt(4663), nil }
func (f *fakeNitro) FilterLogs(context.Context, ethereum.FilterQuery) ([]types.Log, error) {
	return nil, nil
}
func (f *fakeNitro) BalanceAt(context.Context, common.Address, *big.Int) (*big.Int, error) {
	return big.NewInt(1e18), nil
}
func (f *fakeNitro) TransactionReceipt(_ context.Context, h common.Hash) (*types.Receipt, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.receipts[h]; ok {
		return r, nil
	}
	return nil, ethereum.NotFound
}

// SendTransaction seals the transaction at once in a block of its own, as a Nitro sequencer does.
func (f *fakeNitro) SendTransaction(_ context.Context, tx *types.Transaction) error {
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if tx.Nonce() != f.nonces[from] {
		return fmt.Errorf("nonce too low: next nonce %d, tx nonce %d", f.nonces[from], tx.Nonce())
	}
	f.nonces[from]++
	n := f.seal()
	status := types.ReceiptStatusSuccessful
	if err := f.drawError(f.blocks[n].l1); err != nil {
		status = types.ReceiptStatusFailed
	} else {
		f.drawnIn = n
	}
	f.draws = append(f.draws, fakeDraw{block: n, l1: f.blocks[n].l1, reverted: status == types.ReceiptStatusFailed})
	f.receipts[tx.Hash()] = &types.Receipt{Status: status, TxHash: tx.Hash(), BlockNumber: new(big.Int).SetUint64(n),
		BlockHash: f.header(n).Hash(), GasUsed: 150_000, EffectiveGasPrice: tx.GasTipCap()}
	return nil
}

// fakeNitroRPC serves the heads' JSON, with Nitro's l1BlockNumber.
type fakeNitroRPC struct{ f *fakeNitro }

func (s *fakeNitroRPC) GetBlockByNumber(_ context.Context, _ rpc.BlockNumber, _ bool) (json.RawMessage, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	n := uint64(len(s.f.blocks) - 1)
	raw, err := json.Marshal(s.f.header(n))
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields)
	fields["l1BlockNumber"], _ = json.Marshal(hexutil.Uint64(s.f.blocks[n].l1))
	return json.Marshal(fields)
}

func (s *fakeNitroRPC) GetTransactionReceipt(context.Context, common.Hash) (json.RawMessage, error) {
	return json.RawMessage(`{"gasUsedForL1":"0x0","effectiveGasPrice":"0x989680"}`), nil
}

// The Deployment: job 2, our one rig (id 1), the one task.

func (f *fakeNitro) Job(context.Context, uint32) (agentrig.JobInfo, error) {
	return agentrig.JobInfo{Kind: 1, Quorum: 3, ToleranceBps: 50}, nil
}
func (f *fakeNitro) JobRigs(context.Context, uint32) ([]uint64, error) {
	if f.jobRigs != nil {
		return f.jobRigs, nil
	}
	return []uint64{1}, nil
}
func (f *fakeNitro) RigIDsOf(_ context.Context, _ uint32, ops []common.Address) (map[common.Address]uint64, error) {
	return map[common.Address]uint64{ops[0]: max(f.ourRig, 1)}, nil
}
func (f *fakeNitro) Events(_ context.Context, from, to uint64) ([]agentrig.TaskEvent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.orderedIn == 0 || f.orderedIn < from || f.orderedIn > to {
		return nil, nil
	}
	return []agentrig.TaskEvent{{Kind: agentrig.TaskOrdered, TaskID: 1, JobID: 2, InputURI: "data:application/json,{}"}}, nil
}
func (f *fakeNitro) Task(context.Context, uint64) (agentrig.TaskView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	phase := agentrig.PhaseDraw
	if f.drawnIn != 0 {
		phase = agentrig.PhaseCommit // drawn rigs 7, 8, 9: none of ours
	}
	return agentrig.TaskView{ID: 1, JobID: 2, Phase: phase, OrderBlock: f.orderBlock, RigIDs: []uint64{7, 8, 9}}, nil
}
func (f *fakeNitro) TaskInput(context.Context, uint64) (string, common.Hash, error) {
	return "data:application/json,{}", common.Hash{}, nil
}
func (f *fakeNitro) Skipped(*types.Receipt) map[int]bool { return nil }

// nitroRunner is a runner of one rig on the fake, its clock the fake's.
func nitroRunner(t *testing.T, f *fakeNitro) *Runner {
	t.Helper()
	j, err := journal.OpenJournal(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	key, _ := crypto.GenerateKey()
	r, err := NewRunner(t.Context(), f, j, nil, Config{JobID: 2, Deployment: f, FromBlock: 1, StageDelay: time.Second, Now: f.clock,
		Clock: agentrig.NitroClock{Interval: fakeL1Interval, Network: "fake"}, Operators: []task.Key{{Address: crypto.PubkeyToAddress(key.PublicKey), Private: key}},
		Sender: txm.SenderConfig{Poll: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// look is one step of the runner, waiting for what it sent.
func look(t *testing.T, r *Runner) {
	t.Helper()
	if err := r.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	r.wg.Wait()
}

// A rig on Robinhood Chain compares the contract's order block with L1 block numbers. On a young
// chain (rollup numbers far below L1's) it draws once L1 has passed the order block, which it
// never did while comparing rollup numbers; on an old one (rollup numbers past L1's) it does
// not try the draw before L1 has passed (every try said TooEarly); on a quiet chain, where no
// block comes after the order's, it sends the draw when L1's clock says the order block has
// passed, and the draw's own block carries the L1 number that lets it through. No draw reverts,
// one is sent.
func TestARigDrawsByL1NumbersOnYoungOldAndQuietChains(t *testing.T) {
	for _, c := range []struct {
		name             string
		l1Start, rollups uint64
		traffic          bool
	}{
		{"young", 21_000_000, 100, true},
		{"old", 1, 5_000, true},
		{"quiet", 21_000_000, 100, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeNitro(t, c.l1Start, c.rollups)
			r := nitroRunner(t, f)
			f.advance(5*time.Second, c.traffic)
			f.order()
			for i := 0; i < 200 && f.drawnIn == 0; i++ {
				look(t, r)
				f.advance(250*time.Millisecond, c.traffic)
			}
			if f.drawnIn == 0 {
				t.Fatalf("no draw after %s of L1 blocks past the order block %d (L1 now %d)", 50*time.Second, f.orderBlock, f.l1())
			}
			if len(f.draws) != 1 || f.draws[0].reverted || f.draws[0].l1 <= f.orderBlock {
				t.Fatalf("draws %+v for order block %d: want one, mined past it", f.draws, f.orderBlock)
			}
			if f.simulatedEarly != 0 {
				t.Fatalf("the draw was simulated %d times before L1 was past the order block", f.simulatedEarly)
			}
			if drawnAt := f.blocks[f.drawnIn].time - f.blocks[f.orderedIn].time; drawnAt > uint64((fakeL1Interval+2*time.Second)/time.Second) {
				t.Fatalf("drawn %d s after the order: more than an L1 interval and a look", drawnAt)
			}
			if !c.traffic && f.drawnIn != f.orderedIn+1 {
				t.Fatalf("quiet chain: drawn in block %d, the order in %d: the draw's own block is the next", f.drawnIn, f.orderedIn)
			}
		})
	}
}
