package txm

import (
	"math/big"
	"os"
	"path/filepath"
	"testing"
)

// The L1 part of a recorded Arbitrum One receipt (rig/testdata/nitro, GetBlock's documentation) is
// its gasUsedForL1 at its effective gas price, inside gasUsed × effectiveGasPrice.
func TestARecordedArbitrumReceiptsL1Part(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "nitro", "arbitrum-one-receipt-getblock.json"))
	if err != nil {
		t.Fatal(err)
	}
	l1, err := ParseReceiptL1(raw)
	if err != nil {
		t.Fatal(err)
	}
	fee := new(big.Int).Mul(big.NewInt(0x113076), big.NewInt(0x5f5e100))
	if l1.GasUsed != 0x113076 || l1.Fee == nil || l1.Fee.Cmp(fee) != 0 || l1.Extra {
		t.Fatalf("L1 part %+v, want gasUsedForL1 0x113076 costing %s wei inside the fee", l1, fee)
	}
}
