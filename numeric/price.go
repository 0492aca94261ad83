package numeric

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
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
func ParsePrice(text string) (Scaled, error) {
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

// CanonicalFloat32 rewrites a float32 that a provider printed as a float64 (Yahoo's 1-minute
// values, e.g. "103.63999938964844") into the shortest decimal that round-trips the float32
// ("103.64"), which is the price the provider stored. Text that is not exactly a float32 is
// returned unchanged: it was never a widened float32, so its digits are already the price.
func CanonicalFloat32(text string) (string, error) {
	s := strings.TrimSpace(text)
	if !decimalText.MatchString(s) {
		return "", fmt.Errorf("price %q: %w", clip(text), ErrNotNumber)
	}
	wide, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", fmt.Errorf("price %q: %w", clip(text), ErrNotNumber)
	}
	narrow := float32(wide)
	if float64(narrow) != wide {
		return s, nil
	}
	return strconv.FormatFloat(float64(narrow), 'f', -1, 32), nil
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
