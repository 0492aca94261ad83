package yahoo

import (
	"testing"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

func TestHugeBodyKeepsOnlyTheWindow(t *testing.T) {
	adaptertest.HugeBody(t, adaptertest.Gen(hugeBody(adaptertest.HugeBars)...), func(s *sources.Stream) ([]sources.Bar, error) {
		bars, err := decode(s, "AAPL", adaptertest.HugeWindow)
		return sources.Tidy(bars, adaptertest.HugeWindow.From, adaptertest.HugeWindow.To), err
	}, 2880, 16<<20)
}
