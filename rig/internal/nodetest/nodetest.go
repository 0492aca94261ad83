// Package nodetest holds the test doubles of an Ethereum node that the tests of the rig's
// packages share (rig/txm, rig/agentrig and the runner): the simulated chain behind a gate that
// counts and fails broadcasts (GatedChain), a sealer (MineWhen), the error of a node that is not
// listening (Refused), a node that counts a runner's requests (CountingNode), and an endpoint in
// front of a real node that can be killed, frozen or made to lag (Proxy, for rig/rpcpool's
// tests and the devnet's). It imports none of the rig's packages, so that their own tests can
// import it.
//
// nodetest.go: Refused, GatedChain and MineWhen; counting.go: CountingNode; proxy.go: Proxy.
package nodetest

import (
	"context"
	"math/big"
	"net"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
)

// Refused is the error a dial to a node that is not listening returns, as net and net/http wrap it.
func Refused() error {
	return &url.Error{Op: "Post", URL: "http://127.0.0.1:8545", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
}

// GatedChain wraps the simulated client: it counts broadcasts and can fail calls on demand.
type GatedChain struct {
	simulated.Client
	Sends     atomic.Int32
	FailCalls atomic.Int32 // the next N calls fail as an unreachable node would
	FirstTip  atomic.Pointer[big.Int]
}

func (g *GatedChain) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	if g.FailCalls.Add(-1) >= 0 {
		return Refused()
	}
	g.Sends.Add(1)
	g.FirstTip.CompareAndSwap(nil, tx.GasTipCap())
	return g.Client.SendTransaction(ctx, tx)
}

// MineWhen seals a block every few milliseconds once ready() is true, until the test ends.
func MineWhen(t *testing.T, b *simulated.Backend, ready func() bool) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if ready() {
					b.Commit()
				}
			}
		}
	}()
	t.Cleanup(func() { close(stop); wg.Wait() })
}
