package agentrig

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

func recordedBody(t *testing.T, name string) json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "nitro", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// Recorded Nitro heads (rig/testdata/nitro, README there says where each comes from) read as the L1
// numbers they carry: an Arbitrum One block far past its L1 number (an old chain) and an
// Arbitrum head far below it (a young chain, as Robinhood Chain is). A head without
// l1BlockNumber, on a network numbered Nitro-style, is a clear error naming the network.
func TestNitroClockReadsRecordedHeads(t *testing.T) {
	c := NitroClock{Network: "robinhood"}
	for _, tc := range []struct {
		file       string
		number, l1 uint64
	}{
		{"arbitrum-one-block-getblock.json", 0x5bc4077, 0x10924a4},
		{"arbitrum-classic-head-chainlink.json", 0x15156, 0x8652f9},
	} {
		h, err := c.parseHead(recordedBody(t, tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if h.Number.Uint64() != tc.number || c.Number(h) != tc.l1 {
			t.Fatalf("%s: block %s, L1 %d; want %d and %d", tc.file, h.Number, c.Number(h), tc.number, tc.l1)
		}
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(recordedBody(t, "arbitrum-one-block-getblock.json"), &fields)
	delete(fields, "l1BlockNumber")
	ethereumHead, _ := json.Marshal(fields)
	_, err := c.parseHead(ethereumHead)
	if !errors.Is(err, ErrNoL1BlockNumber) || !strings.Contains(err.Error(), "network robinhood numbers blocks Nitro-style") {
		t.Fatalf("a head without l1BlockNumber: %v", err)
	}
}

type fixedL1 uint64

func (n fixedL1) BlockNumber(context.Context) (uint64, error) { return uint64(n), nil }

// A quiet Nitro chain reaches the L1 number its clock says, not the head's: one more for each
// whole interval since the head's time, or an L1 node's latest less L1Trail when that is further.
// An Ethereum-style chain reaches only its head.
func TestClocksReachTheNumberTheirChainIsAt(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	head := Head{Header: &types.Header{Number: big.NewInt(500), Time: uint64(t0.Unix())}, L1: 1000}
	c := NitroClock{Interval: 12 * time.Second}
	for _, tc := range []struct {
		after time.Duration
		want  uint64
	}{{0, 1000}, {11 * time.Second, 1000}, {12 * time.Second, 1001}, {-time.Minute, 1000}, {61 * time.Second, 1005}} {
		if got := c.Reached(t.Context(), head, t0.Add(tc.after)); got != tc.want {
			t.Errorf("%s after the head: reached %d, want %d", tc.after, got, tc.want)
		}
	}
	c.L1 = fixedL1(1010)
	if got := c.Reached(t.Context(), head, t0); got != 1010-L1Trail {
		t.Errorf("with an L1 node at 1010: reached %d, want %d", got, 1010-L1Trail)
	}
	if got := (EthereumClock{}).Reached(t.Context(), head, t0.Add(time.Hour)); got != 500 {
		t.Errorf("Ethereum-style: reached %d, want the head's 500", got)
	}
}
