package numeric

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// CanonicalFloat32 rewrites a float32 that a provider printed as a float64 (Yahoo's 1-minute
// values, e.g. "103.63999938964844") into the shortest decimal that round-trips the float32
// ("103.64"), which is the price the provider stored. Text that is not exactly a float32 is
// returned unchanged (trimmed): it was never a widened float32, so its digits are already the
// price.
//
// "Exactly a float32" is read the way the provider's text was made: the text stands for the
// float64 nearest to it (ties to even, as strconv.ParseFloat reads it), and that float64 must be
// a float32. The answer is, digit for digit, strconv.FormatFloat(float64(f), 'f', -1, 32) of that
// float32 f — but reached in integers only: no float type holds any part of the value.
// Text past float64's range is not a number. (strconv.ParseFloat itself misreads text with more
// than 800 digits before the point, which the machine-float version passed on; this reads any
// length exactly.)
func CanonicalFloat32(text string) (string, error) {
	s := strings.TrimSpace(text)
	if !decimalText.MatchString(s) {
		return "", fmt.Errorf("price %q: %w", clip(text), ErrNotNumber)
	}
	d := splitDecimal(s)
	m, e, err := d.nearestFloat64()
	if err != nil {
		return "", fmt.Errorf("price %q: %w", clip(text), ErrNotNumber)
	}
	if m == 0 {
		return formatF(d.neg, 0, 0), nil
	}
	mant, exp, ok := float32Of(m, e)
	if !ok {
		return s, nil
	}
	c, q := shortestFloat32(mant, exp)
	return formatF(d.neg, c, q), nil
}

// decimalParts is text that decimalText matched, cut into its pieces: the value is
// ±(whole.frac) × 10^exp.
type decimalParts struct {
	neg         bool
	whole, frac string
	exp         int
}

func splitDecimal(s string) decimalParts {
	var d decimalParts
	if s[0] == '+' || s[0] == '-' {
		d.neg, s = s[0] == '-', s[1:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			d.exp, _ = strconv.Atoi(s[i+1:]) // one to three digits and a sign: the grammar said so
			s = s[:i]
			break
		}
	}
	d.whole, d.frac, _ = strings.Cut(s, ".")
	return d
}

// errFloat64Range is a decimal beyond the largest float64: strconv.ParseFloat's range error.
var errFloat64Range = errors.New("beyond float64")

// nearestFloat64 returns the float64 nearest to |d| (ties to even) as m·2^e with 2^52 ≤ m < 2^53,
// or m = 0 when it is zero. A magnitude whose float64 is subnormal but not zero comes back as an
// m·2^e below 2^-1022, which is no float32 (the caller only needs to tell it from zero), and
// one past the largest float64 is errFloat64Range.
//
// Up to 19 significant digits and a decimal exponent in [-27, 19] (every price a provider sends)
// the arithmetic is 128-bit; anything else goes to math/big.
func (d decimalParts) nearestFloat64() (m uint64, e int, err error) {
	mant, exp10, ok := d.mantissa64()
	switch {
	case !ok:
		return d.nearestFloat64Big()
	case mant == 0:
		return 0, 0, nil
	case 0 <= exp10 && exp10 <= 19:
		hi, lo := bits.Mul64(mant, pow10[exp10])
		m, e = round53(hi, lo, false)
		return m, e, nil
	case -27 <= exp10 && exp10 < 0:
		// mant·10^exp10 = mant / 5^n / 2^n. Divide mant, its top bit moved to bit 63, by 5^n to a
		// 128-bit quotient: at least 65 significant bits, and a remainder that is the sticky bit.
		n := -exp10
		den := pow5[n]
		sh := bits.LeadingZeros64(mant)
		a := mant << sh
		hi, r := a/den, a%den
		lo, r := bits.Div64(r, 0, den)
		m, e = round53(hi, lo, r != 0)
		return m, e - 64 - sh - n, nil
	}
	return d.nearestFloat64Big()
}

