package alphavantage

import (
	"testing"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

func TestHugeBodyKeepsOnlyTheWindow(t *testing.T) {
	want := 0 // the window's minutes but those starting at 03:59 (see body)
	for m := adaptertest.HugeWindow.From; m.Before(adaptertest.HugeWindow.To); m = m.Add(60e9) {
		if ny := m.In(market.NewYork); ny.Hour() != 3 || ny.Minute() != 59 {
			want++
		}
	}
	adaptertest.HugeBody(t, adaptertest.Gen(hugeBody(adaptertest.HugeBars)...), func(s *sources.Stream) ([]sources.Bar, error) {
		m, err := decode(s, "AAPL", true, adaptertest.HugeWindow)
		if m.warning != "" {
			t.Errorf("warning %q", m.warning)
		}
		return sources.Tidy(m.bars, adaptertest.HugeWindow.From, adaptertest.HugeWindow.To), err
	}, want, 16<<20)
}
