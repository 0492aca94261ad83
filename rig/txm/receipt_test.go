package txm

import (
	"math/big"
	"os"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
)

func wei(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

// An Arbitrum receipt (the shape Arbitrum One and Orbit nodes answer eth_getTransactionReceipt
// with: go-ethereum's fields plus gasUsedForL1 and l1BlockNumber) decodes into types.Receipt,
// and its L1 part is read from the JSON: inside gasUsed, at the same price.
func TestArbitrumReceiptCarriesItsL1PartInsideGasUsed(t *testing.T) {
	raw, err := os.ReadFile("testdata/arbitrum-receipt.json")
	if err != nil {
		t.Fatal(err)
	}
	var r types.Receipt
	if err := r.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	l1, err := ParseReceiptL1(raw)
	if err != nil {
		t.Fatal(err)
	}
	// gasUsed 0x1a4d2 = 107730 at 0x989680 = 10,000,000 wei; gasUsedForL1 0x6a3f = 27199.
	if r.GasUsed != 107730 || r.EffectiveGasPrice.Cmp(big.NewInt(10_000_000)) != 0 {
		t.Fatalf("receipt: gas %d at %s", r.GasUsed, r.EffectiveGasPrice)
	}
	if l1.GasUsed != 27199 || l1.Extra || l1.Fee.Cmp(wei("271990000000")) != 0 {
		t.Fatalf("L1 part: %+v (fee %s)", l1, l1.Fee)
	}
	if fee := ReceiptFee(&r, l1); fee.Cmp(wei("1077300000000")) != 0 {
		t.Fatalf("fee %s, want 107730 × 10000000", fee)
	}
}

// An OP-stack receipt's l1Fee is charged on top of gasUsed × effectiveGasPrice.
func TestOPStackReceiptAddsItsL1Fee(t *testing.T) {
	raw, err := os.ReadFile("testdata/op-receipt.json")
	if err != nil {
		t.Fatal(err)
	}
	var r types.Receipt
	if err := r.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	l1, err := ParseReceiptL1(raw)
	if err != nil {
		t.Fatal(err)
	}
	// l1Fee 0x2f7a5a1b4 = 12744761780 wei; gasUsed 21000 at 1,000,000 wei.
	if !l1.Extra || l1.Fee.Cmp(wei("12744761780")) != 0 {
		t.Fatalf("L1 part: %+v", l1)
	}
	if fee := ReceiptFee(&r, l1); fee.Cmp(wei("33744761780")) != 0 {
		t.Fatalf("fee %s", fee)
	}
	// A plain receipt has no L1 part; garbage is an error.
	if l1, err := ParseReceiptL1([]byte(`{"gasUsed":"0x5208","effectiveGasPrice":"0x1"}`)); err != nil || l1.Fee != nil || l1.GasUsed != 0 {
		t.Fatalf("plain receipt: %+v, %v", l1, err)
	}
	if _, err := ParseReceiptL1([]byte(`{"gasUsedForL1":"12"}`)); err == nil {
		t.Fatal("a non-hex gasUsedForL1 was accepted")
	}
}
