package agentrig_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
)

var (
	two256   = new(big.Int).Lsh(big.NewInt(1), 256)
	maxU256  = new(big.Int).Sub(two256, big.NewInt(1))
	bpsDenom = big.NewInt(numeric.BpsDenominator)
)

// onChainAgreement runs the contract's agreement() — the function settle uses — as an eth_call.
func onChainAgreement(c *chain, rule numeric.Rule, answers []numeric.Answer) (agentrig.AgreementOutput, error) {
	raw := make([][32]byte, len(answers))
	copy(raw, answers)
	data := c.ABI.PackAgreement(uint8(rule.Kind), uint8(rule.Quorum), rule.ToleranceBps, raw)
	return bind.Call(c.Contract, nil, data, c.ABI.UnpackAgreement)
}

// checkAgreement compares the contract with numeric.Agree on one case, field by field.
func checkAgreement(t *testing.T, c *chain, rule numeric.Rule, answers []numeric.Answer) {
	t.Helper()
	want, err := numeric.Agree(rule, answers)
	if err != nil {
		t.Fatalf("numeric.Agree(%+v): %v", rule, err)
	}
	got, err := onChainAgreement(c, rule, answers)
	if err != nil {
		t.Fatalf("agreement(%+v, %x): %v", rule, answers, err)
	}
	var wantMask uint8
	for i, v := range want.Verdicts {
		if v {
			wantMask |= 1 << i
		}
	}
	if got.Answer != want.Answer || got.Agreed != want.Agreed || int(got.Agree) != want.Agree || got.Verdicts != wantMask {
		t.Fatalf("rule %+v answers %s:\n contract answer=%x agreed=%v agree=%d verdicts=%05b\n numeric  answer=%x agreed=%v agree=%d verdicts=%05b",
			rule, describe(answers), got.Answer, got.Agreed, got.Agree, got.Verdicts,
			want.Answer, want.Agreed, want.Agree, wantMask)
	}
}

func describe(answers []numeric.Answer) string {
	s := "["
	for i, a := range answers {
		if i > 0 {
			s += " "
		}
		s += numeric.AnswerInt(a).String()
	}
	return s + "]"
}

// TestAgreementMatchesNumeric is the differential test: random sets of answers, both kinds,
// every quorum and reveal count, values from tiny to near 2^256 and right at the tolerance edge,
// settle exactly as numeric.Agree computes (answer, agreed, agree count and who agreed).
func TestAgreementMatchesNumeric(t *testing.T) {
	c := newChain(t)
	seed := uint64(20261127)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	const cases = 800
	var agreed, numericCases, hugeCases int
	for i := range cases {
		rule, answers := randomCase(r)
		want, _ := numeric.Agree(rule, answers)
		if want.Agreed {
			agreed++
		}
		if rule.Kind == numeric.Numeric {
			numericCases++
			for _, a := range answers {
				if a[0] >= 0x80 {
					hugeCases++
					break
				}
			}
		}
		t.Run(fmt.Sprintf("case%03d", i), func(t *testing.T) { checkAgreement(t, c, rule, answers) })
	}
	// The generator must have exercised both outcomes and both kinds, or the test proves little.
	if agreed < cases/5 || agreed > cases*4/5 || numericCases < cases/3 || numericCases > cases*2/3 || hugeCases < 20 {
		t.Fatalf("generator is lopsided: %d agreed, %d numeric, %d numeric with values ≥ 2^255 of %d", agreed, numericCases, hugeCases, cases)
	}
}

