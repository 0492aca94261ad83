package rig

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
)

// ethereumNode is a node of an Ethereum-style chain: its heads carry no l1BlockNumber.
type ethereumNode struct {
	*fakeNitro
	raw *rpc.Client
}

func (n ethereumNode) Client() *rpc.Client { return n.raw }

type ethereumRPC struct{ f *fakeNitro }

func (s *ethereumRPC) GetBlockByNumber(context.Context, rpc.BlockNumber, bool) (json.RawMessage, error) {
	return json.Marshal(s.f.header(uint64(len(s.f.blocks) - 1)))
}

// A rig told its network is Nitro-style refuses to start on a node whose heads carry no
// l1BlockNumber, saying so, instead of failing every look at the chain.
func TestARigOnANitroNetworkRefusesANodeWithoutL1Numbers(t *testing.T) {
	f := newFakeNitro(t, 21_000_000, 10)
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", &ethereumRPC{f}); err != nil {
		t.Fatal(err)
	}
	node := ethereumNode{fakeNitro: f, raw: rpc.DialInProc(srv)}
	defer node.raw.Close()
	j, err := journal.OpenJournal(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	key, _ := crypto.GenerateKey()
	_, err = NewRunner(t.Context(), node, j, nil, Config{JobID: 2, Deployment: f, Clock: agentrig.NitroClock{Network: "robinhood"},
		Operators: []task.Key{{Address: crypto.PubkeyToAddress(key.PublicKey), Private: key}}})
	if !errors.Is(err, agentrig.ErrNoL1BlockNumber) || !strings.Contains(err.Error(), "network robinhood") {
		t.Fatalf("NewRunner on an Ethereum-style node: %v", err)
	}
}
