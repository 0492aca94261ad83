package agentrig

// How a network numbers the blocks AgentRig counts in. The contract stores block.number as a
// task's order block and draws once block.number is past it; on Ethereum that is the chain's own
// block number, on Robinhood Chain (Arbitrum Nitro) the L1 block number its sequencer last saw
// (the seeds: "On Robinhood Chain block.number is the L1 block number"), which a block's JSON
// carries as l1BlockNumber (OffchainLabs/go-ethereum internal/ethapi/api.go) and which moves every
// 12 s whether or not the chain makes blocks.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/txm"
)

// Head is the chain's newest block as a look at the chain reads it.
type Head struct {
	*types.Header
	// L1 is the L1 block number the block was sealed under (Nitro's l1BlockNumber); 0 on an
	// Ethereum-style network.
	L1 uint64
}

// ChainClock says how a network numbers the blocks the contract counts in (block.number).
type ChainClock interface {
	// Name is the numbering's name as sources.yaml's networks spell it: "ethereum" or "nitro".
	Name() string
	// ReadHead reads the newest block with what the numbering needs of it.
	ReadHead(ctx context.Context, node HeadNode) (Head, error)
	// Number is block.number as the contract saw it in the head.
	Number(h Head) uint64
	// Reached is the block.number the chain has reached by now, as far as the clock can tell:
	// the head's on a chain that seals blocks at its own pace; on Nitro, the L1 number a quiet
	// chain has reached without sealing a block, which a block sealed now would carry.
	Reached(ctx context.Context, h Head, now time.Time) uint64
	// Pooled says whether a sent transaction can wait in the node's pool unmined (Ethereum) or
	// is mined or refused at once (Nitro: no pool): a rank of the draw/settle schedule then
	// also waits for blocks, not only time, so a stalled chain does not bring it in on its
	// predecessor's transaction.
	Pooled() bool
}

// HeadNode is what a clock reads the head from: a node's typed header (go-ethereum drops the
// fields Nitro adds) and, when it lends one, its JSON-RPC client for the block's JSON.
type HeadNode interface {
	// HeaderByNumber is a block's header (nil: the latest).
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
}

// EthereumClock is an Ethereum-style network's: block.number is the chain's own block number.
type EthereumClock struct{}

// Name is "ethereum".
func (EthereumClock) Name() string { return "ethereum" }

// ReadHead reads the latest header.
func (EthereumClock) ReadHead(ctx context.Context, node HeadNode) (Head, error) {
	h, err := node.HeaderByNumber(ctx, nil)
	if err != nil {
		return Head{}, fmt.Errorf("head: %w", txm.ClassifyRPCError(err))
	}
	return Head{Header: h}, nil
}

// Number is the head's number.
func (EthereumClock) Number(h Head) uint64 { return h.Number.Uint64() }

// Reached is the head's number: the chain reaches a number by sealing its block.
func (EthereumClock) Reached(_ context.Context, h Head, _ time.Time) uint64 { return h.Number.Uint64() }

// Pooled is true: an Ethereum node pools what it has not mined yet.
func (EthereumClock) Pooled() bool { return true }

// NitroClock is a Nitro-style network's (Robinhood Chain's): block.number is the L1 block number.
// The head's l1BlockNumber says where L1 was at its last block; a quiet chain makes no block
// while L1 moves on, so Reached estimates L1 from the head's time, one L1 block every Interval
// (Ethereum's 12 s slots), or reads it from an L1 node.
type NitroClock struct {
	// Interval is L1's block time; zero means 12 s.
	Interval time.Duration
	// L1, when set, reads L1's latest block number (an L1 node's eth_blockNumber).
	L1 L1Reader
	// Network names the network in errors.
	Network string
}

// L1Reader reads an L1 node's latest block number; *ethclient.Client does.
type L1Reader interface {
	// BlockNumber is the latest block's number (eth_blockNumber).
	BlockNumber(ctx context.Context) (uint64, error)
}

