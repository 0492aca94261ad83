package devnet

import (
	"context"
	"encoding/binary"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/internal/testbound"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/rig/txm"
)

// The draw on a Nitro-style devnet seeds itself as on Robinhood Chain, where blockhash(n) of an
// L1 number n is what ArbOS recorded for it (nitro arbos/blockhash/blockhash.go): after one L1
// step, the hash of the last rollup block sealed under n (here the order's own block); after a
// jump of three, as on a quiet chain whose next transaction comes 36 s later, nothing is
// recorded for the order's L1 number at all (the record fills n+1 with a derived hash and puts
// the rollup block's hash under n+2), and the seed is keccak(abi.encode(whatever the slot held
// 256 L1 blocks earlier, taskId)): zero on a young chain, a hash public for the last 51
// minutes on an old one. Either way it was known when the task was ordered.
func TestTheDrawSeedFollowsNitrosBlockhashRecord(t *testing.T) {
	t.Parallel()
	testbound.EndToEnd(t)
	ctx := testContext(t)
	d, err := Start(ctx, Options{Logger: testLogger(t), Spec: []byte(testSpec), Layout: []int{}, FundedKeys: 7,
		L1Block: 21_000_000})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, k := range d.FundedKeys {
		if err := d.RegisterRig(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	minute := DefaultMinute(time.Now(), []market.Session{market.Pre, market.Regular, market.Post})

	// One L1 step: the seed is the order block's hash.
	id, orderBlock, l1 := orderOne(ctx, t, d, minute)
	advance(t, d, 12*time.Second)
	if h := l1BlockHash(ctx, t, d, l1); h != orderBlock.Hash() {
		t.Fatalf("after one L1 step, blockhash(%d) is %s, want the order block's %s", l1, h, orderBlock.Hash())
	}
	drawAndCheck(ctx, t, d, id, orderBlock.Hash())

	// A jump of three: the order's L1 number is skipped.
	id, orderBlock, l1 = orderOne(ctx, t, d, minute)
	advance(t, d, 36*time.Second)
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], l1+1)
	for n, want := range map[uint64]common.Hash{
		l1:     {}, // never written on a young chain
		l1 + 1: crypto.Keccak256Hash(orderBlock.Hash().Bytes(), le[:]),
		l1 + 2: orderBlock.Hash(),
	} {
		if h := l1BlockHash(ctx, t, d, n); h != want {
			t.Errorf("after a jump of three from L1 %d, blockhash(%d) is %s, want %s", l1, n, h, want)
		}
	}
	drawAndCheck(ctx, t, d, id, common.Hash{})
}

// orderOne orders one task and returns it, its order block and the L1 number it was stored with.
func orderOne(ctx context.Context, t *testing.T, d *Devnet, minute time.Time) (uint64, *types.Header, uint64) {
	t.Helper()
	ids, err := d.Order(ctx, []string{"NVDA"}, minute)
	if err != nil {
		t.Fatal(err)
	}
	info, err := d.contract.Task(ctx, new(big.Int).SetUint64(ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	head, err := d.client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := nitroHeader(head).L1BlockNumber; got != info.OrderBlock {
		t.Fatalf("task %d stored order block %d; its block's l1BlockNumber is %d", ids[0], info.OrderBlock, got)
	}
	return ids[0], head, info.OrderBlock
}

// advance seals an empty block stamped by after the head.
func advance(t *testing.T, d *Devnet, by time.Duration) {
	t.Helper()
	if err := d.Chain.Do(func(s *Sequencer) error { return s.AdjustTime(by) }); err != nil {
		t.Fatal(err)
	}
}

func l1BlockHash(ctx context.Context, t *testing.T, d *Devnet, n uint64) common.Hash {
	t.Helper()
	arbos := NewDevnetArbOS()
	out, err := d.client.CallContract(ctx, ethereum.CallMsg{To: &ArbOSAddress, Data: arbos.PackL1BlockHash(new(big.Int).SetUint64(n))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := arbos.UnpackL1BlockHash(out)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// drawAndCheck draws the task and checks it drew the rigs the contract's pick gives for the seed
// keccak256(abi.encode(hash, taskId)): the quorum's run of the job's rigs from seed mod their
// count (every rig has a distinct operator and free stake).
func drawAndCheck(ctx context.Context, t *testing.T, d *Devnet, id uint64, hash common.Hash) {
	t.Helper()
	rigs, err := d.contract.JobRigs(ctx, PriceJobID)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := txm.Prepare(ctx, d.client, d.orderer.Address(), d.contract.DrawCall(id))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := txm.SendPlan(ctx, d.orderer, plan); err != nil {
		t.Fatal(err)
	}
	info, err := d.contract.Task(ctx, new(big.Int).SetUint64(id))
	if err != nil {
		t.Fatal(err)
	}
	words, _ := abi.Arguments{{Type: mustType(t, "bytes32")}, {Type: mustType(t, "uint256")}}.Pack(hash, new(big.Int).SetUint64(id))
	seed := new(big.Int).SetBytes(crypto.Keccak256(words))
	start := new(big.Int).Mod(seed, big.NewInt(int64(len(rigs)))).Int64()
	var want []uint64
	for i := range 3 {
		want = append(want, rigs[(int(start)+i)%len(rigs)])
	}
	if !slices.Equal(info.RigIds, want) {
		t.Fatalf("task %d drew rigs %v; the seed of %s picks %v from %v", id, info.RigIds, hash, want, rigs)
	}
}

func mustType(t *testing.T, name string) abi.Type {
	t.Helper()
	ty, err := abi.NewType(name, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}
