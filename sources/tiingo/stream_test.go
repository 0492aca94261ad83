package tiingo

import (
	"testing"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

func TestHugeBodyKeepsOnlyTheWindow(t *testing.T) {
	adaptertest.HugeBody(t, adaptertest.Gen(hugeBody(adaptertest.HugeBars)...), func(s *sources.Stream) ([]sources.Bar, error) {
		return Decode(s, adaptertest.HugeWindow)
	}, 2880, 16<<20)
}
