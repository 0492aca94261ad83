//go:build linux

package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// judgeShared is checkChain's judgement of the transactions on chain (all, in block order) for
// the shared key: faults, and the races it lost that are accepted (see checkChain).
func judgeShared(all []sentTx, shared common.Address, ids []uint64) (faults, lost []string) {
	// won[method/task] are the blocks where another key's draw or settle of the task went through.
	won := map[string][]uint64{}
	for _, tx := range all {
		if tx.from != shared && !tx.reverted && len(tx.tasks) == 1 && (tx.method == "draw" || tx.method == "settle") {
			key := fmt.Sprintf("%s/%d", tx.method, tx.tasks[0])
			won[key] = append(won[key], tx.block)
		}
	}
	attempts := map[string]map[uint64]int{}
	for _, tx := range all {
		if tx.from != shared {
			continue
		}
		method := strings.TrimSuffix(tx.method, "Many")
		if attempts[method] == nil {
			attempts[method] = map[uint64]int{}
		}
		for _, id := range tx.tasks {
			attempts[method][id]++
		}
		if !tx.reverted {
			continue
		}
		if len(tx.tasks) == 1 && slices.ContainsFunc(won[fmt.Sprintf("%s/%d", tx.method, tx.tasks[0])], func(b uint64) bool { return b == tx.block || b+1 == tx.block }) {
			lost = append(lost, fmt.Sprintf("the shared key's %s of task %d in block %d lost to another rig's (tx %s)", tx.method, tx.tasks[0], tx.block, tx.hash.Hex()))
			continue
		}
		faults = append(faults, fmt.Sprintf("the shared key's %s of tasks %v reverted in block %d (tx %s)", tx.method, tx.tasks, tx.block, tx.hash.Hex()))
	}
	// Every task the key touched, at most one attempt of each; the tasks judged, one commit and
	// one reveal.
	tasks := slices.Clone(ids)
	for _, by := range attempts {
		for id := range by {
			if !slices.Contains(tasks, id) {
				tasks = append(tasks, id)
			}
		}
	}
	slices.Sort(tasks)
	for _, id := range tasks {
		want := 0
		if slices.Contains(ids, id) {
			want = 1
		}
		if attempts["commit"][id] > 1 || attempts["reveal"][id] > 1 || attempts["draw"][id] > 1 || attempts["settle"][id] > 1 ||
			attempts["commit"][id] < want || attempts["reveal"][id] < want {
			faults = append(faults, fmt.Sprintf("task %d: the shared key sent %d commit, %d reveal, %d draw and %d settle attempts, want %d, %d, at most 1 and at most 1",
				id, attempts["commit"][id], attempts["reveal"][id], attempts["draw"][id], attempts["settle"][id], want, want))
		}
	}
	return faults, lost
}

// checkChain's judgement fails on anything the shared key sent twice for a task, on any
// reverted commit or reveal, and on a reverted draw or settle unless another key's went through
// in the same block or the one before (a race lost on a chain with no pending pool); a history
// of one attempt each passes.
func TestJudgeSharedFailsOnDuplicatesAndAcceptsOnlyALostRace(t *testing.T) {
	shared, other := common.Address{1}, common.Address{2}
	tx := func(from common.Address, block uint64, method string, reverted bool, tasks ...uint64) sentTx {
		return sentTx{from: from, block: block, method: method, tasks: tasks, reverted: reverted}
	}
	clean := []sentTx{
		tx(other, 10, "draw", false, 1),
		tx(shared, 11, "commitMany", false, 1, 2),
		tx(shared, 12, "draw", false, 2),
		tx(shared, 14, "revealMany", false, 1, 2),
		tx(shared, 15, "settle", false, 1),
		tx(other, 15, "settle", false, 2),
	}
	for _, c := range []struct {
		name        string
		txs         []sentTx
		faults, won int
		judged      uint64 // a task judged beside 1 and 2
	}{
		{"one attempt each", nil, 0, 0, 0},
		{"a draw lost in the same block", []sentTx{tx(other, 20, "draw", false, 3), tx(shared, 20, "draw", true, 3)}, 0, 1, 0},
		{"a draw lost to the block before", []sentTx{tx(other, 20, "draw", false, 3), tx(shared, 21, "draw", true, 3)}, 0, 1, 0},
		{"a settle lost in the same block", []sentTx{tx(other, 20, "settle", false, 3), tx(shared, 20, "settle", true, 3)}, 0, 1, 0},
		{"a draw reverted long after another's", []sentTx{tx(other, 20, "draw", false, 3), tx(shared, 25, "draw", true, 3)}, 1, 0, 0},
		{"a draw reverted with nobody else's", []sentTx{tx(shared, 20, "draw", true, 3)}, 1, 0, 0},
		{"a draw lost to another's that reverted too", []sentTx{tx(other, 20, "draw", true, 3), tx(shared, 20, "draw", true, 3)}, 1, 0, 0},
		{"our key drew twice (an HA duplicate)", []sentTx{tx(shared, 20, "draw", false, 3), tx(shared, 20, "draw", true, 3)}, 2, 0, 0},
		{"our key drew twice, both mined", []sentTx{tx(shared, 20, "draw", false, 4), tx(shared, 30, "draw", false, 4)}, 1, 0, 0},
		{"our key settled twice", []sentTx{tx(shared, 20, "settle", true, 1)}, 2, 0, 0},
		{"a task not judged, committed twice", []sentTx{tx(shared, 20, "commit", false, 5), tx(shared, 21, "commitMany", false, 5)}, 1, 0, 0},
		{"a task not judged, committed once", []sentTx{tx(shared, 20, "commit", false, 6)}, 0, 0, 0},
		{"a task judged, committed but never revealed", []sentTx{tx(shared, 20, "commit", false, 7)}, 1, 0, 7},
		{"a commit sent again, skipped in a batch", []sentTx{tx(shared, 20, "commitMany", false, 1)}, 1, 0, 0},
		{"a reveal sent again, reverted", []sentTx{tx(shared, 20, "reveal", true, 2)}, 2, 0, 0},
		{"a commit lost in a block with another's draw", []sentTx{tx(other, 20, "draw", false, 3), tx(shared, 20, "commit", true, 3)}, 1, 0, 0},
	} {
		ids := []uint64{1, 2}
		if c.judged != 0 {
			ids = append(ids, c.judged)
		}
		faults, lost := judgeShared(append(slices.Clone(clean), c.txs...), shared, ids)
		if len(faults) != c.faults || len(lost) != c.won {
			t.Errorf("%s: %d faults %q and %d lost races %q, want %d and %d", c.name, len(faults), faults, len(lost), lost, c.faults, c.won)
		}
	}
}
