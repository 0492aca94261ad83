package doctor

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// newLedger makes a current store, as price or the rig leave one.
func newLedger(t *testing.T) (string, *history.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	st, err := history.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return path, st
}

// The doctor spends from the ledger's quota counts as price and the rig do: a source with
// quota 3/day, one request already spent by another process, has 1 left after the doctor's own;
// the next run uses the last (over_quota, a warning), and the one after does not ask it at all.
func TestQuotaLeftIsReadFromTheLedgerAndCountsTheDoctor(t *testing.T) {
	env := newSimEnv(t, tuesday)
	path, st := newLedger(t)
	spec := env.spec(t, []string{"yahoo"})
	q := sources.Quota{{N: 3, Per: sources.QuotaDay}}
	spec.Sources[0].Settings.Quota = q
	// another process (a price on the same store, the same origin and key) spent one an hour ago
	yahoo := accountOf(spec.Sources[0], nil)
	if err := st.Spend(context.Background(), yahoo, q, tuesday.Add(-60*60e9)); err != nil {
		t.Fatal(err)
	}

	rep := env.run(t, Options{Spec: spec, Ledger: path})
	c := one(t, rep, "quota", "yahoo")
	if c.Verdict != OK || !strings.Contains(c.Detail, "1 of 3/day left") || !strings.Contains(c.Detail, path) {
		t.Errorf("first run: %+v, want ok, 1 of 3/day left in %s", c, path)
	}
	if s, err := st.Standing(context.Background(), yahoo, q, tuesday); err != nil || s.Limits[0].Used != 2 {
		t.Errorf("the store counts %+v (%v), want the doctor's request counted: 2", s, err)
	}

	rep = env.run(t, Options{Spec: spec, Ledger: path})
	if c := one(t, rep, "quota", "yahoo"); c.Verdict != Warn || c.Problem != OverQuota || c.Fix == "" {
		t.Errorf("second run: %+v, want over_quota with a fix", c)
	}
	if c := one(t, rep, "source", "yahoo"); c.Verdict != OK {
		t.Errorf("second run's request was in the quota: %+v", c)
	}

	asked := env.sim.Requests("yahoo")
	rep = env.run(t, Options{Spec: spec, Ledger: path})
	c = one(t, rep, "source", "yahoo")
	if c.Verdict != Warn || c.Problem != OverQuota || c.ErrorKind != sources.KindOverQuota || !strings.Contains(c.Detail, "not asked") {
		t.Errorf("third run: %+v, want over_quota, not asked", c)
	}
	if n := env.sim.Requests("yahoo"); n != asked {
		t.Errorf("a source over its quota was asked (%d requests, %d before)", n, asked)
	}
	if rep.Exit() != 0 {
		t.Errorf("over quota is a warning, exit %d", rep.Exit())
	}
}

// A plan refusal opens the source's breaker in the ledger (as the rig's would): the quota line
// says so with its fix. The next doctor asks the refused source once more (its key or plan may
// have been fixed): refused again, the breaker is open again, from this run's refusal; once the
// plan is fixed, the doctor's request is answered and the breaker closed, for every process on
// the ledger at once (issue 32: it stayed open for 30 minutes after the fix, and the doctor kept
// failing).
func TestAnOpenBreakerIsAskedOnceMoreAndClosedWhenItAnswers(t *testing.T) {
	env := newSimEnv(t, tuesday)
	env.sim.SetFault("fmp", sim.FaultNotEntitled)
	path, st := newLedger(t)
	spec := env.spec(t, []string{"fmp"})

	rep := env.run(t, Options{Spec: spec, Ledger: path})
	if c := one(t, rep, "source", "fmp"); c.Problem != PlanRefused {
		t.Errorf("first run: %+v, want plan_refused", c)
	}
	c := one(t, rep, "quota", "fmp")
	if c.Verdict != Warn || c.Problem != BreakerOpen || !strings.Contains(c.Detail, "HTTP 402") || !strings.Contains(c.Fix, "key or plan") {
		t.Errorf("first run's quota: %+v, want breaker_open after the 402 (a warning: the source line is the failure), with a fix", c)
	}
	if rep.Count(Fail) != 1 {
		t.Errorf("first run: %d failures, want the refusal's alone", rep.Count(Fail))
	}

	asked := env.sim.Requests("fmp")
	rep = env.run(t, Options{Spec: spec, Ledger: path})
	if c := one(t, rep, "source", "fmp"); c.Verdict != Fail || c.Problem != PlanRefused {
		t.Errorf("second run, still refused: %+v, want plan_refused", c)
	}
	if n := env.sim.Requests("fmp"); n != asked+1 {
		t.Errorf("a source whose breaker is open was asked %d times by the next doctor, want once", n-asked)
	}
	if c := one(t, rep, "quota", "fmp"); c.Problem != BreakerOpen || !strings.Contains(c.Detail, "refusal above") {
		t.Errorf("second run's quota: %+v, want breaker_open again, by this run's refusal", c)
	}

	env.sim.SetFault("fmp", sim.FaultNone) // the plan is fixed (its quota is none: what was sent is said)
	spec.Sources[0].Settings.Quota = sources.NoQuota
	spec.Sources[0].Settings.Rate = sources.Rate{N: 60, Per: time.Minute} // no daily allowance either
	rep = env.run(t, Options{Spec: spec, Ledger: path})
	c = one(t, rep, "source", "fmp")
	if c.Verdict != OK || !strings.Contains(c.Detail, "closed now") {
		t.Errorf("after the fix: %+v, want ok, the breaker closed", c)
	}
	if c := one(t, rep, "quota", "fmp"); c.Problem == BreakerOpen || !strings.Contains(c.Detail, "no quota; 3 requests sent in the last 24 h") {
		t.Errorf("after the fix, the quota line: %+v, want the breaker closed and the 3 requests of the 3 runs said", c)
	}
	if s, err := st.Standing(context.Background(), accountOf(spec.Sources[0], nil), nil, tuesday); err != nil || s.Breaker != nil {
		t.Errorf("after the fix, the ledger's breaker: %+v (%v), want closed for every process", s.Breaker, err)
	}
	if rep.Exit() != 0 {
		t.Errorf("after the fix: exit %d, want 0", rep.Exit())
	}
}

// Without a ledger the doctor counts its own request and changes nothing on disk.
func TestQuotaWithoutALedgerCountsThisRun(t *testing.T) {
	env := newSimEnv(t, tuesday)
	spec := env.spec(t, []string{"yahoo"})
	spec.Sources[0].Settings.Quota = sources.Quota{{N: 5, Per: sources.QuotaHour}}
	missing := filepath.Join(t.TempDir(), "none.db")
	rep := env.run(t, Options{Spec: spec, Ledger: missing})
	c := one(t, rep, "quota", "yahoo")
	if c.Verdict != OK || !strings.Contains(c.Detail, "4 of 5/hour left") || !strings.Contains(c.Detail, "no ledger") {
		t.Errorf("%+v, want 4 of 5/hour left, no ledger", c)
	}
	if _, err := history.Inspect(context.Background(), missing); err == nil {
		t.Errorf("the doctor made a ledger at %s", missing)
	}
}
