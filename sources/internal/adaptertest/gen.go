package adaptertest

import (
	"bytes"
	"io"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Part is a piece of a generated body: the literal Lit, or N rows written by Row (row i
// appended to dst) with Sep between them.
type Part struct {
	Lit string
	N   int
	Sep string
	Row func(dst []byte, i int) []byte
}

// Lit is a literal Part.
func Lit(s string) Part { return Part{Lit: s} }

// Rows is a Part of n rows separated by commas.
func Rows(n int, row func(dst []byte, i int) []byte) Part { return Part{N: n, Sep: ",", Row: row} }

// Gen is a body made of parts, written as it is read: it never holds more than one row, so a
// body of millions of bars costs the reader only what the reader keeps.
func Gen(parts ...Part) io.Reader { return &gen{parts: parts} }

// GenBytes is the generated body held whole, for benchmarks of decoders that take bytes.
func GenBytes(parts ...Part) []byte {
	var buf bytes.Buffer
	_, _ = io.Copy(&buf, Gen(parts...))
	return buf.Bytes()
}

type gen struct {
	parts []Part
	part  int
	row   int
	buf   []byte
}

func (g *gen) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.part >= len(g.parts) {
			return 0, io.EOF
		}
		pt := g.parts[g.part]
		switch {
		case pt.Row == nil:
			g.buf = append(g.buf[:0], pt.Lit...)
			g.part++
		case g.row >= pt.N:
			g.part, g.row = g.part+1, 0
		default:
			g.buf = g.buf[:0]
			// a few hundred rows at a time: fewer calls, still no more than a few KiB held
			for k := 0; k < 256 && g.row < pt.N; k++ {
				if g.row > 0 {
					g.buf = append(g.buf, pt.Sep...)
				}
				g.buf = pt.Row(g.buf, g.row)
				g.row++
			}
		}
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	if len(g.buf) == 0 {
		g.buf = g.buf[:0:cap(g.buf)]
	}
	return n, nil
}

// PeakHeap runs f and returns how far the live heap grew above where it stood before, at the
// most: the heap each garbage collection found live, sampled every 200µs from runtime/metrics
// (which does not stop the world). Reading a large body makes garbage, so collections run
// often; what a decoder holds shows in every one of them, what it drops in none.
func PeakHeap(t testing.TB, f func()) uint64 {
	t.Helper()
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			if v := read(); v > base {
				mu.Lock()
				peak = max(peak, v-base)
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	f()
	if v := read(); v > base {
		mu.Lock()
		peak = max(peak, v-base)
		mu.Unlock()
	}
	close(done)
	wg.Wait()
	return peak
}

// Minute is the start of bar i of a generated body: a minute apart from 2020-01-02T00:00Z, so
// 1.5 million bars reach into 2022.
func Minute(i int) time.Time { return genBase.Add(time.Duration(i) * time.Minute) }

var genBase = time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)

// Price appends bar i's close as a provider writes it: 100.00 to 199.99 by the cent.
func Price(dst []byte, i int) []byte {
	dst = strconv.AppendInt(dst, int64(100+i%100), 10)
	dst = append(dst, '.')
	c := (i / 100) % 100
	return append(dst, byte('0'+c/10), byte('0'+c%10))
}

// Volume appends bar i's volume.
func Volume(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(1000+i%5000), 10) }

// BenchBars runs one decode of n bars per iteration and reports bars/s by the wall clock and
// cpu-bars/s by the process's CPU time (user and system, collections included), which a loaded
// machine disturbs far less.
func BenchBars(b *testing.B, n int, decode func() (int, error)) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	for b.Loop() {
		if got, err := decode(); err != nil || got < n*99/100 {
			b.Fatal(got, err)
		}
	}
	used := cpu() - start
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "bars/s")
	b.ReportMetric(float64(n)*float64(b.N)/used.Seconds(), "cpu-bars/s")
}
