package task

import (
	"bytes"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Whose turn it is: the transactions anyone may send for a task — draw (and the draw again after
// a re-anchor) and settle — are sent by one rig at a time, as Chainlink OCR's transmission
// schedule does: every process ranks the rigs by keccak256(abi.encode(uint256 taskId, uint64
// rigId)), the same order everywhere, and the first rig's process sends first (the runner paces
// the others: rig/pace.go).

// ScheduleKey is a rig's place-giving key for a task: keccak256(abi.encode(taskId, rigId)).
func ScheduleKey(taskID, rigID uint64) common.Hash {
	var buf [64]byte
	new(big.Int).SetUint64(taskID).FillBytes(buf[:32])
	new(big.Int).SetUint64(rigID).FillBytes(buf[32:])
	return crypto.Keccak256Hash(buf[:])
}

// ScheduleOrder returns the rigs in the order they send a task's public-good transaction: first
// the rigs of first (the drawn rigs, for settle: they are paid by it and surely watching), then
// those of rest not already listed, each group sorted by ScheduleKey.
func ScheduleOrder(taskID uint64, first, rest []uint64) []uint64 {
	sorted := func(ids []uint64) []uint64 {
		out := slices.Clone(ids)
		slices.SortFunc(out, func(a, b uint64) int {
			ka, kb := ScheduleKey(taskID, a), ScheduleKey(taskID, b)
			return bytes.Compare(ka[:], kb[:])
		})
		return out
	}
	order := sorted(first)
	var others []uint64
	for _, id := range rest {
		if !slices.Contains(first, id) && !slices.Contains(others, id) {
			others = append(others, id)
		}
	}
	return append(order, sorted(others)...)
}

// ScheduleRank is the place of the first of ours in order; len(order) when none is in it (a
// process none of whose rigs the chain lists still sends, last).
func ScheduleRank(order []uint64, ours func(uint64) bool) int {
	for i, id := range order {
		if ours(id) {
			return i
		}
	}
	return len(order)
}
