package rig

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/txm"
)

// timedChain is a chain's headers as far as startBlock reads them: block i stamped times[i].
type timedChain struct {
	txm.TxChain // unused methods panic
	times       []uint64
	reads       int
}

func (c *timedChain) HeaderByNumber(_ context.Context, n *big.Int) (*types.Header, error) {
	c.reads++
	i := uint64(len(c.times) - 1)
	if n != nil {
		i = n.Uint64()
	}
	if i >= uint64(len(c.times)) {
		return nil, errors.New("not found")
	}
	return &types.Header{Number: new(big.Int).SetUint64(i), Time: c.times[i]}, nil
}

// A rig with no journal cursor starts an hour and a minute back by time, however many blocks
// that is: on a busy Nitro chain (four blocks a second) a task ordered 59 minutes ago lies
// thousands of blocks back, where the old default (the head less 256 blocks, about a minute of
// it) never looked; on a quiet chain (a block every few minutes) the same hour is a handful of
// blocks; a chain younger than that is followed from its genesis.
func TestAFreshRigStartsWhereTasksOfTheRefundHourAre(t *testing.T) {
	const t0 = 1_800_000_000
	for _, c := range []struct {
		name  string
		every time.Duration // between two blocks
		span  time.Duration // of the chain
	}{
		{"busy", 250 * time.Millisecond, 2 * time.Hour},
		{"quiet", 7 * time.Minute, 5 * time.Hour},
		{"young", 250 * time.Millisecond, 30 * time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			chain := &timedChain{}
			for d := time.Duration(0); d <= c.span; d += c.every {
				chain.times = append(chain.times, t0+uint64(d/time.Second))
			}
			head := uint64(len(chain.times) - 1)
			start, err := startBlock(t.Context(), chain)
			if err != nil {
				t.Fatal(err)
			}
			// Every block of the last hour (a task ordered in it may still be drawn, or be
			// refunded) is followed; a block stamped more than an hour and a minute back is
			// only where a cursor that old would be.
			for i := start; i <= head; i++ {
				if chain.times[head]-chain.times[i] > uint64(lookBack/time.Second) && i != start {
					t.Fatalf("starts at block %d: block %d is %d s before the head, past the look back", start, i, chain.times[head]-chain.times[i])
				}
			}
			ordered := chain.times[head] - uint64((59*time.Minute)/time.Second) // a task ordered 59 minutes ago
			for i := uint64(0); i < start; i++ {
				if chain.times[i] >= ordered {
					t.Fatalf("starts at block %d (head %d): block %d, stamped 59 minutes or less before the head, is not followed", start, head, i)
				}
			}
			if c.name == "young" && start != 0 {
				t.Fatalf("a chain %s old starts at block %d, want its genesis", c.span, start)
			}
			if c.name == "busy" && head-start <= 256 {
				t.Fatalf("busy chain: starts %d blocks back", head-start)
			}
			if chain.reads > 64 {
				t.Fatalf("%d headers read for %d blocks: not a search", chain.reads, head+1)
			}
		})
	}
}