// TestAgreementEdges pins hand-picked cases: the tolerance boundary exactly, ties, the lower
// median, zero medians, and values near 2^256 where |v−m|×10000 or m×tol overflow 256 bits.
func TestAgreementEdges(t *testing.T) {
	c := newChain(t)
	num := func(q int, tol uint32) numeric.Rule {
		return numeric.Rule{Kind: numeric.Numeric, Quorum: q, ToleranceBps: tol}
	}
	exact := func(q int) numeric.Rule { return numeric.Rule{Kind: numeric.Exact, Quorum: q} }
	huge := func(v *big.Int) numeric.Answer {
		a, err := numeric.NumericAnswer(v)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	sub := func(a *big.Int, b int64) *big.Int { return new(big.Int).Sub(a, big.NewInt(b)) }
	// m × 50 / 10000 for m near 2^256: the largest distance that still agrees at 50 bps.
	edge := func(m *big.Int, tol int64) *big.Int {
		d := new(big.Int).Mul(m, big.NewInt(tol))
		return d.Quo(d, bpsDenom)
	}
	top := new(big.Int).Set(maxU256)
	tests := []struct {
		name    string
		rule    numeric.Rule
		answers []numeric.Answer
	}{
		{"nothing revealed numeric", num(3, 50), nil},
		{"nothing revealed exact", exact(3), nil},
		{"one reveal", num(3, 50), []numeric.Answer{answerOf(100)}},
		{"exactly at tolerance", num(3, 50), []numeric.Answer{answerOf(10000), answerOf(10050), answerOf(9950)}},
		{"one past tolerance", num(3, 50), []numeric.Answer{answerOf(10000), answerOf(10051), answerOf(9949)}},
		{"lower median of even count", num(4, 1), []numeric.Answer{answerOf(100), answerOf(200), answerOf(300), answerOf(400)}},
		{"two of four is not a majority", num(4, 2000), []numeric.Answer{answerOf(100), answerOf(110), answerOf(1000), answerOf(5000)}},
		{"two of three is", num(3, 2000), []numeric.Answer{answerOf(100), answerOf(110)}},
		{"zero median", num(3, 2000), []numeric.Answer{answerOf(0), answerOf(0), answerOf(1)}},
		// Refusals (issue 18): every rig answers refusal_answer 0 at job 2's 50 bps; a rig that
		// priced instead is outside a zero median, and a lone 0 is outside a price median.
		{"refusal: three zeros", num(3, 50), []numeric.Answer{answerOf(0), answerOf(0), answerOf(0)}},
		{"refusal: a price among zeros", num(3, 50), []numeric.Answer{answerOf(0), answerOf(17712000000), answerOf(0)}},
		{"refusal: a zero among prices", num(3, 50), []numeric.Answer{answerOf(17712000000), answerOf(0), answerOf(17712000000)}},
		{"max tolerance", num(5, 2000), []numeric.Answer{answerOf(10000), answerOf(12000), answerOf(8000), answerOf(12001), answerOf(7999)}},
		{"huge median, far value", num(3, 2000), []numeric.Answer{huge(top), huge(top), answerOf(0)}},
		{"huge median, edge value", num(3, 50), []numeric.Answer{huge(top), huge(new(big.Int).Sub(top, edge(top, 50))), huge(new(big.Int).Sub(top, new(big.Int).Add(edge(top, 50), big1)))}},
		{"huge values all equal", num(2, 1), []numeric.Answer{huge(top), huge(top)}},
		{"2^255 neighbourhood", num(5, 1), []numeric.Answer{huge(new(big.Int).Lsh(big1, 255)), huge(sub(new(big.Int).Lsh(big1, 255), 1)), huge(new(big.Int).Lsh(big1, 254)), huge(top), answerOf(1)}},
		{"exact majority", exact(3), []numeric.Answer{{1}, {1}, {2}}},
		{"exact tie", exact(4), []numeric.Answer{{1}, {1}, {2}, {2}}},
		{"exact tie of singles", exact(3), []numeric.Answer{{1}, {2}}},
		{"exact two of five", exact(5), []numeric.Answer{{1}, {1}, {2}, {3}}},
		{"exact three of five", exact(5), []numeric.Answer{{7}, {9}, {7}, {8}, {7}}},
		{"exact zero answers agree", exact(2), []numeric.Answer{{}, {}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkAgreement(t, c, tc.rule, tc.answers) })
	}
}

var big1 = big.NewInt(1)

// TestAgreementRejectsBadRules: the contract's view refuses what numeric.Rule.Validate refuses.
func TestAgreementRejectsBadRules(t *testing.T) {
	c := newChain(t)
	tests := []struct {
		name    string
		rule    numeric.Rule
		answers int
		revert  string
	}{
		{"quorum 1", numeric.Rule{Kind: numeric.Exact, Quorum: 1}, 0, "BadQuorum"},
		{"quorum 6", numeric.Rule{Kind: numeric.Exact, Quorum: 6}, 0, "BadQuorum"},
		{"numeric tolerance 0", numeric.Rule{Kind: numeric.Numeric, Quorum: 3}, 0, "BadTolerance"},
		{"numeric tolerance 2001", numeric.Rule{Kind: numeric.Numeric, Quorum: 3, ToleranceBps: 2001}, 0, "BadTolerance"},
		{"exact with tolerance", numeric.Rule{Kind: numeric.Exact, Quorum: 3, ToleranceBps: 1}, 0, "BadTolerance"},
		{"kind 2", numeric.Rule{Kind: 2, Quorum: 3}, 0, "BadKind"},
		{"more answers than quorum", numeric.Rule{Kind: numeric.Exact, Quorum: 2}, 3, "BadAnswers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := numeric.Agree(tc.rule, make([]numeric.Answer, tc.answers)); err == nil {
				t.Fatal("numeric.Agree accepts it; the case is wrong")
			}
			_, err := onChainAgreement(c, tc.rule, make([]numeric.Answer, tc.answers))
			if !agentrig.IsRevert(err, tc.revert) {
				t.Fatalf("want %s, got %v", tc.revert, err)
			}
		})
	}
}