// mantissa64 reads the digits as one integer with leading and trailing zeros dropped:
// |d| = mant × 10^exp10. ok is false when more than 19 significant digits are left.
func (d decimalParts) mantissa64() (mant uint64, exp10 int, ok bool) {
	nd, zeros := 0, 0 // significant digits taken; zeros read since the last nonzero digit
	for _, part := range [2]string{d.whole, d.frac} {
		for i := 0; i < len(part); i++ {
			c := part[i]
			if c == '0' {
				if nd > 0 {
					zeros++
				}
				continue
			}
			if nd+zeros+1 > 19 {
				return 0, 0, false
			}
			mant = mant*pow10[zeros+1] + uint64(c-'0')
			nd += zeros + 1
			zeros = 0
		}
	}
	return mant, d.exp - len(d.frac) + zeros, true
}

// nearestFloat64Big is nearestFloat64 in math/big, for any number of digits and any exponent.
func (d decimalParts) nearestFloat64Big() (m uint64, e int, err error) {
	num, ok := new(big.Int).SetString(d.whole+d.frac, 10)
	if !ok { // unreachable: the grammar gives at least one digit and nothing else
		return 0, 0, errFloat64Range
	}
	if num.Sign() == 0 {
		return 0, 0, nil
	}
	den := big.NewInt(1)
	if p := d.exp - len(d.frac); p >= 0 {
		num.Mul(num, pow10Big(p))
	} else {
		den = pow10Big(-p)
	}
	// Scale num/den by 2^-s so that its integer part has 55 or 56 bits, and round that.
	s := num.BitLen() - den.BitLen() - 55
	n, dd := new(big.Int).Set(num), new(big.Int).Set(den)
	if s >= 0 {
		dd.Lsh(dd, uint(s))
	} else {
		n.Lsh(n, uint(-s))
	}
	quo, rem := n.QuoRem(n, dd, new(big.Int))
	m, e = round53(0, quo.Uint64(), rem.Sign() != 0)
	e += s
	switch {
	case e+52 > 1023: // m·2^e ≥ 2^1024: past the largest float64
		return 0, 0, errFloat64Range
	case e+52 < -1022:
		// A float64 subnormal, or zero: zero exactly when the value is at most half the least
		// subnormal, 2^-1075 (the tie goes to zero, the even neighbour).
		if num.Lsh(num, 1075).Cmp(den) <= 0 {
			return 0, 0, nil
		}
	}
	return m, e, nil
}

// round53 rounds the integer hi·2^64 + lo (not zero), with sticky set when nonzero bits follow
// below it, to 53 significant bits, half to even: the value ≈ m·2^e, 2^52 ≤ m < 2^53.
func round53(hi, lo uint64, sticky bool) (m uint64, e int) {
	n := bits.Len64(lo)
	if hi != 0 {
		n = 64 + bits.Len64(hi)
	}
	if n <= 53 { // exact; sticky bits sit below lo's last bit, less than half a unit of m
		return lo << (53 - n), n - 53
	}
	k := uint(n - 53)
	m = shr128(hi, lo, k)
	half := shr128(hi, lo, k-1)&1 == 1
	below := sticky || lowBits128(hi, lo, k-1)
	if half && (below || m&1 == 1) {
		m++
		if m == 1<<53 {
			m, k = 1<<52, k+1
		}
	}
	return m, int(k)
}

// shr128 returns the low 64 bits of (hi·2^64 + lo) >> k, for k < 128.
func shr128(hi, lo uint64, k uint) uint64 {
	if k >= 64 {
		return hi >> (k - 64)
	}
	return lo>>k | hi<<(64-k)
}

// lowBits128 reports whether any of the lowest k bits of hi·2^64 + lo is set, for k < 128.
func lowBits128(hi, lo uint64, k uint) bool {
	switch {
	case k == 0:
		return false
	case k <= 64:
		return lo<<(64-k) != 0
	}
	return lo != 0 || hi<<(128-k) != 0
}

