package task

import (
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

func TestScheduleOrderIsTheSameEverywhereAndDrawnRigsGoFirst(t *testing.T) {
	rigs := []uint64{1, 2, 3, 4, 5, 6, 7}
	for task := uint64(1); task <= 50; task++ {
		order := ScheduleOrder(task, nil, rigs)
		// Any process, whatever order it listed the rigs in, gets the same schedule.
		shuffled := slices.Clone(rigs)
		slices.Reverse(shuffled)
		if got := ScheduleOrder(task, nil, shuffled); !slices.Equal(got, order) {
			t.Fatalf("task %d: %v and %v", task, order, got)
		}
		sorted := slices.Clone(order)
		slices.Sort(sorted)
		if !slices.Equal(sorted, rigs) {
			t.Fatalf("task %d: %v is not a permutation of %v", task, order, rigs)
		}
		for i := 1; i < len(order); i++ {
			a, b := ScheduleKey(task, order[i-1]), ScheduleKey(task, order[i])
			if strings.Compare(a.Hex(), b.Hex()) >= 0 {
				t.Fatalf("task %d: not sorted by key at %d", task, i)
			}
		}
		drawn := []uint64{6, 2, 4}
		settle := ScheduleOrder(task, drawn, rigs)
		if len(settle) != len(rigs) || !slices.Equal(slices.Sorted(slices.Values(settle[:3])), []uint64{2, 4, 6}) {
			t.Fatalf("task %d: settle order %v does not start with the drawn rigs", task, settle)
		}
	}
	// The key is keccak256(abi.encode(uint256 taskId, uint64 rigId)).
	want := crypto.Keccak256Hash(append(make([]byte, 31), append([]byte{7}, append(make([]byte, 31), 3)...)...))
	if got := ScheduleKey(7, 3); got != want {
		t.Fatalf("key %s, want %s", got.Hex(), want.Hex())
	}
	// Rank 0 goes first on some tasks and not on others: the load spreads over the rigs.
	firsts := map[uint64]int{}
	for task := uint64(1); task <= 300; task++ {
		firsts[ScheduleOrder(task, nil, rigs)[0]]++
	}
	if len(firsts) != len(rigs) {
		t.Fatalf("first senders over 300 tasks: %v", firsts)
	}
	ours := func(ids ...uint64) func(uint64) bool {
		return func(id uint64) bool { return slices.Contains(ids, id) }
	}
	order := []uint64{5, 3, 9}
	if ScheduleRank(order, ours(9, 3)) != 1 || ScheduleRank(order, ours(5)) != 0 || ScheduleRank(order, ours(42)) != 3 {
		t.Fatal("rank is the place of our first rig, or last")
	}
}
