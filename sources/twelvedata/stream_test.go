package twelvedata

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

func TestHugeBodyKeepsOnlyTheWindow(t *testing.T) {
	adaptertest.HugeBody(t, adaptertest.Gen(hugeBody(adaptertest.HugeBars)...), func(s *sources.Stream) ([]sources.Bar, error) {
		p, err := decode(s, "AAPL", time.UTC, adaptertest.HugeWindow)
		if err == nil && (p.n != adaptertest.HugeBars || !p.oldest.Equal(adaptertest.Minute(0))) {
			t.Errorf("page of %d values, oldest %v: want %d and %v", p.n, p.oldest, adaptertest.HugeBars, adaptertest.Minute(0))
		}
		return p.bars, err
	}, 2880, 16<<20)
}