// float32Of reports whether m·2^e (m > 0) is a float32, and gives it in float32's own terms,
// mant·2^exp: 2^23 ≤ mant < 2^24 when it is normal, mant < 2^23 and exp = -149 when subnormal.
func float32Of(m uint64, e int) (mant uint32, exp int, ok bool) {
	tz := bits.TrailingZeros64(m)
	m, e = m>>tz, e+tz
	n := bits.Len64(m)
	top := e + n - 1 // 2^top ≤ m·2^e < 2^(top+1)
	switch {
	case n > 24 || e < -149 || top > 127:
		return 0, 0, false
	case top < -126:
		return uint32(m << (e + 149)), -149, true
	}
	return uint32(m << (24 - n)), e - (24 - n), true
}

// shortestFloat32 returns c·10^q, the decimal strconv.FormatFloat(float64(f), 'f', -1, 32) prints
// for the float32 f = mant·2^exp (mant > 0), trailing zeros of c dropped.
//
// The decimals that read back as f are those in its rounding interval: from half way to the
// float32 below to half way to the float32 above, both ends included when mant is even (reading
// rounds a tie to the even mantissa). When mant is 2^23 the float32 below is half as far, so the
// interval reaches only a quarter step down — strconv takes it so at 2^-126 too, where the float32
// below (the largest subnormal) is a whole step away, and so does this. The printed decimal has
// the coarsest granularity 10^q of any decimal in the interval; of the multiples of 10^q inside
// it, the one nearest f, a tie going to the even c, except for mant = 2^23, where strconv rounds
// the tie up (the one such tie among float32s is 2^-12, printed 0.00024414063).
func shortestFloat32(mant uint32, exp int) (c uint64, q int) {
	// 10^qStart exceeds the interval's width (at most 2^exp), so at most one multiple of
	// 10^qStart lies in it, and then every coarser granularity holds that one or none. Two
	// levels finer the width (at least 3/4·2^exp) spans a whole step: there is always one.
	qStart := floorLog10Pow2(exp) + 1
	for q = qStart; q >= qStart-2; q-- {
		c, found := nearestMultiple(mant, exp, q)
		if found {
			for c%10 == 0 && c != 0 {
				c, q = c/10, q+1
			}
			return c, q
		}
	}
	panic(fmt.Sprintf("numeric: no decimal in the rounding interval of %d·2^%d", mant, exp)) // unreachable, see above
}

// floorLog10Pow2 is ⌊log10(2^e)⌋, exact for every e in [-1650, 1650] (78913/2^18 is log10(2)
// rounded up far enough; TestFloorLog10Pow2 checks every float32 exponent against math/big).
func floorLog10Pow2(e int) int { return (e * 78913) >> 18 }

// f32Interval is a float32 mant·2^exp and its rounding interval, all three as integers in units
// of 2^(exp-2): [lo, hi] around v, the ends included when incl.
type f32Interval struct {
	lo, v, hi  uint64
	incl, asym bool
	unit       int // exp - 2
}

func intervalOf(mant uint32, exp int) f32Interval {
	v := uint64(mant) << 2
	iv := f32Interval{lo: v - 2, v: v, hi: v + 2, incl: mant%2 == 0, unit: exp - 2}
	if mant == 1<<23 {
		iv.lo, iv.asym = v-1, true
	}
	return iv
}

// nearestMultiple finds the integers c with c·10^q in the rounding interval of mant·2^exp and
// returns the one strconv prints (see shortestFloat32); found is false when there is none.
// It works in uint64 when the scaled ends fit (every price: the exponents of both 2 and 5 are
// small there) and in math/big when they do not.
func nearestMultiple(mant uint32, exp, q int) (c uint64, found bool) {
	iv := intervalOf(mant, exp)
	// c·10^q against x·2^unit: compare c·den with x·num, num = 2^a2·5^a5, den = 2^b2·5^b5.
	a2, a5 := max(iv.unit-q, 0), max(-q, 0)
	b2, b5 := max(q-iv.unit, 0), max(q, 0)
	num, ok1 := pow2x5(a2, a5)
	den, ok2 := pow2x5(b2, b5)
	if h, _ := bits.Mul64(iv.hi, num); !ok1 || !ok2 || h != 0 || den >= 1<<62 {
		return nearestMultipleBig(iv, a2, a5, b2, b5)
	}
	first, fr := iv.lo*num/den, iv.lo*num%den
	last, lr := iv.hi*num/den, iv.hi*num%den
	if fr != 0 || !iv.incl {
		first++ // the ceiling, or past an excluded end
	}
	if lr == 0 && !iv.incl {
		last-- // hi·num ≥ den·1 when lr == 0, so this stays ≥ 0
	}
	if first > last {
		return 0, false
	}
	near, vr := iv.v*num/den, iv.v*num%den
	return pick(first, last, near, cmpHalf(2*vr, den), iv.asym), true
}

