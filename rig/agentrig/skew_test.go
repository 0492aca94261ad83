package agentrig

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// quietNitro is a quiet Nitro network's clock: no pool.
type quietNitro struct{ ChainClock }

func (quietNitro) Pooled() bool { return false }

// A sequencer whose clock stamps 3 s behind ours: the SkewMeter measures it from new heads (a
// head seen again is no sample), and a quiet reveal 2.5 s after the commit window closed by our
// clock, which QuietMargin alone (2 s) would send into a block still stamped inside the window,
// waits until the margin covers the skew.
func TestAQuietRevealWaitsForTheSequencersSkew(t *testing.T) {
	ours := time.Date(2026, 12, 7, 15, 0, 0, 0, time.UTC)
	var m SkewMeter
	if m.Behind() != 0 {
		t.Fatalf("nothing measured: %s behind", m.Behind())
	}
	for i := range 5 {
		// a block every 5.2 s of our time, sealed at our time less 3 s, stamped in whole
		// seconds, and read 100 ms (plus up to 900 ms of the second's rounding) later
		sealed := ours.Add(time.Duration(i) * 5200 * time.Millisecond)
		h := &types.Header{Number: big.NewInt(int64(100 + i)), Time: uint64(sealed.Add(-3 * time.Second).Unix())}
		m.Observe(h, sealed.Add(100*time.Millisecond))
		m.Observe(h, sealed.Add(time.Minute)) // the same head read again on a quiet chain
	}
	// then a burst: blocks 250 ms apart by our clock, each stamped a second after its parent
	// (chain time running ahead), which says nothing of the sequencer's clock
	last := uint64(ours.Add(4*5200*time.Millisecond - 3*time.Second).Unix())
	for i := range 8 {
		at := ours.Add(4*5200*time.Millisecond + time.Duration(i+1)*250*time.Millisecond)
		m.Observe(&types.Header{Number: big.NewInt(int64(200 + i)), Time: last + uint64(i+1)}, at)
	}
	if b := m.Behind(); b < 3*time.Second || b > 3*time.Second+time.Second {
		t.Fatalf("measured %s behind, want 3 s to 4 s", b)
	}
	closed := ours.Add(time.Hour)
	v := TaskView{Phase: PhaseCommit, CommitDeadline: closed, RevealDeadline: closed.Add(time.Minute)}
	now := closed.Add(2500 * time.Millisecond)
	if p, quiet := QuietPhase(quietNitro{}, v, now); !quiet || p != PhaseReveal {
		t.Fatalf("QuietMargin alone: %v %v, want a quiet reveal (the case the skew margin prevents)", p, quiet)
	}
	if _, quiet := QuietPhaseWithin(quietNitro{}, v, now, QuietMargin+m.Behind()); quiet {
		t.Fatal("a quiet reveal 2.5 s after the window by our clock, with the sequencer 3 s behind: its block would be stamped inside the commit window")
	}
	if p, quiet := QuietPhaseWithin(quietNitro{}, v, closed.Add(QuietMargin+m.Behind()), QuietMargin+m.Behind()); !quiet || p != PhaseReveal {
		t.Fatalf("once the margin covers the skew: %v %v, want the quiet reveal", p, quiet)
	}
	// A sequencer ahead of us measures as not behind.
	var ahead SkewMeter
	ahead.Observe(&types.Header{Number: big.NewInt(1), Time: uint64(ours.Unix())}, ours.Add(-10*time.Second))
	ahead.Observe(&types.Header{Number: big.NewInt(2), Time: uint64(ours.Add(5 * time.Second).Unix())}, ours)
	if ahead.Behind() != 0 {
		t.Fatalf("a sequencer 5 s ahead: %s behind, want 0", ahead.Behind())
	}
}