// L1Trail is how many L1 blocks the sequencer's view of L1 may trail an L1 node's latest: a block
// number read from --l1-rpc counts as block.number only less this many.
const L1Trail = 2

// ErrNoL1BlockNumber means a Nitro-style network's node answered heads without l1BlockNumber:
// it is not a Nitro node (or not the network's), and the contract's numbers cannot be read.
var ErrNoL1BlockNumber = errors.New("the node's heads carry no l1BlockNumber")

// Name is "nitro".
func (NitroClock) Name() string { return "nitro" }

// ReadHead reads the latest block's JSON for its l1BlockNumber, which go-ethereum's header drops.
func (c NitroClock) ReadHead(ctx context.Context, node HeadNode) (Head, error) {
	client := txm.RawClientOf(node)
	if client == nil {
		return Head{}, fmt.Errorf("%s numbers blocks Nitro-style, and its node lends no JSON-RPC client to read l1BlockNumber from", c.network())
	}
	var raw json.RawMessage
	if err := client.CallContext(ctx, &raw, "eth_getBlockByNumber", "latest", false); err != nil {
		return Head{}, fmt.Errorf("head: %w", txm.ClassifyRPCError(err))
	}
	return c.parseHead(raw)
}

func (c NitroClock) parseHead(raw json.RawMessage) (Head, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return Head{}, errors.New("head: the node has no latest block")
	}
	var h types.Header
	if err := json.Unmarshal(raw, &h); err != nil {
		return Head{}, fmt.Errorf("head: %w", err)
	}
	var l1 struct {
		L1BlockNumber *hexutil.Uint64 `json:"l1BlockNumber"`
	}
	if err := json.Unmarshal(raw, &l1); err != nil {
		return Head{}, fmt.Errorf("head: l1BlockNumber: %w", err)
	}
	if l1.L1BlockNumber == nil {
		return Head{}, fmt.Errorf("%w (block %s): %s numbers blocks Nitro-style (block.number is the L1 block number) — is the RPC a node of it?",
			ErrNoL1BlockNumber, h.Number, c.network())
	}
	return Head{Header: &h, L1: uint64(*l1.L1BlockNumber)}, nil
}

func (c NitroClock) network() string {
	if c.Network == "" {
		return "the network"
	}
	return "network " + c.Network
}

// Number is the head's l1BlockNumber.
func (NitroClock) Number(h Head) uint64 { return h.L1 }

// Reached is the L1 number a block sealed now would carry, at least the head's: the head's
// advanced by the whole L1 intervals since the head's time (the wall clock against the head's
// stamp), or an L1 node's latest less L1Trail, whichever is further. Ethereum's slots are 12 s; a
// missed slot makes L1 a block short of the estimate, and a draw sent on it reverts TooEarly.
func (c NitroClock) Reached(ctx context.Context, h Head, now time.Time) uint64 {
	interval := c.Interval
	if interval <= 0 {
		interval = 12 * time.Second
	}
	next := h.L1
	if since := now.Sub(time.Unix(int64(h.Time), 0)); since > 0 {
		next += uint64(since / interval)
	}
	if c.L1 != nil {
		if n, err := c.L1.BlockNumber(ctx); err == nil && n > L1Trail {
			next = max(next, n-L1Trail)
		}
	}
	return next
}

// Pooled is false: a Nitro sequencer mines a transaction or refuses it, and no node holds a pool.
func (NitroClock) Pooled() bool { return false }

// ClockFor is the clock of a numbering by its sources.yaml name ("" means ethereum).
func ClockFor(blocks, network string, interval time.Duration, l1 L1Reader) (ChainClock, error) {
	switch strings.ToLower(blocks) {
	case "", "ethereum":
		return EthereumClock{}, nil
	case "nitro":
		return NitroClock{Interval: interval, L1: l1, Network: network}, nil
	}
	return nil, fmt.Errorf("block numbering %q: want ethereum or nitro", blocks)
}
