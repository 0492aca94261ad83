package numeric

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// canonicalFloat32Float is CanonicalFloat32 as it was written with machine floats: strconv reads
// the text to a float64, and prints it as a float32 when it is one. It is the reference the
// integer version is held to, digit for digit and error for error; only tests use it.
//
// One change from the old code: strconv.ParseFloat misreads text with more than 800 significant
// digits before the point whenever it falls back to its slow path (its decimal counts at most 800
// digits toward the point: "5", 800 zeros and "e-800" reads as 0.5, and "5", 2000 zeros and
// "e-800", 5·10^1200, as 0.5 too, not out of range), so the reference hands strconv such text
// with the point moved to the front (pointFirst), which it reads right.
func canonicalFloat32Float(text string) (string, error) {
	s := strings.TrimSpace(text)
	if !decimalText.MatchString(s) {
		return "", fmt.Errorf("price %q: %w", clip(text), ErrNotNumber)
	}
	wide, err := strconv.ParseFloat(pointFirst(s), 64)
	if err != nil {
		return "", fmt.Errorf("price %q: %w", clip(text), ErrNotNumber)
	}
	narrow := float32(wide)
	if float64(narrow) != wide {
		return s, nil
	}
	return strconv.FormatFloat(float64(narrow), 'f', -1, 32), nil
}

// pointFirst rewrites decimal text with more than 800 significant digits before its point as
// the same number with the point first: "5000…0e-800" as "0.5000…0e1".
func pointFirst(s string) string {
	d := splitDecimal(s)
	whole := strings.TrimLeft(d.whole, "0")
	if len(whole) <= 800 {
		return s
	}
	sign := ""
	if d.neg {
		sign = "-"
	}
	return sign + "0." + whole + d.frac + "e" + strconv.Itoa(d.exp+len(whole))
}

// The two readings strconv gets wrong, which the old machine-float CanonicalFloat32 returned as
// "0.5" and CanonicalFloat32 reads right.
func TestCanonicalFloat32ReadsLongIntegers(t *testing.T) {
	if got, err := CanonicalFloat32("5" + strings.Repeat("0", 800) + "e-800"); err != nil || got != "5" {
		t.Errorf("5·10^800·10^-800 = %q, %v; want 5", got, err)
	}
	if got, err := CanonicalFloat32("5" + strings.Repeat("0", 2000) + "e-800"); !errors.Is(err, ErrNotNumber) {
		t.Errorf("5·10^1200 = %q, %v; want %v (past float64)", got, err, ErrNotNumber)
	}
}

// sameAsFloatReference checks CanonicalFloat32 against the machine-float reference on s, and the
// 128-bit reading of the decimal against the math/big one wherever the 128-bit one applies.
func sameAsFloatReference(t *testing.T, s string) {
	t.Helper()
	got, err := CanonicalFloat32(s)
	want, wantErr := canonicalFloat32Float(s)
	if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("CanonicalFloat32(%q) = %q, %v; strconv gives %q, %v", s, got, err, want, wantErr)
	}
	trimmed := strings.TrimSpace(s)
	if !decimalText.MatchString(trimmed) {
		return
	}
	d := splitDecimal(trimmed)
	m, e, err := d.nearestFloat64()
	bm, be, berr := d.nearestFloat64Big()
	if m != bm || (m != 0 && e != be) || (err == nil) != (berr == nil) {
		t.Fatalf("%q: nearestFloat64 = %d·2^%d, %v; math/big gives %d·2^%d, %v", s, m, e, err, bm, be, berr)
	}
}

// checkFloat32 holds CanonicalFloat32 to strconv on the float32 with bits b, read from the text
// Yahoo sends: the float64 printing of the widened float32.
func checkFloat32(t *testing.T, b uint32) {
	t.Helper()
	f := math.Float32frombits(b)
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return
	}
	want := strconv.FormatFloat(float64(f), 'f', -1, 32)
	wide := strconv.FormatFloat(float64(f), 'f', -1, 64)
	if got, err := CanonicalFloat32(wide); err != nil || got != want {
		t.Fatalf("bits %#08x: CanonicalFloat32(%q) = %q, %v; strconv prints %q", b, wide, got, err, want)
	}
}

