package agentrig_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/task"
)

// TestLifecycleMatchesNumeric runs whole tasks — order, draw, commit, reveal, settle, answerOf —
// for both kinds and every quorum, with random answers, rigs that miss the commit or the reveal
// window, and commits and reveals sent directly or relayed in one batch. The stored outcome
// must be numeric.Agree of the answers revealed, and the slashes must be exactly the missed
// windows plus, when the task agreed, the answers outside the agreement.
func TestLifecycleMatchesNumeric(t *testing.T) {
	c := newChain(t)
	r := rand.New(rand.NewPCG(4663, 1337))
	type jobRule struct {
		id   uint32
		rule numeric.Rule
	}
	var jobs []jobRule
	tols := map[int]uint32{2: 1, 3: 50, 4: 777, 5: 2000}
	for _, kind := range []numeric.Kind{numeric.Exact, numeric.Numeric} {
		for q := 2; q <= 5; q++ {
			rule := numeric.Rule{Kind: kind, Quorum: q}
			if kind == numeric.Numeric {
				rule.ToleranceBps = tols[q]
			}
			id := c.publish(kind, uint8(q), rule.ToleranceBps)
			for i := range q {
				c.register(id, firstOp+i, 1000)
			}
			jobs = append(jobs, jobRule{id, rule})
		}
	}
	const cases = 40
	var agreed, relayed, missed int
	for n := range cases {
		j := jobs[n%len(jobs)]
		_, answers := randomCaseFor(r, j.rule)
		c.t = t
		t.Run(fmt.Sprintf("case%02d_%s_q%d", n, j.rule.Kind, j.rule.Quorum), func(t *testing.T) {
			c.t = t
			d := c.newDrawnTask(j.id)
			q := j.rule.Quorum
			// 0: commits and reveals, 1: misses the commit, 2: commits and misses the reveal.
			behaviour := make([]int, q)
			for i := range behaviour {
				switch x := r.IntN(10); {
				case x == 0:
					behaviour[i] = 1
				case x == 1:
					behaviour[i] = 2
				}
			}
			salts := make([]task.Salt, q)
			for i := range salts {
				salts[i] = task.Salt{byte(n), byte(i), 0x5a}
			}
			viaRelayer := r.IntN(2) == 0
			if viaRelayer {
				relayed++
			}
			var entries []agentrig.AgentRigCommit
			var sigs [][]byte
			for i := range q {
				if behaviour[i] == 1 {
					continue
				}
				h := commitmentFor(t, d.id, d.rigs[i], answers[i], salts[i])
				if !viaRelayer {
					c.commitDirect(d, i, answers[i], salts[i])
					continue
				}
				digest, err := c.domain.CommitDigest(d.id, h)
				entries = append(entries, agentrig.AgentRigCommit{TaskId: d.id, Commitment: h})
				sigs = append(sigs, c.sign(d.ops[i], digest, err))
			}
			if len(entries) > 0 {
				rcpt := c.send(relayer, nil, c.ABI.PackCommitMany(entries, sigs))
				if got := len(events(rcpt, c.ABI.UnpackCommittedEvent)); got != len(entries) {
					t.Fatalf("%d of %d relayed commits applied", got, len(entries))
				}
			}
			if c.phase(d.id) == agentrig.PhaseCommit {
				c.advanceTo(d.commit)
			}
			c.wantPhase(d.id, agentrig.PhaseReveal)
			var revealed []numeric.Answer
			var reveals []agentrig.AgentRigReveal
			sigs = nil
			for i := range q {
				if behaviour[i] != 0 {
					continue
				}
				revealed = append(revealed, answers[i])
				if !viaRelayer {
					c.revealDirect(d, i, answers[i], salts[i])
					continue
				}
				digest, err := c.domain.RevealDigest(d.id, answers[i], salts[i])
				reveals = append(reveals, agentrig.AgentRigReveal{TaskId: d.id, Answer: answers[i], Salt: salts[i]})
				sigs = append(sigs, c.sign(d.ops[i], digest, err))
			}
			if len(reveals) > 0 {
				c.send(relayer, nil, c.ABI.PackRevealMany(reveals, sigs))
			}
			if c.phase(d.id) == agentrig.PhaseReveal {
				c.advanceTo(c.task(d.id).RevealDeadline)
			}
			c.wantPhase(d.id, agentrig.PhaseSettle)
			rcpt := c.send(stranger, nil, c.ABI.PackSettle(d.id))

			want, err := numeric.Agree(j.rule, revealed)
			if err != nil {
				t.Fatal(err)
			}
			st, gotAgreed, answer, agree, nReveals := answerOfTask(c, d.id)
			if st != agentrig.PhaseSettled || gotAgreed != want.Agreed || answer != want.Answer || int(agree) != want.Agree || int(nReveals) != want.Reveals {
				t.Fatalf("answerOf = %s agreed=%v answer=%x agree=%d reveals=%d; numeric.Agree = %+v (answers %s, behaviour %v)",
					st, gotAgreed, answer, agree, nReveals, want, describe(revealed), behaviour)
			}
			wantSlashes := 0
			k := 0
			for i := range q {
				if behaviour[i] != 0 {
					wantSlashes++
					missed++
					continue
				}
				if want.Agreed && !want.Verdicts[k] {
					wantSlashes++
				}
				k++
			}
			if got := len(events(rcpt, c.ABI.UnpackSlashedEvent)); got != wantSlashes {
				t.Fatalf("%d slashes, want %d (behaviour %v, verdicts %v)", got, wantSlashes, behaviour, want.Verdicts)
			}
			if want.Agreed {
				agreed++
			}
		})
		c.t = t
	}
	if agreed == 0 || agreed == cases || relayed == 0 || relayed == cases || missed == 0 {
		t.Fatalf("lopsided cases: %d agreed, %d relayed, %d missed windows of %d", agreed, relayed, missed, cases)
	}
	t.Logf("%d cases: %d agreed, %d relayed, %d missed windows", cases, agreed, relayed, missed)
	c.checkSolvent()
}

// randomCaseFor draws answers for a fixed rule: one per drawn rig (the rigs that miss a window
// simply never reveal theirs).
func randomCaseFor(r *rand.Rand, rule numeric.Rule) (numeric.Rule, []numeric.Answer) {
	for {
		got, answers := randomCase(r)
		if got.Kind != rule.Kind {
			continue
		}
		// Re-draw the answers for this quorum, keeping the generator's value shapes.
		for len(answers) < rule.Quorum {
			_, more := randomCase(r)
			answers = append(answers, more...)
		}
		if rule.Kind == numeric.Numeric && r.IntN(2) == 0 {
			// Half the numeric cases are prices close together, so that many agree.
			base := big.NewInt(1_000_000_000 + r.Int64N(1_000_000_000_000))
			for i := range answers {
				v := new(big.Int).Add(base, big.NewInt(r.Int64N(base.Int64()/1000+1)))
				answers[i], _ = numeric.NumericAnswer(v)
			}
		}
		return rule, answers[:rule.Quorum]
	}
}
