package txm_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"

	"github.com/pricerig/pricerig/internal/syncbuf"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/internal/nodetest"
	rigtask "github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// blindChain is a node that cannot simulate against its pending state (its pending is its latest
// block and knows nothing yet): what slips past the simulation must still be logged with why it
// reverted.
type blindChain struct{ *nodetest.GatedChain }

func (blindChain) PendingCallContract(context.Context, ethereum.CallMsg) ([]byte, error) {
	return nil, nil
}

func (blindChain) EstimateGas(context.Context, ethereum.CallMsg) (uint64, error) { return 100_000, nil }

func TestSenderDoesNotSendWhatWouldRevertAndNamesEveryRevert(t *testing.T) {
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	nodetest.MineWhen(t, sim.Backend, func() bool { return true })
	key := rigtask.Key{Address: sim.Addr(1), Private: sim.Keys[1], From: "test"}
	chain := &nodetest.GatedChain{Client: sim.Client}
	ctx := context.Background()

	// withdraw() with no credits reverts NothingToWithdraw: simulated, not sent.
	s := txm.NewSender(chain, key, sim.ChainID, txm.SenderConfig{Poll: time.Millisecond})
	_, err = s.Send(ctx, sim.Address, sim.ABI.PackWithdraw(), nil)
	if !errors.Is(err, txm.ErrWouldRevert) || agentrig.RevertReason(err) != "NothingToWithdraw" || chain.Sends.Load() != 0 {
		t.Fatalf("err %v (reason %q), %d sent", err, agentrig.RevertReason(err), chain.Sends.Load())
	}

	// A node that cannot simulate lets it through: it reverts on chain, and the error and the log
	// name the contract's reason, replayed at the block.
	var logs syncbuf.Buffer
	blind := txm.NewSender(blindChain{chain}, key, sim.ChainID, txm.SenderConfig{Poll: time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	rec, err := blind.Send(ctx, sim.Address, sim.ABI.PackWithdraw(), nil)
	if !errors.Is(err, txm.ErrReverted) || agentrig.RevertReason(err) != "NothingToWithdraw" || rec == nil || rec.Status != 0 || chain.Sends.Load() != 1 {
		t.Fatalf("err %v (reason %q), receipt %v, %d sent", err, agentrig.RevertReason(err), rec, chain.Sends.Load())
	}
	if !strings.Contains(logs.String(), "transaction reverted") || !strings.Contains(logs.String(), "reason=NothingToWithdraw") {
		t.Fatalf("log: %s", logs.String())
	}

}
