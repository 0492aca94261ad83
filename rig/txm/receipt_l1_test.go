package txm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
)

// rawOnly is a backend that lends only its JSON-RPC client (RawClient).
type rawOnly struct {
	TxChain
	c *rpc.Client
}

func (b rawOnly) Client() *rpc.Client { return b.c }

// opReceiptNode answers eth_getTransactionReceipt with an OP-stack receipt's L1 fields, after
// refusing the first down requests with 503 as a node behind a restarting proxy would.
func opReceiptNode(t *testing.T, down int32) (*rpc.Client, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if calls.Add(1) <= down {
			http.Error(w, "restarting", http.StatusServiceUnavailable)
			return
		}
		var in struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"gasUsed":"0x5208","effectiveGasPrice":"0x3b9aca00","l1Fee":"0x2a"}}`, in.ID)
	}))
	t.Cleanup(srv.Close)
	c, err := rpc.DialHTTP(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, &calls
}

// The L1 part of a mined transaction's cost is read from the node's JSON receipt; a node out
// for a moment is asked again, so the accounts do not lose an OP-style l1Fee to a blip. A node
// that stays out gives up with ErrRPCUnavailable after a few tries (and the transaction is
// journaled without it, with a warning).
func TestL1PartIsAskedAgainAfterABriefOutage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hash := common.HexToHash("0x01")

	c, calls := opReceiptNode(t, 2)
	l1, err := ReceiptL1(ctx, rawOnly{c: c}, hash)
	if err != nil || l1.Fee == nil || l1.Fee.Int64() != 42 || !l1.Extra {
		t.Fatalf("after a brief outage: %+v, %v", l1, err)
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d requests, want the two refused and the one answered", n)
	}

	c, calls = opReceiptNode(t, 1000)
	if _, err := ReceiptL1(ctx, rawOnly{c: c}, hash); !errors.Is(err, ErrRPCUnavailable) {
		t.Fatalf("a node that stays out: %v, want ErrRPCUnavailable", err)
	}
	if n := calls.Load(); n < 2 || n > 10 {
		t.Fatalf("%d requests to a node that stays out", n)
	}

	if _, err := ReceiptL1(ctx, rawOnly{}, hash); !errors.Is(err, ErrNoRawClient) {
		t.Fatalf("a backend without a raw client: %v", err)
	}
}
