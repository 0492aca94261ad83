package adaptertest

import (
	"io"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
)

// HugeBars is how many bars a huge generated body holds: 1.5 million (a 54 MB body of such bars
// once took 640 MB to keep 2,851), a third of that under the race detector.
var HugeBars = map[bool]int{false: 1_500_000, true: 500_000}[raceBuild]

// HugeWindow is the two days of minutes in the middle of a huge body that a test keeps.
var HugeWindow = sources.Window{From: Minute(HugeBars/2 - 1440), To: Minute(HugeBars/2 + 1440)}

// HugeBody decodes a generated body of HugeBars bars keeping HugeWindow and checks that the
// decoder kept want bars (2880 where the body has every minute), all in the window, and that the
// heap grew by less than maxHeap while it read (a fraction of the body: it was not held). It
// returns the peak.
func HugeBody(t *testing.T, body io.Reader, decode func(s *sources.Stream) ([]sources.Bar, error), want int, maxHeap uint64) uint64 {
	t.Helper()
	var bars []sources.Bar
	var err error
	counted := &countReader{r: body}
	peak := PeakHeap(t, func() {
		s := sources.NewStream(counted)
		if bars, err = decode(s); err == nil {
			err = s.End()
		}
	})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	all := len(bars)
	bars = sources.Tidy(bars, HugeWindow.From, HugeWindow.To)
	if all != len(bars) || len(bars) != want {
		t.Fatalf("kept %d bars (%v), %d of them in %v, want %d", all, span(bars), len(bars), HugeWindow, want)
	}
	t.Logf("%d MB body, %d bars kept, heap grew %.1f MiB at the most", counted.n>>20, len(bars), float64(peak)/(1<<20))
	if uint64(counted.n) <= maxHeap {
		t.Fatalf("the body was only %d bytes, too small to show what the decoder holds", counted.n)
	}
	if peak > maxHeap {
		t.Fatalf("the heap grew by %d MiB reading a %d MiB body, want under %d MiB: the decoder holds what it does not keep",
			peak>>20, counted.n>>20, maxHeap>>20)
	}
	return peak
}

func span(bars []sources.Bar) string {
	if len(bars) == 0 {
		return "none"
	}
	return bars[0].Start.Format(time.RFC3339) + " … " + bars[len(bars)-1].Start.Format(time.RFC3339)
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