// checkLevels holds the 64-bit arithmetic of the shortest decimal to the math/big arithmetic on
// every granularity shortestFloat32 may look at for the float32 with bits b, so the math/big
// path is right over the whole range, not only where the 64-bit one gives up.
func checkLevels(t *testing.T, b uint32) {
	t.Helper()
	if b&(1<<31-1) == 0 || b>>23&0xff == 0xff { // zero, NaN, Inf
		return
	}
	mant, exp := float32Parts(b)
	qStart := floorLog10Pow2(exp) + 1
	for q := qStart - 2; q <= qStart; q++ {
		iv := intervalOf(mant, exp)
		a2, a5 := max(iv.unit-q, 0), max(-q, 0)
		b2, b5 := max(q-iv.unit, 0), max(q, 0)
		c, found := nearestMultiple(mant, exp, q)
		bc, bfound := nearestMultipleBig(iv, a2, a5, b2, b5)
		if c != bc || found != bfound {
			t.Fatalf("bits %#08x at 10^%d: nearestMultiple = %d, %v; math/big gives %d, %v", b, q, c, found, bc, bfound)
		}
	}
}

// float32Parts reads a float32's bits (not NaN, Inf or zero) as mant·2^exp, the way float32Of
// gives it.
func float32Parts(b uint32) (mant uint32, exp int) {
	mant, biased := b&(1<<23-1), int(b>>23&0xff)
	if biased == 0 {
		return mant, -149
	}
	return mant | 1<<23, biased - 150
}

func bitsOf(f float32) uint32 { return math.Float32bits(f) }

// Every bit pattern in windows of float32s: prices in the ranges Yahoo quotes, the subnormals
// and the normal boundary, the top of the range, and a few thousand around every power of two
// (the asymmetric interval), each also negated.
func TestCanonicalFloat32DenseRanges(t *testing.T) {
	window := uint32(1 << 13)
	if testing.Short() {
		window = 1 << 10
	}
	type span struct{ from, n uint32 }
	spans := []span{
		{bitsOf(0.0001), window}, {bitsOf(0.001) - window, window}, // 0.0001–0.001
		{bitsOf(1), window}, {bitsOf(1.5), window}, {bitsOf(2) - window, window}, // 1–2
		{bitsOf(100), window}, {bitsOf(103.64) - window/2, window}, {bitsOf(1000) - window, window}, // 100–1000
		{0, window}, {1<<23 - window/2, window}, // the least subnormals, the subnormal/normal boundary
		{bitsOf(math.MaxFloat32) - window + 1, window}, // up to the largest float32
	}
	for e := uint32(1); e < 255; e++ { // around each power of two
		spans = append(spans, span{e<<23 - 32, 64})
	}
	for _, sp := range spans {
		for b := sp.from; b-sp.from < sp.n; b++ {
			checkFloat32(t, b)
			if b%16 == 0 {
				checkFloat32(t, b|1<<31)
				checkLevels(t, b)
			}
		}
	}
}

// A fixed-seed draw of float32 bit patterns over the whole range, both signs.
func TestCanonicalFloat32RandomBits(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 7))
	n := 300_000
	if testing.Short() {
		n = 20_000
	}
	for i := range n {
		b := r.Uint32()
		checkFloat32(t, b)
		if i%64 == 0 {
			checkLevels(t, b)
		}
	}
}

// float32Texts are the texts a float32 f may arrive as or be confused with: Yahoo's widened
// printing, the same in exponent form, and texts that are not a float32 (or are the float32 only
// through the float64 they round to): the float32's own shortest text, the widened text one unit
// off in its last digit, with an extra digit, and the float32's exact decimal expansion.
func float32Texts(f float32) []string {
	wide := strconv.FormatFloat(float64(f), 'f', -1, 64)
	bump := []byte(wide)
	if i := len(bump) - 1; bump[i] != '9' {
		bump[i]++
	} else {
		bump[i]--
	}
	return []string{
		wide,
		strconv.FormatFloat(float64(f), 'e', -1, 64),
		strconv.FormatFloat(float64(f), 'f', -1, 32),
		string(bump),
		wide + "1",
		strconv.FormatFloat(float64(f), 'f', 160, 64),
	}
}

func TestCanonicalFloat32Texts(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 8))
	n := 5_000
	if testing.Short() {
		n = 500
	}
	for i := range n {
		b := r.Uint32()
		if i%2 == 0 { // prices: a random float32 between 0.0001 and 100,000
			b = bitsOf(0.0001) + r.Uint32N(bitsOf(100_000)-bitsOf(0.0001))
		}
		f := math.Float32frombits(b)
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			continue
		}
		for _, s := range float32Texts(f) {
			sameAsFloatReference(t, s)
		}
	}
}

var wholeBinades = flag.Bool("float32.binades", false, "TestCanonicalFloat32WholeBinades: every float32 of the price binades, the subnormals and the top binade (CPU minutes)")

