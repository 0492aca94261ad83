package doctor

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/redact"
)

// EndpointLag is a problem of one of several RPC endpoints: its head is behind the others'.
const EndpointLag = "endpoint_lag"

// MaxEndpointLag is how many blocks an endpoint may be behind the highest head before the
// check warns; rig/rpcpool's default, past which a rig takes the endpoint out of rotation.
const MaxEndpointLag = 3

// Endpoint is one of several RPC endpoints (--rpc given more than once, or networks.NAME.rpcs),
// checked on its own: the rig reads from the healthiest and sends to all, so each is worth
// knowing about before it is needed.
type Endpoint struct {
	RPC     string // its URL as it may be shown
	Node    EndpointNode
	DialErr error
}

// EndpointNode is what the check reads of an endpoint; *ethclient.Client has it.
type EndpointNode interface {
	ChainID(ctx context.Context) (*big.Int, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
}

// checkEndpoints reads each endpoint's chain id and head: one unreachable or of another chain
// fails, one more than MaxEndpointLag blocks behind the highest head warns.
func (c *Chain) checkEndpoints(ctx context.Context) []Check {
	lines := make([]Check, len(c.Endpoints))
	heads := make([]uint64, len(c.Endpoints))
	var best uint64
	for i, e := range c.Endpoints {
		line := Check{Check: "rpc_endpoint", Subject: e.RPC}
		lines[i] = line
		if e.DialErr != nil {
			lines[i] = unreachable(line, e.RPC, e.DialErr)
			continue
		}
		id, err := e.Node.ChainID(ctx)
		if err != nil {
			lines[i] = unreachable(line, e.RPC, err)
			continue
		}
		if !id.IsUint64() || id.Uint64() != c.Network.ChainID {
			line.Verdict, line.Problem = Fail, WrongChain
			line.Detail = fmt.Sprintf("%s serves chain id %s, not %s's %d: the rig keeps it out of rotation", e.RPC, id, c.Network.Name, c.Network.ChainID)
			line.Fix = "drop it from --rpc (or networks." + c.Network.Name + ".rpcs), or give the right URL"
			lines[i] = line
			continue
		}
		h, err := e.Node.HeaderByNumber(ctx, nil)
		if err != nil {
			lines[i] = unreachable(line, e.RPC, err)
			continue
		}
		heads[i] = h.Number.Uint64()
		best = max(best, heads[i])
		line.Verdict = OK
		lines[i] = line
	}
	for i := range lines {
		if lines[i].Verdict != OK {
			continue
		}
		lag := best - heads[i]
		lines[i].Detail = redact.String(fmt.Sprintf("%s: chain id %d, head %d, %d blocks behind the highest", c.Endpoints[i].RPC, c.Network.ChainID, heads[i], lag))
		if lag > MaxEndpointLag {
			lines[i].Verdict, lines[i].Problem = Warn, EndpointLag
			lines[i].Fix = "the rig reads from the others until it catches up; check the provider"
		}
	}
	return lines
}
