package rig

import (
	"context"
	"testing"
	"time"

	"github.com/pricerig/pricerig/rig/journal"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

// The schedule's turns: rank r is first on turn r stage delays into a stage, never before; at
// any moment at most one listed rank is on turn, and none in a turn's last quarter, so that a
// rank that comes late never sends as another's turn begins; a rank comes back one cycle of
// turns later; a process behind every listed rank sends only from a turn's middle to its guard.
func TestOnTurnGivesTheStageToOneRankAtATime(t *testing.T) {
	const d = 2 * time.Second
	guard := d - d/turnGuard
	for _, ranks := range []int{2, 3, 5} {
		for e := time.Duration(0); e < time.Duration(3*ranks)*d; e += 10 * time.Millisecond {
			var on []int
			for r := range ranks {
				if onTurn(r, ranks, e, d) {
					on = append(on, r)
				}
			}
			if len(on) > 1 {
				t.Fatalf("%d ranks, %s in: ranks %v on turn together", ranks, e, on)
			}
			if len(on) == 1 && (e < time.Duration(on[0])*d || e%d >= guard || int(e/d)%ranks != on[0]) {
				t.Fatalf("%d ranks, %s in: rank %d on turn out of its turns, or in a turn's last quarter", ranks, e, on[0])
			}
			for _, back := range []int{ranks, unknownRank} {
				if onTurn(back, ranks, e, d) && (e < time.Duration(back)*d || e%d < d/2 || e%d >= guard) {
					t.Fatalf("%d ranks, %s in: rank %d (behind every listed one) on turn outside a turn's middle", ranks, e, back)
				}
			}
		}
		for r := range ranks {
			if !onTurn(r, ranks, time.Duration(r)*d, d) || !onTurn(r, ranks, time.Duration(r+ranks)*d, d) {
				t.Fatalf("%d ranks: rank %d not on turn as its turn (or its next) begins", ranks, r)
			}
		}
		// Rank 0 that missed its turn (an instance taking over) waits while rank 1's runs.
		if onTurn(0, ranks, d+100*time.Millisecond, d) {
			t.Fatalf("%d ranks: rank 0 on turn as rank 1's turn begins", ranks)
		}
	}
	if !onTurn(0, 1, time.Hour+time.Second, d) {
		t.Fatal("a lone rank is not always on turn")
	}
	if !onTurn(unknownRank, 3, time.Duration(unknownRank)*d+d/2, d) {
		t.Fatal("a process behind every rank never sends")
	}
}

// followerLease is a shared journal's lease held by another instance until the test hands it
// over (takeLease).
type followerLease struct{}

func (followerLease) AcquireLease(_ context.Context, name, holder string, _ time.Duration) (journal.Lease, error) {
	return journal.Lease{Name: name, Holder: "other", Epoch: 1}, nil
}
func (followerLease) CheckFence(context.Context, journal.Fence) error   { return nil }
func (followerLease) ReleaseLease(context.Context, journal.Fence) error { return nil }

func takeLease(r *Runner) {
	r.lead.mu.Lock()
	defer r.lead.mu.Unlock()
	r.lead.held, r.lead.validUntil = true, time.Now().Add(time.Hour)
	r.lead.fence = journal.Fence{Name: "test", Holder: "us", Epoch: 2}
}

// The failure of a failover run (the journal's database down for 3 s): our rig was rank 0 for a
// task's draw, its leader could not send, and rank 1, another operator's rig, drew when its turn
// came; our instance that took over the lease then sent our draw at once, within a block of rank
// 1's, and ours reverted WrongPhase on Robinhood Chain (no pending pool: both passed simulation).
// An instance that followed knows how long the task has been drawable: taking over in rank 1's
// turn, it sends nothing until its own turn comes round again.
func TestATakeoverInAnotherRanksTurnWaitsForItsOwn(t *testing.T) {
	f := newFakeNitro(t, 21_000_000, 100)
	f.jobRigs = []uint64{1, 2, 3}
	for f.ourRig = 1; rigtask.ScheduleRank(rigtask.ScheduleOrder(1, nil, f.jobRigs), func(id uint64) bool { return id == f.ourRig }) != 0; f.ourRig++ {
	}
	r := nitroRunner(t, f)
	r.lead.leaser = followerLease{}
	f.advance(5*time.Second, true)
	f.order()
	// Follow until the task is drawable (the chain past its order block).
	var began time.Time
	for i := 0; i < 200 && began.IsZero(); i++ {
		look(t, r)
		if ts := r.tasks[1]; ts != nil && ts.stage != "" && ts.stage[0] != 'w' {
			began = ts.stageSince
		} else {
			f.advance(250*time.Millisecond, true)
		}
	}
	if began.IsZero() {
		t.Fatal("the follower never saw the task drawable")
	}
	if len(f.draws) != 0 {
		t.Fatalf("the follower sent %d draws", len(f.draws))
	}
	// Take over just as rank 1's turn begins (the stage delay is 1 s, three ranks).
	f.advance(began.Add(time.Second+100*time.Millisecond).Sub(f.clock()), true)
	takeLease(r)
	look(t, r)
	if len(f.draws) != 0 {
		t.Fatalf("the new leader drew in rank 1's turn (%s after the task became drawable): %+v", f.clock().Sub(began), f.draws)
	}
	// Our next turn: three stage delays in.
	f.advance(began.Add(3*time.Second+100*time.Millisecond).Sub(f.clock()), true)
	look(t, r)
	if len(f.draws) != 1 || f.draws[0].reverted {
		t.Fatalf("draws %+v at our next turn: want one", f.draws)
	}
}