// randomCase draws a rule and a set of revealed answers meant to land on both sides of every
// rule: agreement and not, ties, the tolerance edge, and huge values.
func randomCase(r *rand.Rand) (numeric.Rule, []numeric.Answer) {
	quorum := 2 + r.IntN(4)
	n := r.IntN(quorum + 1)
	answers := make([]numeric.Answer, n)
	if r.IntN(2) == 0 {
		rule := numeric.Rule{Kind: numeric.Exact, Quorum: quorum}
		pool := make([]numeric.Answer, 1+r.IntN(3))
		for i := range pool {
			if r.IntN(4) > 0 { // keep a zero answer in some pools
				for j := range pool[i] {
					pool[i][j] = byte(r.Uint32())
				}
			}
		}
		for i := range answers {
			answers[i] = pool[r.IntN(len(pool))]
		}
		return rule, answers
	}
	tols := []uint32{1, 50, 2000, uint32(1 + r.IntN(2000))}
	rule := numeric.Rule{Kind: numeric.Numeric, Quorum: quorum, ToleranceBps: tols[r.IntN(len(tols))]}
	base := randomBase(r)
	bound := new(big.Int).Mul(base, big.NewInt(int64(rule.ToleranceBps)))
	bound.Quo(bound, bpsDenom)
	for i := range answers {
		v := new(big.Int).Set(base)
		switch r.IntN(6) {
		case 0: // the base itself
		case 1, 2: // right at the edge, or one past it
			d := new(big.Int).Add(bound, big.NewInt(int64(r.IntN(3)-1)))
			if r.IntN(2) == 0 {
				v.Add(v, d)
			} else {
				v.Sub(v, d)
			}
		case 3, 4: // somewhere within twice the bound
			d := randBelow(r, new(big.Int).Add(new(big.Int).Lsh(bound, 1), big1))
			if r.IntN(2) == 0 {
				v.Add(v, d)
			} else {
				v.Sub(v, d)
			}
		case 5: // anything
			v = randomBase(r)
		}
		if v.Sign() < 0 {
			v.SetInt64(0)
		}
		if v.Cmp(maxU256) > 0 {
			v.Set(maxU256)
		}
		a, _ := numeric.NumericAnswer(v)
		answers[i] = a
	}
	return rule, answers
}

func randomBase(r *rand.Rand) *big.Int {
	switch r.IntN(6) {
	case 0:
		return big.NewInt(int64(r.IntN(20))) // tiny, including zero
	case 1, 2:
		return big.NewInt(1_000_000_000 + r.Int64N(100_000_000_000_000)) // prices × 10^8
	case 3:
		return new(big.Int).Sub(maxU256, big.NewInt(r.Int64N(1000))) // the very top
	case 4:
		return randBelow(r, two256) // anything
	default:
		return new(big.Int).Rsh(maxU256, uint(1+r.IntN(8))) // large, below the top
	}
}

func randBelow(r *rand.Rand, n *big.Int) *big.Int {
	if n.Sign() <= 0 {
		return new(big.Int)
	}
	buf := make([]byte, (n.BitLen()+7)/8+8)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(buf), n)
}
