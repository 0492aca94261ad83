package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/pricerig/pricerig/numeric"
)

// The bodies of bars are written by hand for speed; these tests hold each one to the body the
// simulator wrote before with encoding/json and fmt (the reference renderers below), byte for
// byte, over random pages.

func TestAppendDecimalAndFixedMatchTheirText(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200_000 {
		v := r.Int64N(1 << uint(1+i%62))
		for _, scale := range []int{0, 1, 4, 8} {
			if got, want := string(AppendDecimal(nil, v, scale)), decimalText(v, scale); got != want {
				t.Fatalf("appendDecimal(%d, %d) = %q, decimalText %q", v, scale, got, want)
			}
		}
		if v > 1<<53 {
			continue
		}
		for _, n := range []int{0, 1, 2, 4, 5, 8} {
			if got, want := string(AppendFixed(nil, numeric.Scaled(v), n)), FixedText(numeric.Scaled(v), n); got != want {
				t.Fatalf("appendFixed(%d, %d) = %q, fixedText %q", v, n, got, want)
			}
		}
	}
}
