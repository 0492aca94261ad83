package task

import (
	"crypto/rand"
	"fmt"
	"io"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/numeric"
)

// Salt is the 32 random bytes that hide an answer inside its commitment until the reveal.
type Salt = [32]byte

// NewSalt draws a salt from crypto/rand. A salt must never be reused: with the task id and rig id
// in the commitment a reused salt leaks nothing by itself, but a fresh one costs nothing.
func NewSalt() (Salt, error) { return newSalt(rand.Reader) }

func newSalt(r io.Reader) (Salt, error) {
	var s Salt
	if _, err := io.ReadFull(r, s[:]); err != nil {
		return s, fmt.Errorf("drawing a salt: %w", err)
	}
	return s, nil
}

// Commitment is the seed's commitment:
//
//	keccak256(abi.encode(uint256 taskId, uint64 rigId, bytes32 answer, bytes32 salt))
//
// abi.encode of four static values is four 32-byte words: the integers big-endian and
// left-padded, the bytes32 as they are. The rig id inside stops a rig from copying another
// rig's hash. taskId must be a non-negative integer below 2^256.
func Commitment(taskID *big.Int, rigID uint64, answer numeric.Answer, salt Salt) (common.Hash, error) {
	task, err := uint256Word(taskID)
	if err != nil {
		return common.Hash{}, fmt.Errorf("task id: %w", err)
	}
	var rig [32]byte
	new(big.Int).SetUint64(rigID).FillBytes(rig[:])
	return crypto.Keccak256Hash(task[:], rig[:], answer[:], salt[:]), nil
}

// uint256Word encodes v as a 32-byte big-endian word, refusing what a uint256 cannot hold.
func uint256Word(v *big.Int) ([32]byte, error) {
	var w [32]byte
	if v == nil || v.Sign() < 0 || v.BitLen() > 256 {
		return w, fmt.Errorf("%v is not a uint256", v)
	}
	v.FillBytes(w[:])
	return w, nil
}
