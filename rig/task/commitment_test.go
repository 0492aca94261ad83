package task

import (
	"bytes"
	"errors"
	"math/big"
	"testing"
	"testing/iotest"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/numeric"
)

// The commitment must equal keccak256 of go-ethereum's own ABI encoding of the four values.
func TestCommitmentMatchesABIEncode(t *testing.T) {
	u256, _ := abi.NewType("uint256", "", nil)
	u64, _ := abi.NewType("uint64", "", nil)
	b32, _ := abi.NewType("bytes32", "", nil)
	args := abi.Arguments{{Type: u256}, {Type: u64}, {Type: b32}, {Type: b32}}

	maxU256 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	price, _ := numeric.NumericAnswer(big.NewInt(17_712_000_000))
	tests := []struct {
		task   *big.Int
		rig    uint64
		answer numeric.Answer
		salt   Salt
	}{
		{big.NewInt(1), 1, price, Salt{1}},
		{big.NewInt(0), 0, numeric.Answer{}, Salt{}},
		{maxU256, ^uint64(0), numeric.Answer{0xff, 0xee}, Salt{31: 0x42}},
		{new(big.Int).Lsh(big.NewInt(1), 200), 7, price, Salt{0x80}},
	}
	for _, tc := range tests {
		packed, err := args.Pack(tc.task, tc.rig, tc.answer, tc.salt)
		if err != nil {
			t.Fatal(err)
		}
		want := crypto.Keccak256Hash(packed)
		got, err := Commitment(tc.task, tc.rig, tc.answer, tc.salt)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("Commitment(%s, %d) = %s, want %s", tc.task, tc.rig, got.Hex(), want.Hex())
		}
	}
}

func TestCommitmentBindsEveryField(t *testing.T) {
	a, _ := numeric.ParseAnswer("100")
	base, _ := Commitment(big.NewInt(5), 2, a, Salt{9})
	b, _ := numeric.ParseAnswer("101")
	variants := []struct {
		name string
		task int64
		rig  uint64
		ans  numeric.Answer
		salt Salt
	}{
		{"task", 6, 2, a, Salt{9}},
		{"rig", 5, 3, a, Salt{9}},
		{"answer", 5, 2, b, Salt{9}},
		{"salt", 5, 2, a, Salt{8}},
	}
	for _, v := range variants {
		got, _ := Commitment(big.NewInt(v.task), v.rig, v.ans, v.salt)
		if got == base {
			t.Errorf("changing the %s left the commitment unchanged", v.name)
		}
	}
}

func TestCommitmentRejectsNonUint256(t *testing.T) {
	for _, v := range []*big.Int{nil, big.NewInt(-1), new(big.Int).Lsh(big.NewInt(1), 256)} {
		if _, err := Commitment(v, 1, numeric.Answer{}, Salt{}); err == nil {
			t.Errorf("task id %v accepted", v)
		}
	}
}

func TestNewSalt(t *testing.T) {
	a, err := NewSalt()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewSalt()
	if err != nil {
		t.Fatal(err)
	}
	if a == b || a == (Salt{}) {
		t.Fatalf("two salts from crypto/rand: %x %x", a, b)
	}
	want := bytes.Repeat([]byte{7}, 32)
	s, err := newSalt(bytes.NewReader(want))
	if err != nil || !bytes.Equal(s[:], want) {
		t.Fatalf("newSalt from a reader: %x %v", s, err)
	}
	boom := errors.New("entropy gone")
	if _, err := newSalt(iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Fatalf("a failing reader must fail the salt: %v", err)
	}
	if _, err := newSalt(bytes.NewReader(want[:31])); err == nil {
		t.Fatal("a short read must fail the salt")
	}
}
