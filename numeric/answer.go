package numeric

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Answer is the 32 bytes a rig commits and reveals. A NUMERIC answer holds an unsigned integer,
// big-endian (a Solidity uint256 cast to bytes32); an EXACT answer is any 32 bytes.
type Answer = [32]byte

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// ErrAnswer is wrapped by every error about the shape of an answer.
var ErrAnswer = errors.New("bad answer")

// NumericAnswer encodes a non-negative integer below 2^256 as a big-endian bytes32.
func NumericAnswer(v *big.Int) (Answer, error) {
	var a Answer
	if v.Sign() < 0 || v.Cmp(maxUint256) > 0 {
		return a, fmt.Errorf("%w: %s is outside uint256", ErrAnswer, v)
	}
	v.FillBytes(a[:])
	return a, nil
}

// AnswerInt reads a bytes32 answer as the unsigned integer it encodes.
func AnswerInt(a Answer) *big.Int {
	return new(big.Int).SetBytes(a[:])
}

// AnswerHex prints an answer as 0x followed by 64 lower-case hex digits.
func AnswerHex(a Answer) string {
	return "0x" + hex.EncodeToString(a[:])
}

// ParseAnswer reads an answer the way a person types one: a decimal integer (encoded as a
// uint256), or 0x followed by exactly 64 hex digits (taken as the raw 32 bytes).
func ParseAnswer(text string) (Answer, error) {
	var a Answer
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		h := s[2:]
		if len(h) != 64 {
			return a, fmt.Errorf("%w %q: 0x form needs exactly 64 hex digits, got %d", ErrAnswer, clip(text), len(h))
		}
		if _, err := hex.Decode(a[:], []byte(h)); err != nil {
			return a, fmt.Errorf("%w %q: not hex", ErrAnswer, clip(text))
		}
		return a, nil
	}
	if s == "" {
		return a, fmt.Errorf("%w: empty", ErrAnswer)
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return a, fmt.Errorf("%w %q: want a decimal integer or 0x plus 64 hex digits", ErrAnswer, clip(text))
		}
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return a, fmt.Errorf("%w %q: not a decimal integer", ErrAnswer, clip(text))
	}
	return NumericAnswer(v)
}
