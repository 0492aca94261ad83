package devnet

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
)

// A quiet chain (no heartbeat: Robinhood Chain seals blocks for transactions only) where one
// drawn rig cannot price: after the honest rigs' commits nobody has anything to send, so the
// chain stays at a block stamped inside the commit window and every simulation there says the
// reveal and the settle are too early. The rigs move it themselves: once the commit window has
// ended by the clock, one honest reveal is sent anyway (its block opens the reveal window for
// the other), and once the reveal window has ended, the settle. The task settles in agreement on
// the two honest answers, on a young and an old chain, with no reverted transaction; the blocks
// show the chain stood still until each of those sends.
func TestAQuietChainRevealsAndSettlesARigMissed(t *testing.T) {
	// One chain after the other and beside no other test of the package (not bothChains, not
	// t.Parallel): a quiet chain's ranks take their turns by the wall clock, and with both chains
	// and other devnets in parallel under -race at a load of 16 two ranks drew at once (reverted
	// WrongPhase), which this test counts as a failure.
	t.Run("young", func(t *testing.T) { quietChainRevealsAndSettles(t, DefaultL1Block, 0) })
	t.Run("old", func(t *testing.T) { quietChainRevealsAndSettles(t, 1, 0) })
}

// The same with the sequencer's clock 3 s behind the rigs' (devnet --clock-skew), more than the
// quiet margin's 2 s: the rigs measure the lag from the heads' timestamps and send the quiet
// reveal only once a block sealed then is stamped past the commit window, so it opens the reveal
// window and nothing reverts (with the 2 s margin alone its block was stamped inside the window).
func TestAQuietRevealWaitsOutASequencerBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: runs without -short")
	}
	quietChainRevealsAndSettles(t, DefaultL1Block, 3*time.Second)
}

func quietChainRevealsAndSettles(t *testing.T, l1 uint64, skew time.Duration) {
	const window = 20 * time.Second
	d, ctx := startDevnet(t, Options{L1Block: l1, CommitWindow: window, RevealWindow: window, ClockSkew: skew,
		WrapPricer: func(i int, p rig.Pricer) rig.Pricer {
			if i != 0 {
				return p
			}
			return pricerFunc(func(context.Context, string, time.Time, ...feeds.PriceOption) (feeds.Result, error) {
				return feeds.Result{}, errors.New("every source down")
			})
		}})
	start, err := d.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := d.Order(ctx, []string{"NVDA"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	reports := waitSettled(ctx, t, d, ids)
	if rep := reports[0]; !rep.Agreed || rep.Reveals != 2 || rep.Agree != 2 {
		t.Fatalf("task: %+v", rep)
	}
	info, err := d.contract.Task(ctx, new(big.Int).SetUint64(ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	head, err := d.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txs, err := d.Mined(ctx, start+1, head)
	if err != nil {
		t.Fatal(err)
	}
	stamp := func(n uint64) uint64 {
		h, err := d.client.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		return h.Time
	}
	// movedBy checks that the first transaction of methods mined for the task is the one that
	// moved a chain standing before deadline: its block is past the deadline, its parent not.
	movedBy := func(deadline uint64, methods ...string) {
		i := slices.IndexFunc(txs, func(tx MinedTx) bool { return slices.Contains(methods, tx.Method) && slices.Contains(tx.Tasks, ids[0]) })
		if i < 0 {
			t.Fatalf("no %v of task %d mined", methods, ids[0])
		}
		if at, before := stamp(txs[i].Block), stamp(txs[i].Block-1); at < deadline || before >= deadline {
			t.Fatalf("the first %s, in block %d stamped %d, follows a block stamped %d: want the chain quiet until the deadline %d and moved by it",
				txs[i].Method, txs[i].Block, at, before, deadline)
		}
	}
	movedBy(info.CommitDeadline, "reveal", "revealMany") // the devnet's last rig is relayed
	movedBy(info.RevealDeadline, "settle")
	for _, tx := range txs {
		if tx.Reverted {
			t.Errorf("reverted: %s of tasks %v in block %d", tx.Method, tx.Tasks, tx.Block)
		}
	}
	if agentrig.Phase(info.Phase) != agentrig.PhaseSettled {
		t.Fatalf("phase %d", info.Phase)
	}
}