// TestCanonicalFloat32WholeBinades checks every float32 of whole binades — 2^-14 to 2^-10
// (0.0001–0.001), 1 to 2, 2^6 to 2^10 (100–1000), the subnormals and the top binade, 92 million
// in all — the shortest decimal against strconv and the widened text read back to the same
// float32. The sign only adds a '-', so only positive ones. It takes CPU minutes, so it runs only
// when asked:
//
//	go test -run WholeBinades ./numeric/ -float32.binades
func TestCanonicalFloat32WholeBinades(t *testing.T) {
	if !*wholeBinades {
		t.Skip("92 million float32s take minutes: run with -float32.binades")
	}
	type span struct{ from, to uint32 } // bit patterns [from, to)
	spans := []span{
		{bitsOf(0x1p-14), bitsOf(0x1p-10)},
		{bitsOf(1), bitsOf(2)},
		{bitsOf(0x1p6), bitsOf(0x1p10)},
		{1, 1 << 23},
		{bitsOf(0x1p127), bitsOf(math.MaxFloat32) + 1},
	}
	workers := uint32(runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var want, wide []byte
			for _, sp := range spans {
				for b := sp.from + w; b < sp.to; b += workers {
					f := math.Float32frombits(b)
					mant, exp := float32Parts(b)
					c, q := shortestFloat32(mant, exp)
					want = strconv.AppendFloat(want[:0], float64(f), 'f', -1, 32)
					if got := formatF(false, c, q); got != string(want) {
						t.Errorf("bits %#08x: shortest %q, strconv prints %q", b, got, want)
						return
					}
					wide = strconv.AppendFloat(wide[:0], float64(f), 'f', -1, 64)
					m, e, err := splitDecimal(string(wide)).nearestFloat64()
					if err != nil {
						t.Errorf("bits %#08x: reading %s: %v", b, wide, err)
						return
					}
					if gm, ge, ok := float32Of(m, e); !ok || gm != mant || ge != exp {
						t.Errorf("bits %#08x: %s read as %d·2^%d (%v), want %d·2^%d", b, wide, gm, ge, ok, mant, exp)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// pow2Text is the exact decimal of 2^e.
func pow2Text(e int) string {
	if e >= 0 {
		return new(big.Int).Lsh(big.NewInt(1), uint(e)).String()
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e))).FloatString(-e)
}

// canonicalSeeds are the edges of the reading: signs and zeros, float64's overflow edge (half a
// step past the largest float64, 2^1024 - 2^970) and its zero edge (half the least subnormal,
// 2^-1075), each exactly and a hair either side, exponents of three digits, long digit strings,
// the float32 edges (largest, least normal, least subnormal, 2^-12 whose tie rounds up), texts
// half way between two float32s, and what the grammar refuses.
var canonicalSeeds = func() []string {
	overflow := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 1024), new(big.Int).Lsh(big.NewInt(1), 970)).String()
	zeroEdge := pow2Text(-1075)
	seeds := []string{
		"103.63999938964844", "103.6500015258789", "86.5", "103.64", "177.1234", "0.10000000149011612",
		"0", "-0", "+0", "0.0", "-0.000", "0e5", ".0", "0.", "00000", "-0e-999",
		"1e-400", "-1e-400", "1e-999", "1e999", "-1e999", "1e308", "1e309", "1.7976931348623157e308",
		"3.4028234663852886e38", "340282346638528859811704183484516925440", "340282356779733661637539395458142568448",
		"3.5e38", "1.1754943508222875e-38", "1e-45", "1.401298464324817e-45", "7e-46", "0.00024414062500000000",
		"0.000244140625", "0.00024414063", "5.551115123125783e-17", "+5", "5.", ".5", "-.5", "+.5",
		"1.0000000596046448", "1.00000005960464477539062", "1.000000059604644775390625", "1.0000000596046447753906251",
		"16777217", "16777216.0000000000000000000001", "33554434", "1.2e2", "1E-2", "  103.63999938964844\n",
		"123456789012345678901234567890", "0.000000000000000000000000000123", strings.Repeat("9", 40),
		"0." + strings.Repeat("0", 40) + "1", "1" + strings.Repeat("0", 400) + "e-400",
		overflow, overflow + "1", overflow[:len(overflow)-1] + string(overflow[len(overflow)-1]-1),
		zeroEdge, zeroEdge + "1", zeroEdge[:len(zeroEdge)-1] + string(zeroEdge[len(zeroEdge)-1]-1),
		"5" + strings.Repeat("0", 800) + "e-800", "-5" + strings.Repeat("0", 2000) + ".5e-800",
		"0." + strings.Repeat("0", 1200) + "5e999", strings.Repeat("1", 900) + "." + strings.Repeat("2", 900) + "e-899",
		"NaN", "Inf", "-Inf", "0x1p3", "1_000", "", " ", "1e", "1e1000", "1.2.3", "--1", "\"103.64\"",
	}
	for _, e := range []int{-149, -127, -126, -125, -12, -1, 0, 1, 23, 24, 127} {
		seeds = append(seeds, pow2Text(e))
	}
	return seeds
}()

func TestCanonicalFloat32Seeds(t *testing.T) {
	for _, s := range canonicalSeeds {
		sameAsFloatReference(t, s)
	}
}

// The grammar walked with a fixed seed: short and long digit strings, points, exponents of up
// to three digits, signs and white space, so the 128-bit reading, the math/big one and the
// errors all meet the reference.
func TestCanonicalFloat32Grammar(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 9))
	pick := func(opts ...string) string { return opts[r.IntN(len(opts))] }
	digits := func(max int) string {
		var b strings.Builder
		for range r.IntN(max + 1) {
			b.WriteByte("0001234567895"[r.IntN(13)])
		}
		return b.String()
	}
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	for range n {
		s := pick("", "", "+", "-") + digits([]int{3, 12, 30}[r.IntN(3)]) + pick("", ".", ".") + digits(20)
		if r.IntN(3) == 0 {
			s += pick("e", "E") + pick("", "+", "-") + digits(3)
		}
		if r.IntN(10) == 0 {
			s = pick(" ", "\t") + s + pick(" ", "\n")
		}
		sameAsFloatReference(t, s)
	}
}

