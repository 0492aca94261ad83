package txm_test

import (
	"sync"
	"testing"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/internal/nodetest"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// While heads come by subscription a sender asks the node for fees once a block, however many
// transactions it sends in that block, and asks again once the next head arrives.
func TestSenderQuotesFeesOncePerHead(t *testing.T) {
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	node := nodetest.NewCountingNode(sim.Client)
	var mu sync.Mutex
	next := make(chan struct{})
	head := func() <-chan struct{} { mu.Lock(); defer mu.Unlock(); return next }
	s := txm.NewSender(node, task.Key{Address: sim.Addr(1), Private: sim.Keys[1]}, sim.ChainID, txm.SenderConfig{NextHead: head})
	burst := func() {
		var wg sync.WaitGroup
		for range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, _, err := s.Fees(t.Context()); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	burst()
	if calls, _, _, _ := node.Snapshot(); calls["eth_maxPriorityFeePerGas"] != 1 {
		t.Fatalf("five sends in one block asked for fees %d times, want 1", calls["eth_maxPriorityFeePerGas"])
	}
	mu.Lock()
	close(next) // a new head
	next = make(chan struct{})
	mu.Unlock()
	burst()
	if calls, _, _, _ := node.Snapshot(); calls["eth_maxPriorityFeePerGas"] != 2 {
		t.Fatalf("after a new head: asked %d times in all, want 2", calls["eth_maxPriorityFeePerGas"])
	}
	// Polling (no subscription): every send asks.
	p := txm.NewSender(node, task.Key{Address: sim.Addr(1), Private: sim.Keys[1]}, sim.ChainID, txm.SenderConfig{NextHead: func() <-chan struct{} { return nil }})
	for range 3 {
		if _, _, err := p.Fees(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if calls, _, _, _ := node.Snapshot(); calls["eth_maxPriorityFeePerGas"] != 5 {
		t.Fatalf("polling: asked %d times in all, want 5", calls["eth_maxPriorityFeePerGas"])
	}
}
