package udf

import (
	"testing"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/internal/adaptertest"
)

func TestHugeBodyKeepsOnlyTheWindow(t *testing.T) {
	decode := func(s *sources.Stream) ([]sources.Bar, error) { return Decode(s, adaptertest.HugeWindow) }
	t.Run("time first", func(t *testing.T) {
		adaptertest.HugeBody(t, adaptertest.Gen(hugeBody(adaptertest.HugeBars, true)...), decode, 2880, 16<<20)
	})
	// Finnhub's order: c comes before t, so it is held whole until t says which rows to keep,
	// at about ten bytes a bar and up to twice that while its buffer grows (the body spends
	// forty-odd on each bar; encoding/json's []json.RawMessage of every column took five times
	// that); v, after t, keeps only the window.
	t.Run("closes first", func(t *testing.T) {
		peak := adaptertest.HugeBody(t, adaptertest.Gen(hugeBody(adaptertest.HugeBars, false)...), decode, 2880, uint64(adaptertest.HugeBars)*24)
		if peak < uint64(adaptertest.HugeBars)*4 {
			t.Errorf("the heap grew by %d bytes: the close column of %d rows cannot have been held", peak, adaptertest.HugeBars)
		}
	})
}
