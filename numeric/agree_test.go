package numeric

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

func num(t testing.TB, v string) Answer {
	t.Helper()
	a, err := ParseAnswer(v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func nums(t testing.TB, vs ...string) []Answer {
	out := make([]Answer, len(vs))
	for i, v := range vs {
		out[i] = num(t, v)
	}
	return out
}

func TestAgreeNumeric(t *testing.T) {
	tests := []struct {
		name     string
		quorum   int
		tol      uint32
		answers  []string
		agreed   bool
		median   string
		agree    int
		verdicts []bool
	}{
		{"all equal", 3, 50, []string{"100", "100", "100"}, true, "100", 3, []bool{true, true, true}},
		{"one far", 3, 50, []string{"10000", "10050", "20000"}, true, "10050", 2, []bool{true, true, false}},
		// distance exactly on the bound: |10050−10000|×10000 = 500000 = 10000×50
		{"exactly on the bound", 3, 50, []string{"10000", "10050", "10000"}, true, "10000", 3, []bool{true, true, true}},
		{"one past the bound", 3, 50, []string{"10000", "10051", "10000"}, true, "10000", 2, []bool{true, false, true}},
		{"past the bound both sides", 3, 50, []string{"9949", "10000", "10051"}, false, "10000", 1, []bool{false, true, false}},
		{"on the bound below", 3, 50, []string{"9950", "10000", "10050"}, true, "10000", 3, []bool{true, true, true}},
		// even count: the lower middle of 100, 200, 300, 400 is 200
		{"even count lower median", 4, 2000, []string{"400", "100", "300", "200"}, false, "200", 1, []bool{false, false, false, true}},
		{"even count two agree of quorum 4", 4, 50, []string{"1000", "1000", "5000", "9000"}, false, "1000", 2, []bool{true, true, false, false}},
		{"even count three agree of quorum 4", 4, 50, []string{"1000", "1000", "1001", "9000"}, true, "1000", 3, []bool{true, true, true, false}},
		{"quorum 5 with 3 reveals all agree", 5, 50, []string{"500", "500", "500"}, true, "500", 3, []bool{true, true, true}},
		{"quorum 5 with 2 reveals agree", 5, 50, []string{"500", "500"}, false, "500", 2, []bool{true, true}},
		{"quorum 3 with 2 reveals agree", 3, 50, []string{"500", "501"}, true, "500", 2, []bool{true, true}},
		{"single reveal", 3, 50, []string{"500"}, false, "500", 1, []bool{true}},
		{"single reveal quorum 2", 2, 50, []string{"500"}, false, "500", 1, []bool{true}},
		{"zero median only zero agrees", 3, 2000, []string{"0", "0", "1"}, true, "0", 2, []bool{true, true, false}},
		{"zero median alone", 3, 2000, []string{"0", "1", "2"}, false, "1", 1, []bool{false, true, false}},
		{"no reveals", 3, 50, nil, false, "", 0, []bool{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Agree(Rule{Kind: Numeric, Quorum: tc.quorum, ToleranceBps: tc.tol}, nums(t, tc.answers...))
			if err != nil {
				t.Fatal(err)
			}
			if out.Agreed != tc.agreed || out.Agree != tc.agree || out.Reveals != len(tc.answers) {
				t.Errorf("agreed=%v agree=%d reveals=%d; want %v %d %d", out.Agreed, out.Agree, out.Reveals, tc.agreed, tc.agree, len(tc.answers))
			}
			if !slices.Equal(out.Verdicts, tc.verdicts) {
				t.Errorf("verdicts %v, want %v", out.Verdicts, tc.verdicts)
			}
			if tc.median == "" {
				if out.Median != nil || out.Answer != (Answer{}) {
					t.Errorf("median %v answer %x, want none", out.Median, out.Answer)
				}
				return
			}
			if out.Median.String() != tc.median || out.Answer != num(t, tc.median) {
				t.Errorf("median %s answer %x, want %s", out.Median, out.Answer, tc.median)
			}
		})
	}
}

func TestAgreeExact(t *testing.T) {
	a, b, c := "0x"+hex64('a'), "0x"+hex64('b'), "0x"+hex64('c')
	tests := []struct {
		name     string
		quorum   int
		answers  []string
		agreed   bool
		answer   string
		agree    int
		verdicts []bool
	}{
		{"unanimous", 3, []string{a, a, a}, true, a, 3, []bool{true, true, true}},
		{"two of three", 3, []string{a, b, a}, true, a, 2, []bool{true, false, true}},
		{"all different", 3, []string{a, b, c}, false, "", 0, []bool{false, false, false}},
		{"tie for the top", 4, []string{a, b, a, b}, false, "", 0, []bool{false, false, false, false}},
		{"tie in two reveals", 3, []string{a, b}, false, "", 0, []bool{false, false}},
		{"two of quorum 5 is no majority", 5, []string{a, a, b}, false, a, 2, []bool{true, true, false}},
		{"three of quorum 5", 5, []string{a, a, a}, true, a, 3, []bool{true, true, true}},
		{"two of quorum 4 is no majority", 4, []string{a, a}, false, a, 2, []bool{true, true}},
		{"single reveal", 2, []string{a}, false, a, 1, []bool{true}},
		{"decimal answers are uint256", 3, []string{"7", "0x" + hex64('0')[:63] + "7", "7"}, true, "7", 3, []bool{true, true, true}},
		{"no reveals", 3, nil, false, "", 0, []bool{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Agree(Rule{Kind: Exact, Quorum: tc.quorum}, nums(t, tc.answers...))
			if err != nil {
				t.Fatal(err)
			}
			if out.Agreed != tc.agreed || out.Agree != tc.agree || out.Median != nil {
				t.Errorf("agreed=%v agree=%d median=%v; want %v %d nil", out.Agreed, out.Agree, out.Median, tc.agreed, tc.agree)
			}
			if !slices.Equal(out.Verdicts, tc.verdicts) {
				t.Errorf("verdicts %v, want %v", out.Verdicts, tc.verdicts)
			}
			want := Answer{}
			if tc.answer != "" {
				want = num(t, tc.answer)
			}
			if out.Answer != want {
				t.Errorf("answer %x, want %x", out.Answer, want)
			}
		})
	}
}

func hex64(c byte) string {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return string(b)
}

func TestRuleValidate(t *testing.T) {
	bad := []Rule{
		{Kind: Numeric, Quorum: 1, ToleranceBps: 50},
		{Kind: Numeric, Quorum: 6, ToleranceBps: 50},
		{Kind: Numeric, Quorum: 3, ToleranceBps: 0},
		{Kind: Numeric, Quorum: 3, ToleranceBps: 2001},
		{Kind: Exact, Quorum: 3, ToleranceBps: 1},
		{Kind: 2, Quorum: 3},
	}
	for _, r := range bad {
		if err := r.Validate(); err == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	for _, r := range []Rule{{Kind: Numeric, Quorum: 2, ToleranceBps: 1}, {Kind: Numeric, Quorum: 5, ToleranceBps: 2000}, {Kind: Exact, Quorum: 3}} {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v rejected: %v", r, err)
		}
	}
	if _, err := Agree(Rule{Kind: Numeric, Quorum: 2, ToleranceBps: 50}, nums(t, "1", "1", "1")); err == nil {
		t.Error("three answers for a quorum of two accepted")
	}
}

// Values near 2^256 must compare exactly: the products overflow uint256, but not big.Int.
func TestAgreeNumericHugeValues(t *testing.T) {
	maxV := "0x" + hex64('f')
	out, err := Agree(Rule{Kind: Numeric, Quorum: 3, ToleranceBps: 1}, nums(t, maxV, maxV, "1"))
	if err != nil {
		t.Fatal(err)
	}
	if !out.Agreed || out.Agree != 2 || out.Median.Cmp(maxUint256) != 0 {
		t.Errorf("got %+v", out)
	}
	// m − m/10000 is within 1 bp of m; one less is not.
	m := new(big.Int).Set(maxUint256)
	edge := new(big.Int).Sub(m, new(big.Int).Div(m, big.NewInt(10000)))
	if !WithinTolerance(edge, m, 1) {
		t.Error("edge value should be within 1 bp")
	}
	if WithinTolerance(new(big.Int).Sub(edge, big.NewInt(1)), m, 1) {
		t.Error("edge − 1 should be outside 1 bp")
	}
}

// The outcome depends on the set of answers, not their order; verdicts follow the answers.
func TestAgreeOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		quorum := 2 + rng.IntN(4)
		n := rng.IntN(quorum + 1)
		kind := Kind(rng.IntN(2))
		rule := Rule{Kind: kind, Quorum: quorum}
		if kind == Numeric {
			rule.ToleranceBps = uint32(1 + rng.IntN(2000))
		}
		answers := make([]Answer, n)
		for j := range answers {
			v := big.NewInt(int64(1_000_000 + rng.IntN(5000)))
			if kind == Exact {
				v = big.NewInt(int64(rng.IntN(3)))
			}
			answers[j], _ = NumericAnswer(v)
		}
		base, err := Agree(rule, answers)
		if err != nil {
			t.Fatal(err)
		}
		perm := rng.Perm(n)
		shuffled := make([]Answer, n)
		for j, p := range perm {
			shuffled[j] = answers[p]
		}
		got, _ := Agree(rule, shuffled)
		if got.Agreed != base.Agreed || got.Answer != base.Answer || got.Agree != base.Agree || got.Reveals != base.Reveals {
			t.Fatalf("case %d: order changed the outcome: %+v vs %+v", i, got, base)
		}
		for j, p := range perm {
			if got.Verdicts[j] != base.Verdicts[p] {
				t.Fatalf("case %d: verdict of answer %d moved", i, p)
			}
		}
	}
}

