package agentrig

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/pricerig/pricerig/rig/txm"
)

// Network is a chain AgentRig runs on, by name. The seed fixes Robinhood Chain's id (4663); the
// devnet runs with the same id by default, so a devnet signature is a mainnet one but for the
// contract address.
type Network struct {
	Name    string
	ChainID uint64
	RPC     string // the public JSON-RPC endpoint; "" when there is none (devnet: its port is chosen at start)
	// Blocks is how the chain numbers the blocks the contract counts in (block.number):
	// "ethereum" (its own block numbers) or "nitro" (the L1 block number, as Robinhood Chain
	// does); sources.yaml's networks.NAME.blocks says otherwise.
	Blocks string
}

// Networks are the chains every chain command knows by name. Robinhood Chain is an Arbitrum
// Nitro chain (its block.number is the L1 block number), and the devnet reproduces it.
var Networks = map[string]Network{
	"robinhood":         {Name: "robinhood", ChainID: 4663, RPC: "https://rpc.mainnet.chain.robinhood.com", Blocks: "nitro"},
	"robinhood-testnet": {Name: "robinhood-testnet", ChainID: 46630, RPC: "https://rpc.testnet.chain.robinhood.com", Blocks: "nitro"},
	"devnet":            {Name: "devnet", ChainID: 4663, Blocks: "nitro"},
}

// NetworkNames lists the known networks, sorted, for help texts and errors.
func NetworkNames() []string {
	names := make([]string, 0, len(Networks))
	for n := range Networks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NetworkByName finds a network by its name.
func NetworkByName(name string) (Network, error) {
	n, ok := Networks[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return Network{}, fmt.Errorf("unknown network %q (want one of %s)", name, strings.Join(NetworkNames(), ", "))
	}
	return n, nil
}

// ErrWrongChain is returned by CheckChain when the node serves another chain than the one asked
// for: every signature and transaction would be for the wrong chain.
var ErrWrongChain = errors.New("wrong chain")

// ChainIDReader is what CheckChain needs of a node (eth_chainId).
type ChainIDReader interface {
	// ChainID is the node's chain id (eth_chainId).
	ChainID(ctx context.Context) (*big.Int, error)
}

// CheckChain reads eth_chainId and compares it with want. It returns the node's chain id, which is
// the one every EIP-712 domain and transaction must use.
func CheckChain(ctx context.Context, node ChainIDReader, want uint64) (*big.Int, error) {
	id, err := node.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("eth_chainId: %w", txm.ClassifyRPCError(err))
	}
	if !id.IsUint64() || id.Uint64() != want {
		return nil, fmt.Errorf("%w: the node serves chain id %s, not %d", ErrWrongChain, id, want)
	}
	return id, nil
}
