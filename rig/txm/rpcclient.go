package txm

import (
	"context"

	"github.com/ethereum/go-ethereum/rpc"
)

// The node's JSON-RPC client, for what go-ethereum's typed calls do not offer: several requests in
// one round trip (CheckMany here, the AgentRig client's reads of many tasks), and the fields a
// rollup's receipt adds (ReceiptL1).

// BatchCaller sends several JSON-RPC requests in one round trip; *rpc.Client does.
type BatchCaller interface {
	// BatchCallContext sends every request of b at once; each element's Error says how it fared,
	// the returned error is a failure of the whole batch.
	BatchCallContext(ctx context.Context, b []rpc.BatchElem) error
}

// RawClient is a backend that lends its JSON-RPC client, as *ethclient.Client and the simulated
// backend's client do: reads are batched through it, and what go-ethereum's types drop (a rollup
// receipt's L1 fields, receipt.go) is read from it. A backend without it works, one call at a
// time and without the L1 part.
type RawClient interface {
	// Client is the backend's JSON-RPC client.
	Client() *rpc.Client
}

// RawClientOf is the backend's JSON-RPC client, nil when it lends none.
func RawClientOf(b any) *rpc.Client {
	if c, ok := b.(RawClient); ok {
		return c.Client()
	}
	return nil
}

// BatcherOf is the backend's batch caller: the backend itself when it batches, else its raw
// client (RawClient); nil when it has none.
func BatcherOf(b any) BatchCaller {
	if bc, ok := b.(BatchCaller); ok {
		return bc
	}
	if c := RawClientOf(b); c != nil {
		return c
	}
	return nil
}