func FuzzAgree(f *testing.F) {
	f.Add(uint8(1), uint8(3), uint16(50), []byte{1, 2, 3, 4, 5, 6})
	f.Add(uint8(0), uint8(5), uint16(0), []byte{9, 9, 9, 9, 9, 9, 9, 9})
	f.Fuzz(func(t *testing.T, kind, quorum uint8, tol uint16, raw []byte) {
		rule := Rule{Kind: Kind(kind % 2), Quorum: 2 + int(quorum%4)}
		if rule.Kind == Numeric {
			rule.ToleranceBps = 1 + uint32(tol)%2000
		}
		var answers []Answer
		for len(raw) > 0 && len(answers) < rule.Quorum {
			var a Answer
			n := copy(a[32-min(len(raw), 4):], raw)
			raw = raw[n:]
			answers = append(answers, a)
		}
		out, err := Agree(rule, answers)
		if err != nil {
			t.Fatal(err)
		}
		count := 0
		for _, v := range out.Verdicts {
			if v {
				count++
			}
		}
		if count != out.Agree || out.Reveals != len(answers) {
			t.Fatalf("agree %d but %d true verdicts", out.Agree, count)
		}
		if out.Agreed != (out.Agree >= 2 && 2*out.Agree > rule.Quorum) {
			t.Fatalf("agreed %v with %d of quorum %d", out.Agreed, out.Agree, rule.Quorum)
		}
		reversed := slices.Clone(answers)
		slices.Reverse(reversed)
		back, _ := Agree(rule, reversed)
		if back.Answer != out.Answer || back.Agreed != out.Agreed || back.Agree != out.Agree {
			t.Fatal("reversing the answers changed the outcome")
		}
	})
}

