package numeric

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/shopspring/decimal"
)

// Scale is the number of decimal places of a job-2 answer: the answer is price × 10^Scale.
const Scale = 8

// One is the scaled value of a price of exactly 1.
const One Scaled = 100_000_000

// MaxPrice is the largest price ParsePrice accepts, in whole currency units. No equity trades
// anywhere near it; a larger number in a provider body is a parsing accident, not a price.
const MaxPrice = 1_000_000_000

// Scaled is a price times 10^8, the integer a job-2 rig commits. int64 holds every price up to
// MaxPrice with room to spare, so prices from providers stay in machine integers; agreement over
// arbitrary bytes32 answers uses math/big (see Agree).
type Scaled int64

// Errors that ParsePrice wraps, so callers can tell a bad number from a missing one.
var (
	ErrEmpty     = errors.New("empty price")
	ErrNotNumber = errors.New("not a decimal number")
	ErrNotPos    = errors.New("price must be positive")
	ErrTooLarge  = errors.New("price is absurdly large")
)

// decimalText is the grammar ParsePrice accepts: JSON number text without a sign, optionally with
// an exponent. It deliberately refuses hex, underscores, fractions and the words NaN and Inf,
// which more lenient parsers take.
var decimalText = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,3})?$`)

// ParsePrice reads a provider's decimal price text — JSON number text, the same quoted as a JSON
// string, or exponent form like "1.2e2" — and returns price × 10^8, rounding half away from zero
// at the 8th decimal. It never goes through a float.
//
// Text that is a price is read digit by digit into the integer (plainPrice, no allocation);
// anything else — an error of any kind — is read by the reference parser, parsePriceRef, which
// gives the error. The two agree on every input (FuzzParsePriceMatchesReference).
func ParsePrice(text string) (Scaled, error) {
	if p, ok := plainPrice(text); ok {
		return p, nil
	}
	return parsePriceRef(text)
}

// ParsePriceBytes is ParsePrice of text held in bytes (a raw JSON value from a body), with no
// copy into a string unless the text is not a price.
func ParsePriceBytes(text []byte) (Scaled, error) {
	if p, ok := plainPrice(text); ok {
		return p, nil
	}
	return parsePriceRef(string(text))
}

// plainPrice is ParsePrice's fast path: it reports ok only for text that parsePriceRef reads to
// a price, and then returns the same integer. It follows the same grammar (decimalText after
// trimming white space and one pair of quotes) by hand: the significant digits go into a small
// buffer, the decimal point's place is counted, and the scaled integer is those digits cut at
// the 8th decimal, rounded half away from zero by the first digit cut. Anything else (a sign
// '-', non-ASCII white space, a zero, a price over MaxPrice, text over 80 bytes) is left to the
// reference, which says what is wrong.
func plainPrice[T string | []byte](text T) (Scaled, bool) {
	s := trimASCIISpace(text)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = trimASCIISpace(s[1 : len(s)-1])
	}
	if len(s) > 80 {
		return 0, false
	}
	i := 0
	if i < len(s) && s[i] == '+' {
		i++
	}
	var dig [80]byte // significant digits: leading zeros dropped
	nd := 0
	point := 0 // the value is 0.dig × 10^point
	seen := false
	for ; i < len(s) && isDigit(s[i]); i++ {
		seen = true
		if nd == 0 && s[i] == '0' {
			continue
		}
		dig[nd] = s[i]
		nd++
		point++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isDigit(s[i]); i++ {
			seen = true
			if nd == 0 && s[i] == '0' {
				point--
				continue
			}
			dig[nd] = s[i]
			nd++
		}
	}
	if !seen {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			neg = s[i] == '-'
			i++
		}
		exp, n := 0, 0
		for ; i < len(s) && isDigit(s[i]) && n < 4; i++ {
			exp = exp*10 + int(s[i]-'0')
			n++
		}
		if n == 0 || n > 3 {
			return 0, false
		}
		if neg {
			exp = -exp
		}
		point += exp
	}
	if i != len(s) {
		return 0, false
	}
	for nd > 0 && dig[nd-1] == '0' {
		nd--
	}
	// MaxPrice is 10^9: ten digits before the point is at least 10^9, and more than it unless the
	// digits are a lone 1.
	if nd == 0 || point > 10 || (point == 10 && (nd != 1 || dig[0] != '1')) {
		return 0, false
	}
	k := point + Scale // how many of the digits stand before the scaled integer's point
	if k <= 0 {
		return 0, false // zero at 8 decimals (k == 0 rounds to at most 1, left to the reference)
	}
	var v int64
	for j := range k {
		v *= 10
		if j < nd {
			v += int64(dig[j] - '0')
		}
	}
	if k < nd && dig[k] >= '5' {
		v++
	}
	return Scaled(v), true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// trimASCIISpace trims the ASCII white space strings.TrimSpace trims; text edged by any other
// white space is left whole, for the reference to read.
func trimASCIISpace[T string | []byte](s T) T {
	for len(s) > 0 && isASCIISpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isASCIISpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// parsePriceRef is the reference reading of ParsePrice: the grammar as a regular expression and
// the arithmetic in shopspring/decimal. It gives every error ParsePrice returns, and the fuzz
// test holds plainPrice to it.
func parsePriceRef(text string) (Scaled, error) {
	s := strings.TrimSpace(text)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if s == "" || s == "null" {
		return 0, fmt.Errorf("price %q: %w", text, ErrEmpty)
	}
	if len(s) > 80 || !decimalText.MatchString(s) {
		return 0, fmt.Errorf("price %q: %w", clip(text), ErrNotNumber)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return 0, fmt.Errorf("price %q: %w", clip(text), ErrNotNumber)
	}
	if d.Sign() < 0 {
		return 0, fmt.Errorf("price %q: %w", text, ErrNotPos)
	}
	if d.GreaterThan(decimal.NewFromInt(MaxPrice)) {
		return 0, fmt.Errorf("price %q: %w (more than %d)", clip(text), ErrTooLarge, MaxPrice)
	}
	scaled := d.Shift(Scale).Round(0) // shopspring rounds half away from zero
	if scaled.Sign() == 0 {
		return 0, fmt.Errorf("price %q: %w (zero at 8 decimals)", text, ErrNotPos)
	}
	return Scaled(scaled.IntPart()), nil
}

// MustPrice is ParsePrice for constants in tests and tables; it panics on bad text.
func MustPrice(text string) Scaled {
	p, err := ParsePrice(text)
	if err != nil {
		panic(err)
	}
	return p
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// String prints the price as a decimal with the trailing zeros of its 8 decimals dropped, keeping
// at least two decimals: 10364000000 → "103.64".
func (p Scaled) String() string {
	return FormatScaled(big.NewInt(int64(p)))
}

// FormatScaled prints any scaled integer (for example a median read back from a bytes32) as a
// decimal price, like Scaled.String.
func FormatScaled(v *big.Int) string {
	neg := v.Sign() < 0
	digits := new(big.Int).Abs(v).String()
	for len(digits) <= Scale {
		digits = "0" + digits
	}
	whole, frac := digits[:len(digits)-Scale], strings.TrimRight(digits[len(digits)-Scale:], "0")
	for len(frac) < 2 {
		frac += "0"
	}
	if neg {
		whole = "-" + whole
	}
	return whole + "." + frac
}

// Big returns the scaled price as a big.Int.
func (p Scaled) Big() *big.Int { return big.NewInt(int64(p)) }

// Answer is the 32-byte NUMERIC answer of the price: the scaled integer as a big-endian uint256.
func (p Scaled) Answer() [32]byte {
	a, err := NumericAnswer(p.Big())
	if err != nil { // unreachable for a Scaled made by ParsePrice; keep the zero answer
		return [32]byte{}
	}
	return a
}
