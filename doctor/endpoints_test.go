package doctor

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/agentrig"
)

// behind is an endpoint whose head is n blocks behind the node it reads (and, with id, of
// another chain): a provider falling behind.
type behind struct {
	EndpointNode
	n  int64
	id int64
}

func (b behind) ChainID(ctx context.Context) (*big.Int, error) {
	if b.id != 0 {
		return big.NewInt(b.id), nil
	}
	return b.EndpointNode.ChainID(ctx)
}

func (b behind) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	h, err := b.EndpointNode.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	return b.EndpointNode.HeaderByNumber(ctx, new(big.Int).Sub(h.Number, big.NewInt(b.n)))
}

// Each of several endpoints is a check of its own: its chain id, head and lag behind the
// highest; one unreachable or of another chain fails, one lagging warns.
func TestEachEndpointIsChecked(t *testing.T) {
	c := newTestChain(t, nil)
	for range 6 {
		c.Backend.Commit()
	}
	nw, _ := agentrig.NetworkByName("devnet")
	id, err := c.Client.ChainID(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	nw.ChainID = id.Uint64()
	ch := &Chain{Network: nw, Endpoints: []Endpoint{
		{RPC: "https://a.example", Node: c.Client},
		{RPC: "https://b.example", Node: behind{EndpointNode: c.Client, n: 5}},
		{RPC: "https://c.example", Node: behind{EndpointNode: c.Client, id: 1}},
		{RPC: "https://d.example", DialErr: errors.New("connection refused")},
	}}
	lines := ch.checkEndpoints(t.Context())
	if len(lines) != 4 {
		t.Fatalf("%d lines, want one per endpoint: %+v", len(lines), lines)
	}
	want := []struct {
		verdict Verdict
		problem string
		detail  string
	}{{OK, "", "0 blocks behind"}, {Warn, EndpointLag, "5 blocks behind"}, {Fail, WrongChain, "serves chain id 1"}, {Fail, ChainUnreachable, "connection refused"}}
	for i, w := range want {
		l := lines[i]
		if l.Check != "rpc_endpoint" || l.Subject != ch.Endpoints[i].RPC || l.Verdict != w.verdict || l.Problem != w.problem || !strings.Contains(l.Detail, w.detail) {
			t.Errorf("endpoint %d: %+v, want %s %q with %q", i, l, w.verdict, w.problem, w.detail)
		}
	}
}
