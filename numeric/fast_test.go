package numeric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// edgeScaled are values where an int64 or 128-bit path would go wrong first: the ends of int64,
// zero and one around them, and prices at the ends of what ParsePrice accepts.
var edgeScaled = []Scaled{
	math.MinInt64, math.MinInt64 + 1, -One * MaxPrice, -1, 0, 1, 2, 3, One - 1, One, One + 1,
	One * MaxPrice, One*MaxPrice + 1, math.MaxInt64 / 1_000_000, math.MaxInt64/1_000_000 + 1,
	math.MaxInt64 / 10_000, math.MaxInt64 - 1, math.MaxInt64,
}

var edgeTolerances = []uint32{0, 1, 25, MaxToleranceBps, BpsDenominator, math.MaxUint32}

// checkFast compares both fast paths with their math/big references for one pair.
func checkFast(t *testing.T, v, m Scaled, tol uint32) {
	t.Helper()
	want := withinToleranceBig(v.Big(), m.Big(), tol)
	if got := WithinToleranceScaled(v, m, tol); got != want {
		t.Fatalf("WithinToleranceScaled(%d, %d, %d) = %v, the big.Int reference says %v", v, m, tol, got, want)
	}
	if got := WithinTolerance(v.Big(), m.Big(), tol); got != want {
		t.Fatalf("WithinTolerance(%d, %d, %d) = %v, the big.Int reference says %v", v, m, tol, got, want)
	}
	if got, want := DistanceCentiBps(v, m), distanceCentiBpsBig(v, m); got != want {
		t.Fatalf("DistanceCentiBps(%d, %d) = %d, the big.Int reference says %d", v, m, got, want)
	}
}

func TestFastPathsMatchBigOnEdges(t *testing.T) {
	for _, v := range edgeScaled {
		for _, m := range edgeScaled {
			for _, tol := range edgeTolerances {
				checkFast(t, v, m, tol)
			}
		}
	}
}

// TestFastPathsMatchBigOnPrices draws price pairs the way the reconciler sees them: a median and
// a value near it, where the tolerance test flips and the distance rounds.
func TestFastPathsMatchBigOnPrices(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 4))
	for range 200_000 {
		m := Scaled(rng.Int64N(int64(One)*MaxPrice) + 1)
		var v Scaled
		switch rng.IntN(3) {
		case 0: // exactly on a tolerance boundary, or one off it
			tol := int64(rng.IntN(MaxToleranceBps) + 1)
			v = m + Scaled(int64(m)*tol/BpsDenominator+rng.Int64N(3)-1)
		case 1: // a small difference
			v = m + Scaled(rng.Int64N(2001)-1000)
		default:
			v = Scaled(rng.Int64N(int64(One)*MaxPrice) + 1)
		}
		checkFast(t, v, m, uint32(rng.IntN(MaxToleranceBps+1)))
	}
}

// TestDistanceCentiBpsBeyondInt64 checks that a distance too large for the fast quotient still
// comes from the reference: a median of 1 and a huge value.
func TestDistanceCentiBpsBeyondInt64(t *testing.T) {
	for _, v := range []Scaled{math.MaxInt64, math.MinInt64, 1 << 60} {
		want := distanceCentiBps(v.Big(), big.NewInt(1))
		if got := DistanceCentiBps(v, 1); got != want.Int64() {
			t.Fatalf("DistanceCentiBps(%d, 1) = %d, want %s as Int64 %d", v, got, want, want.Int64())
		}
	}
}

func FuzzWithinToleranceMatchesBig(f *testing.F) {
	for _, v := range edgeScaled[:6] {
		f.Add(int64(v), int64(One), uint32(25))
	}
	f.Fuzz(func(t *testing.T, v, m int64, tol uint32) {
		checkFast(t, Scaled(v), Scaled(m), tol)
	})
}

func FuzzDistanceCentiBpsMatchesBig(f *testing.F) {
	f.Add(int64(One+12345), int64(One))
	f.Add(int64(math.MaxInt64), int64(1))
	f.Add(int64(math.MinInt64), int64(-1))
	f.Fuzz(func(t *testing.T, v, m int64) {
		if got, want := DistanceCentiBps(Scaled(v), Scaled(m)), distanceCentiBpsBig(Scaled(v), Scaled(m)); got != want {
			t.Fatalf("DistanceCentiBps(%d, %d) = %d, the big.Int reference says %d", v, m, got, want)
		}
	})
}
