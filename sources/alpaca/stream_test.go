package alpaca

import (
	"testing"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

func TestHugeBodyKeepsOnlyTheWindow(t *testing.T) {
	adaptertest.HugeBody(t, adaptertest.Gen(hugeBody(adaptertest.HugeBars)...), func(s *sources.Stream) ([]sources.Bar, error) {
		p, err := decode(s, []string{"AAPL"}, false, adaptertest.HugeWindow)
		return p.bars["AAPL"], err
	}, 2880, 16<<20)
}