// pick is the multiple strconv prints: near, rounded by how the value's remainder compares with
// half a step (-1, 0, 1), the tie going to even (up when asym), then moved into [first, last].
func pick(first, last, near uint64, half int, asym bool) uint64 {
	if half > 0 || (half == 0 && (asym || near%2 == 1)) {
		near++
	}
	return min(max(near, first), last)
}

func cmpHalf(twice, den uint64) int {
	switch {
	case twice < den:
		return -1
	case twice > den:
		return 1
	}
	return 0
}

// nearestMultipleBig is nearestMultiple's arithmetic in math/big, for the float32s far from any
// price (subnormals, the largest ones) whose scaled ends pass 64 bits.
func nearestMultipleBig(iv f32Interval, a2, a5, b2, b5 int) (uint64, bool) {
	num := pow2x5Big(a2, a5)
	den := pow2x5Big(b2, b5)
	scaled := func(x uint64) (quo, rem *big.Int) {
		n := new(big.Int).SetUint64(x)
		return n.QuoRem(n.Mul(n, num), den, new(big.Int))
	}
	first, fr := scaled(iv.lo)
	last, lr := scaled(iv.hi)
	near, vr := scaled(iv.v)
	one := big.NewInt(1)
	if fr.Sign() != 0 || !iv.incl {
		first.Add(first, one)
	}
	if lr.Sign() == 0 && !iv.incl {
		last.Sub(last, one)
	}
	if first.Cmp(last) > 0 {
		return 0, false
	}
	// first ≤ last: the interval is at most ten steps of 10^q wide (see shortestFloat32), so the
	// three are within a few steps of f/10^q < 2^25·10^3, far inside a uint64.
	half := vr.Lsh(vr, 1).Cmp(den)
	return pick(first.Uint64(), last.Uint64(), near.Uint64(), half, iv.asym), true
}

// pow2x5 is 2^a·5^b when it fits in a uint64.
func pow2x5(a, b int) (uint64, bool) {
	if b >= len(pow5) || a >= 64 {
		return 0, false
	}
	p := pow5[b]
	if bits.LeadingZeros64(p) <= a {
		return 0, false
	}
	return p << a, true
}

func pow2x5Big(a, b int) *big.Int {
	p := new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(b)), nil)
	return p.Lsh(p, uint(a))
}

func pow10Big(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// pow10[i] = 10^i and pow5[i] = 5^i, every power a uint64 holds.
var pow10, pow5 = func() (p10 [20]uint64, p5 [28]uint64) {
	p10[0], p5[0] = 1, 1
	for i := 1; i < len(p10); i++ {
		p10[i] = p10[i-1] * 10
	}
	for i := 1; i < len(p5); i++ {
		p5[i] = p5[i-1] * 5
	}
	return p10, p5
}()

// formatF prints ±c·10^q the way strconv's 'f' format does: no exponent, no trailing zeros after
// the point, "0." before a fraction below one.
func formatF(neg bool, c uint64, q int) string {
	var buf [64]byte // the longest float32 prints in 48: "-0." and 44 zeros and "1"
	out := buf[:0]
	if neg {
		out = append(out, '-')
	}
	var dig [20]byte
	digits := strconv.AppendUint(dig[:0], c, 10)
	switch {
	case q >= 0:
		out = append(out, digits...)
		if c != 0 {
			for range q {
				out = append(out, '0')
			}
		}
	case len(digits) > -q:
		point := len(digits) + q
		out = append(append(append(out, digits[:point]...), '.'), digits[point:]...)
	default:
		out = append(out, '0', '.')
		for range -q - len(digits) {
			out = append(out, '0')
		}
		out = append(out, digits...)
	}
	return string(out)
}
