package agentrig_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/internal/nodetest"
	"github.com/pricerig/pricerig/rig/task"
)

// flakyNode fails the first calls it is asked, as a busy or restarting RPC does.
type flakyNode struct {
	agentrig.Backend
	fails atomic.Int64
}

func (f *flakyNode) CallContract(ctx context.Context, msg ethereum.CallMsg, n *big.Int) ([]byte, error) {
	if f.fails.Add(-1) >= 0 {
		return nil, nodetest.Refused()
	}
	return f.Backend.CallContract(ctx, msg, n)
}

// Follow rides out a node that does not answer for a while, and reports the last error when
// the wait ends first.
func TestFollowRidesOutAnUnreachableNode(t *testing.T) {
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	price := big.NewInt(1_000_000_000_000)
	if _, err := sim.Send(0, nil, sim.ABI.PackPublishJob(1, 2, price, price, 50, "spec")); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		if _, err := sim.Send(i, price, sim.ABI.PackRegisterRig(1, sim.Addr(i))); err != nil {
			t.Fatal(err)
		}
	}
	uri, hash, err := task.EncodeInput("SPY", time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Send(3, price, sim.ABI.PackOrder(1, hash, uri)); err != nil {
		t.Fatal(err)
	}
	if err := sim.AdvanceTime(time.Hour + time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Send(3, nil, sim.ABI.PackRefund(big.NewInt(1))); err != nil {
		t.Fatal(err)
	}

	node := &flakyNode{Backend: sim.Client}
	node.fails.Store(5)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	answers, err := agentrig.Follow(ctx, agentrig.NewContract(node, sim.Address), nil, []uint64{1}, agentrig.FollowOptions{Poll: time.Millisecond})
	if err != nil || len(answers) != 1 || answers[0].Phase != agentrig.PhaseRefunded || node.fails.Load() >= 0 {
		t.Fatalf("answers %+v, err %v, fails left %d", answers, err, node.fails.Load())
	}

	node.fails.Store(1 << 40)
	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelShort()
	_, err = agentrig.Follow(short, agentrig.NewContract(node, sim.Address), nil, []uint64{1}, agentrig.FollowOptions{Poll: time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err %v", err)
	}
}