func TestDistanceBps(t *testing.T) {
	tests := []struct {
		v, m int64
		want string
	}{
		{10050, 10000, "50.00"},
		{9950, 10000, "50.00"},
		{10000, 10000, "0.00"},
		{30001, 30000, "0.33"},
		{10000005, 10000000, "0.01"}, // 0.005 bp rounds half away from zero
		{0, 0, "0.00"},
		{1, 0, "inf"},
	}
	for _, tc := range tests {
		if got := DistanceBps(big.NewInt(tc.v), big.NewInt(tc.m)); got != tc.want {
			t.Errorf("DistanceBps(%d, %d) = %s, want %s", tc.v, tc.m, got, tc.want)
		}
	}
	if got := DistanceCentiBps(10050, 10000); got != 5000 {
		t.Errorf("DistanceCentiBps = %d", got)
	}
}

func TestParseAnswer(t *testing.T) {
	for _, bad := range []string{"", "-1", "1.5", "0x12", "0x" + hex64('g'), "12a", "0x" + hex64('0') + "0"} {
		if _, err := ParseAnswer(bad); err == nil {
			t.Errorf("ParseAnswer(%q) accepted", bad)
		}
	}
	big256 := new(big.Int).Lsh(big.NewInt(1), 256).String()
	if _, err := ParseAnswer(big256); err == nil {
		t.Error("2^256 accepted")
	}
	a, err := ParseAnswer("17712000000")
	if err != nil || AnswerInt(a).Int64() != 17712000000 || AnswerHex(a) != "0x000000000000000000000000000000000000000000000000000000041fb7ac00" {
		t.Errorf("ParseAnswer decimal: %x %v", a, err)
	}
	if MustPrice("177.12").Answer() != a {
		t.Error("Scaled.Answer differs from the decimal answer")
	}
}

func BenchmarkAgreeNumeric5(b *testing.B) {
	answers := make([]Answer, 5)
	for i := range answers {
		answers[i], _ = NumericAnswer(big.NewInt(int64(17712000000 + i*1000000)))
	}
	rule := Rule{Kind: Numeric, Quorum: 5, ToleranceBps: 50}
	for b.Loop() {
		if _, err := Agree(rule, answers); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAgreeExact5(b *testing.B) {
	answers := make([]Answer, 5)
	for i := range answers {
		answers[i][31] = byte(i % 2)
	}
	rule := Rule{Kind: Exact, Quorum: 5}
	for b.Loop() {
		if _, err := Agree(rule, answers); err != nil {
			b.Fatal(err)
		}
	}
}
