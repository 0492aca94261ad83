package numeric

import (
	"errors"
	"math/big"
	"strconv"
	"testing"
)

func TestParsePrice(t *testing.T) {
	tests := []struct {
		in   string
		want Scaled
	}{
		{"103.64", 10364000000},
		{`"103.64"`, 10364000000},
		{" 86.5000 ", 8650000000},
		{"1.2e2", 12000000000},
		{"1.2E-2", 1200000},
		{"+5", 500000000},
		{"0.00000001", 1},
		{"0.000000005", 1},     // half rounds away from zero
		{"0.0000000149999", 1}, // below half rounds down
		{"0.000000015", 2},     // exactly half rounds up
		{"177.123456785", 17712345679},
		{"177.123456784999", 17712345678},
		{".5", 50000000},
		{"5.", 500000000},
		{"1000000000", 100000000000000000}, // MaxPrice itself
		{"232.79", 23279000000},
	}
	for _, tc := range tests {
		got, err := ParsePrice(tc.in)
		if err != nil {
			t.Errorf("ParsePrice(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParsePrice(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestParsePriceRejects(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"", ErrEmpty},
		{"   ", ErrEmpty},
		{`""`, ErrEmpty},
		{"null", ErrEmpty},
		{"0", ErrNotPos},
		{"0.000000004", ErrNotPos}, // rounds to zero at 8 decimals
		{"-1.5", ErrNotPos},
		{"-0", ErrNotPos},
		{"NaN", ErrNotNumber},
		{"Inf", ErrNotNumber},
		{"+Inf", ErrNotNumber},
		{"0x1p3", ErrNotNumber},
		{"1_000", ErrNotNumber},
		{"3/4", ErrNotNumber},
		{"1e", ErrNotNumber},
		{"1e9999", ErrNotNumber}, // exponent digits bounded before any arithmetic
		{"abc", ErrNotNumber},
		{"1.2.3", ErrNotNumber},
		{"1000000000.00000001", ErrTooLarge},
		{"1e10", ErrTooLarge},
		{`"12`, ErrNotNumber},
	}
	for _, tc := range tests {
		_, err := ParsePrice(tc.in)
		if !errors.Is(err, tc.want) {
			t.Errorf("ParsePrice(%q) error = %v, want %v", tc.in, err, tc.want)
		}
	}
}

func TestCanonicalFloat32(t *testing.T) {
	tests := []struct{ in, want string }{
		{"103.63999938964844", "103.64"},
		{"103.6500015258789", "103.65"},
		{"86.5", "86.5"},
		{"103.64", "103.64"},     // not a widened float32: unchanged
		{"177.1234", "177.1234"}, // not a widened float32: unchanged
		{"0.10000000149011612", "0.1"},
	}
	for _, tc := range tests {
		got, err := CanonicalFloat32(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("CanonicalFloat32(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := CanonicalFloat32("NaN"); err == nil {
		t.Error("CanonicalFloat32(NaN) accepted")
	}
}

// Every cent price a stock trades at below $10,000 survives float32 widening and comes back
// exactly: the property Yahoo's adapter relies on.
func TestCanonicalFloat32RoundTripsCents(t *testing.T) {
	for cents := int64(1); cents < 1_000_000; cents += 7 {
		text := strconv.FormatInt(cents/100, 10) + "." + strconv.FormatInt(100+cents%100, 10)[1:]
		f, _ := strconv.ParseFloat(text, 32)
		widened := strconv.FormatFloat(float64(float32(f)), 'f', -1, 64)
		got, err := CanonicalFloat32(widened)
		if err != nil {
			t.Fatalf("%s: %v", widened, err)
		}
		p1, err1 := ParsePrice(got)
		p2, err2 := ParsePrice(text)
		if err1 != nil || err2 != nil || p1 != p2 {
			t.Fatalf("cents %s: widened %s canonicalized to %s (%d), want %d", text, widened, got, p1, p2)
		}
	}
}

func TestScaledString(t *testing.T) {
	tests := []struct {
		in   Scaled
		want string
	}{
		{10364000000, "103.64"},
		{10000000000, "100.00"},
		{1, "0.00000001"},
		{17712345678, "177.12345678"},
		{50000000, "0.50"},
	}
	for _, tc := range tests {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("Scaled(%d).String() = %q, want %q", tc.in, got, tc.want)
		}
		back, err := ParsePrice(tc.in.String())
		if err != nil || back != tc.in {
			t.Errorf("ParsePrice(%q) = %d, %v; want round trip to %d", tc.in.String(), back, err, tc.in)
		}
	}
	if got := FormatScaled(big.NewInt(-150000000)); got != "-1.50" {
		t.Errorf("FormatScaled(-1.5) = %q", got)
	}
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"103.64", `"1.2e2"`, "0", "-1", "NaN", "1e9999", "0.000000005", ".5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrice(s)
		if err != nil {
			return
		}
		if p <= 0 || p > MaxPrice*One {
			t.Fatalf("ParsePrice(%q) = %d outside (0, MaxPrice]", s, p)
		}
		// The printed form parses back to the same integer.
		back, err := ParsePrice(p.String())
		if err != nil || back != p {
			t.Fatalf("round trip of %q: %d → %q → %d, %v", s, p, p.String(), back, err)
		}
	})
}

func BenchmarkParsePrice(b *testing.B) {
	for b.Loop() {
		if _, err := ParsePrice("177.1234"); err != nil {
			b.Fatal(err)
		}
	}
}
