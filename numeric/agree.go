package numeric

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
)

// Kind is a job's answer kind, numbered as publishJob takes it.
type Kind uint8

const (
	// Exact answers must match bit for bit.
	Exact Kind = 0
	// Numeric answers are numbers compared with the median.
	Numeric Kind = 1
)

func (k Kind) String() string {
	switch k {
	case Exact:
		return "exact"
	case Numeric:
		return "numeric"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Limits of a job as the seed's publishJob table sets them.
const (
	MinQuorum       = 2
	MaxQuorum       = 5
	MinToleranceBps = 1
	MaxToleranceBps = 2000
	BpsDenominator  = 10_000
)

// The seed's limits of a job's price (0.000001 to 1 ETH) and slash (up to 0.01 ETH), in wei.
var (
	MinPriceWei = big.NewInt(1_000_000_000_000)
	MaxPriceWei = big.NewInt(1_000_000_000_000_000_000)
	MaxSlashWei = big.NewInt(10_000_000_000_000_000)
)

// Rule is what a job says about agreement.
type Rule struct {
	Kind         Kind
	Quorum       int    // rigs drawn per task, 2..5
	ToleranceBps uint32 // NUMERIC only, 1..2000; 0 for EXACT
}

// Validate checks the rule against the seed's limits.
func (r Rule) Validate() error {
	if r.Quorum < MinQuorum || r.Quorum > MaxQuorum {
		return fmt.Errorf("quorum %d is outside %d..%d", r.Quorum, MinQuorum, MaxQuorum)
	}
	switch r.Kind {
	case Numeric:
		if r.ToleranceBps < MinToleranceBps || r.ToleranceBps > MaxToleranceBps {
			return fmt.Errorf("tolerance %d bps is outside %d..%d for a numeric job", r.ToleranceBps, MinToleranceBps, MaxToleranceBps)
		}
	case Exact:
		if r.ToleranceBps != 0 {
			return fmt.Errorf("tolerance must be 0 for an exact job, got %d", r.ToleranceBps)
		}
	default:
		return fmt.Errorf("unknown job kind %d", r.Kind)
	}
	return nil
}

// Outcome is what settlement stores and pays by.
type Outcome struct {
	// Agreed is true when the agreeing answers are at least 2 and more than half of the quorum.
	Agreed bool
	// Answer is the stored answer: the median for NUMERIC (whether or not it agreed, as long as
	// anything was revealed); for EXACT the most frequent answer when it is the only one on top,
	// and zero otherwise.
	Answer Answer
	// Median is the NUMERIC median as an integer; nil for EXACT or when nothing was revealed.
	Median *big.Int
	// Agree counts the answers inside the agreement; Reveals counts all revealed answers.
	Agree, Reveals int
	// Verdicts says, in input order, whether each answer is inside the agreement: within the
	// tolerance of the median (NUMERIC) or equal to the unique most frequent answer (EXACT).
	Verdicts []bool
}

// Agree settles a set of revealed answers under a rule, exactly as the seed defines it.
// Answers are in any order; the outcome does not depend on that order (only Verdicts follows it).
func Agree(rule Rule, answers []Answer) (Outcome, error) {
	if err := rule.Validate(); err != nil {
		return Outcome{}, err
	}
	if len(answers) > rule.Quorum {
		return Outcome{}, fmt.Errorf("%d answers revealed but only %d rigs drawn", len(answers), rule.Quorum)
	}
	var out Outcome
	if rule.Kind == Numeric {
		out = agreeNumeric(rule.ToleranceBps, answers)
	} else {
		out = agreeExact(answers)
	}
	out.Reveals = len(answers)
	out.Agreed = out.Agree >= 2 && 2*out.Agree > rule.Quorum
	return out, nil
}

// LowerMedian returns the median of the values, the lower middle one for an even count.
// It returns nil for no values and does not reorder its argument.
func LowerMedian(values []*big.Int) *big.Int {
	if len(values) == 0 {
		return nil
	}
	sorted := slices.Clone(values)
	slices.SortFunc(sorted, func(a, b *big.Int) int { return a.Cmp(b) })
	return sorted[(len(sorted)-1)/2]
}

// WithinTolerance reports |v − m| × 10000 ≤ m × toleranceBps, the seed's agreement test, in exact
// integer arithmetic.
func WithinTolerance(v, m *big.Int, toleranceBps uint32) bool {
	if v.IsInt64() && m.IsInt64() {
		return WithinToleranceScaled(Scaled(v.Int64()), Scaled(m.Int64()), toleranceBps)
	}
	return withinToleranceBig(v, m, toleranceBps)
}

// WithinToleranceScaled is WithinTolerance of two int64 values, in machine integers: both sides
// are at most 64 × 32 bits, so their 128-bit products (math/bits) compare exactly, and nothing
// is allocated. FuzzWithinToleranceMatchesBig holds it to the big.Int reference bit for bit.
func WithinToleranceScaled(v, m Scaled, toleranceBps uint32) bool {
	lhsHi, lhsLo := bits.Mul64(absDiff(int64(v), int64(m)), BpsDenominator)
	if m < 0 {
		// the bound m × tolerance is ≤ 0 and the left side ≥ 0: only 0 ≤ 0 holds
		return lhsHi == 0 && lhsLo == 0 && toleranceBps == 0
	}
	rhsHi, rhsLo := bits.Mul64(uint64(m), uint64(toleranceBps))
	return lhsHi < rhsHi || lhsHi == rhsHi && lhsLo <= rhsLo
}

// absDiff returns |a − b|, which always fits a uint64.
func absDiff(a, b int64) uint64 {
	if a >= b {
		return uint64(a) - uint64(b)
	}
	return uint64(b) - uint64(a)
}

// withinToleranceBig is WithinTolerance in math/big, for values beyond int64 and as the
// reference of the fast path.
func withinToleranceBig(v, m *big.Int, toleranceBps uint32) bool {
	diff := new(big.Int).Sub(v, m)
	diff.Abs(diff).Mul(diff, big.NewInt(BpsDenominator))
	bound := new(big.Int).Mul(m, big.NewInt(int64(toleranceBps)))
	return diff.Cmp(bound) <= 0
}

func agreeNumeric(toleranceBps uint32, answers []Answer) Outcome {
	out := Outcome{Verdicts: make([]bool, len(answers))}
	if len(answers) == 0 {
		return out
	}
	values := make([]*big.Int, len(answers))
	for i, a := range answers {
		values[i] = AnswerInt(a)
	}
	m := LowerMedian(values)
	out.Median = new(big.Int).Set(m)
	out.Answer, _ = NumericAnswer(m) // m came from a bytes32, so it fits
	for i, v := range values {
		if WithinTolerance(v, m, toleranceBps) {
			out.Verdicts[i] = true
			out.Agree++
		}
	}
	return out
}

func agreeExact(answers []Answer) Outcome {
	out := Outcome{Verdicts: make([]bool, len(answers))}
	counts := map[Answer]int{}
	for _, a := range answers {
		counts[a]++
	}
	var top Answer
	topCount, tied := 0, false
	for a, n := range counts {
		switch {
		case n > topCount:
			top, topCount, tied = a, n, false
		case n == topCount:
			tied = true
		}
	}
	if topCount == 0 || tied {
		return out
	}
	out.Answer = top
	for i, a := range answers {
		if bytes.Equal(a[:], top[:]) {
			out.Verdicts[i] = true
			out.Agree++
		}
	}
	return out
}

// DistanceBps returns |v − m| / m in basis points, rounded half away from zero to two decimals,
// as text ("12.34"). It is for reports; agreement itself uses WithinTolerance. A zero median
// gives "inf" unless v is zero too.
func DistanceBps(v, m *big.Int) string {
	c := distanceCentiBps(v, m)
	if c == nil {
		return "inf"
	}
	s := c.String()
	for len(s) < 3 {
		s = "0" + s
	}
	return s[:len(s)-2] + "." + s[len(s)-2:]
}

// DistanceCentiBps is DistanceBps as an integer count of hundredths of a basis point, for
// comparisons and metrics. A zero median with a non-zero value gives -1.
//
// It computes in machine integers (a 128-bit product and quotient through math/bits) and goes
// to math/big only when the quotient would not fit an int64, which no price up to MaxPrice
// reaches; FuzzDistanceCentiBpsMatchesBig holds it to the big.Int reference bit for bit.
func DistanceCentiBps(v, m Scaled) int64 {
	if m == 0 {
		if v == 0 {
			return 0
		}
		return -1
	}
	den := absDiff(int64(m), 0)
	hi, lo := bits.Mul64(absDiff(int64(v), int64(m)), 1_000_000)
	if hi < den { // else the quotient needs more than 64 bits
		q, r := bits.Div64(hi, lo, den)
		up := r >= den-r // 2r ≥ den, without overflowing
		if q < math.MaxInt64 || q == math.MaxInt64 && !up {
			if up {
				q++
			}
			return int64(q)
		}
	}
	return distanceCentiBpsBig(v, m)
}

// distanceCentiBpsBig is DistanceCentiBps in math/big: the reference the fast path is held to.
func distanceCentiBpsBig(v, m Scaled) int64 {
	c := distanceCentiBps(v.Big(), m.Big())
	if c == nil {
		return -1
	}
	return c.Int64()
}

// distanceCentiBps computes |v − m| × 10^6 / |m| rounded half away from zero, or nil when m is
// zero and v is not.
func distanceCentiBps(v, m *big.Int) *big.Int {
	if m.Sign() == 0 {
		if v.Sign() == 0 {
			return new(big.Int)
		}
		return nil
	}
	num := new(big.Int).Sub(v, m)
	num.Abs(num).Mul(num, big.NewInt(1_000_000))
	den := new(big.Int).Abs(m)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(r, big.NewInt(2)).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}