// TestFloorLog10Pow2 checks the integer ⌊log10(2^e)⌋ against math/big over the range its comment
// promises, which holds every float32 exponent: 10^k ≤ 2^e < 10^(k+1).
func TestFloorLog10Pow2(t *testing.T) {
	pow := func(base int64, n int) *big.Rat {
		p := new(big.Int).Exp(big.NewInt(base), big.NewInt(int64(max(n, -n))), nil)
		if n < 0 {
			return new(big.Rat).SetFrac(big.NewInt(1), p)
		}
		return new(big.Rat).SetInt(p)
	}
	for e := -1650; e <= 1650; e++ {
		k := floorLog10Pow2(e)
		p2 := pow(2, e)
		if pow(10, k).Cmp(p2) > 0 || pow(10, k+1).Cmp(p2) <= 0 {
			t.Fatalf("floorLog10Pow2(%d) = %d", e, k)
		}
	}
}

func FuzzCanonicalFloat32(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameAsFloatReference(t, s) })
}

// yahooCloses are widened float32 closes as Yahoo sends them, and a few that are not float32s.
var yahooCloses = func() []string {
	var out []string
	for cents := 10_000; cents < 60_000; cents += 997 {
		f, _ := strconv.ParseFloat(fmt.Sprintf("%d.%02d", cents/100, cents%100), 32)
		out = append(out, strconv.FormatFloat(float64(float32(f)), 'f', -1, 64))
	}
	return append(out, "103.64", "232.79", "86.5")
}()

// BenchmarkCanonicalFloat32 runs the integer version and the machine-float reference over the
// same Yahoo closes: whole (both check the grammar with the same regexp first, most of the time)
// and their arithmetic alone (the text is known good).
func BenchmarkCanonicalFloat32(b *testing.B) {
	exactArith := func(s string) (string, error) {
		d := splitDecimal(s)
		m, e, err := d.nearestFloat64()
		if err != nil || m == 0 {
			return "", err
		}
		mant, exp, ok := float32Of(m, e)
		if !ok {
			return s, nil
		}
		c, q := shortestFloat32(mant, exp)
		return formatF(d.neg, c, q), nil
	}
	floatArith := func(s string) (string, error) {
		wide, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "", err
		}
		if narrow := float32(wide); float64(narrow) == wide {
			return strconv.FormatFloat(float64(narrow), 'f', -1, 32), nil
		}
		return s, nil
	}
	for _, bc := range []struct {
		name  string
		canon func(string) (string, error)
	}{
		{"exact", CanonicalFloat32},
		{"float", canonicalFloat32Float},
		{"exact-arithmetic", exactArith},
		{"float-arithmetic", floatArith},
	} {
		b.Run(bc.name, func(b *testing.B) {
			start := cpuTime()
			i := 0
			for b.Loop() {
				if _, err := bc.canon(yahooCloses[i%len(yahooCloses)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's CPU time (user and system): on shared cores it moves far less with
// the load than the wall clock ns/op does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
