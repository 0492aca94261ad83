package numeric

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// sameAsReference checks ParsePrice and ParsePriceBytes against the reference parser on s: the
// same integer, or the same error text wrapping the same kind.
func sameAsReference(t *testing.T, s string) {
	t.Helper()
	want, wantErr := parsePriceRef(s)
	for name, parse := range map[string]func(string) (Scaled, error){
		"ParsePrice":      ParsePrice,
		"ParsePriceBytes": func(s string) (Scaled, error) { return ParsePriceBytes([]byte(s)) },
	} {
		got, err := parse(s)
		if got != want || (err == nil) != (wantErr == nil) {
			t.Fatalf("%s(%q) = %d, %v; the reference gives %d, %v", name, s, got, err, want, wantErr)
		}
		if err == nil {
			continue
		}
		if err.Error() != wantErr.Error() {
			t.Fatalf("%s(%q) error %q, the reference's %q", name, s, err, wantErr)
		}
		for _, kind := range []error{ErrEmpty, ErrNotNumber, ErrNotPos, ErrTooLarge} {
			if errors.Is(err, kind) != errors.Is(wantErr, kind) {
				t.Fatalf("%s(%q) error %v: kind differs from the reference's %v", name, s, err, wantErr)
			}
		}
	}
}

// priceSeeds are the edges of the grammar and of the arithmetic: signs, points at either end,
// exponents of one to four digits, rounding at the 9th decimal, MaxPrice and just past it,
// zeros that round away, quotes, white space the fast path trims and white space it leaves to
// the reference, and text of 80 and 81 bytes.
var priceSeeds = []string{
	"103.64", `"103.64"`, " 86.5000 ", "\t\n1.5\r\v\f", "\u00a01.5", "1.5\u0085", `" 7 "`, `""`, `"`, `"5`,
	"1.2e2", "1.2E-2", "+5", "+.5", "-.5", "-0", "-0.0", "-0.000000001", "+-5", "--5", ".", "5.", ".5", "0.",
	"0.00000001", "0.000000005", "0.000000004", "0.0000000149999", "0.000000015", "0.00000000999",
	"177.123456785", "177.123456784999", "999999999.999999995", "999999999.999999994", "1000000000",
	"1000000000.0000", "1000000000.00000001", "1e9", "1e+9", "10e8", "0.1e10", "1e10", "0001000000000",
	"1e", "1e+", "1e999", "1e-999", "1e9999", "5e-9", "5e-10", "1.e3", ".1e1", "1.2.3", "1e2e3",
	"NaN", "Inf", "+Inf", "0x1p3", "1_000", "3/4", "null", `"null"`, "", "  ", "٣", "１",
	"0." + strings.Repeat("0", 7) + "1", strings.Repeat("0", 79) + "1", strings.Repeat("0", 80) + "1",
	"1." + strings.Repeat("9", 78), "0." + strings.Repeat("4", 78) + "9", strings.Repeat("1", 9) + "." + strings.Repeat("5", 70),
}

func TestParsePriceMatchesReferenceOnSeeds(t *testing.T) {
	for _, s := range priceSeeds {
		sameAsReference(t, s)
	}
}

// The fuzzer explores byte strings; this walks the grammar itself, which random bytes rarely
// hit: a fixed-seed draw of 300,000 texts built from its pieces.
func TestParsePriceMatchesReferenceOnGrammar(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 4))
	pick := func(opts ...string) string { return opts[r.IntN(len(opts))] }
	digits := func(max int) string {
		var b strings.Builder
		for range r.IntN(max + 1) {
			b.WriteByte(pick("0", "0", "0", "1", "4", "5", "9", "5", "6")[0])
		}
		return b.String()
	}
	n := 300_000
	if testing.Short() {
		n = 30_000
	}
	for range n {
		s := pick("", "", "", "+", "-") + digits(12) + pick("", ".", ".", ".") + digits(14)
		if r.IntN(3) == 0 {
			s += pick("e", "E") + pick("", "+", "-") + digits(4)
		}
		switch r.IntN(8) {
		case 0:
			s = `"` + s + `"`
		case 1:
			s = pick(" ", "\t", "\n") + s + pick(" ", "\r", "")
		case 2:
			s = s[:r.IntN(len(s)+1)] + pick("x", ".", "e", "-", " ", "\"") + s[r.IntN(len(s)+1):]
		}
		sameAsReference(t, s)
	}
}

func FuzzParsePriceMatchesReference(f *testing.F) {
	for _, s := range priceSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameAsReference(t, s) })
}

// A price in a body costs no allocation: the fast path takes it.
func TestParsePriceBytesDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"177.1234", `"86.5000"`, "0.00012", "1.2e2", "232"} {
		b := []byte(s)
		var got Scaled
		if n := testing.AllocsPerRun(100, func() { got, _ = ParsePriceBytes(b) }); n != 0 {
			t.Errorf("ParsePriceBytes(%q): %.0f allocations", s, n)
		}
		if want, err := parsePriceRef(s); err != nil || got != want {
			t.Errorf("ParsePriceBytes(%q) = %d, reference %d, %v", s, got, want, err)
		}
	}
}

func BenchmarkParsePriceRef(b *testing.B) {
	for b.Loop() {
		if _, err := parsePriceRef("177.1234"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParsePriceBytes(b *testing.B) {
	text := []byte("177.1234")
	for b.Loop() {
		if _, err := ParsePriceBytes(text); err != nil {
			b.Fatal(err)
		}
	}
}
