package doctor

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/sources"
)

// Verdict is what a check found: nothing to do, something to look at, or something that stops
// the rig from answering correctly.
type Verdict string

// The verdicts, from best to worst.
const (
	OK   Verdict = "ok"
	Warn Verdict = "warn"
	Fail Verdict = "fail"
)

// Check is one line of the report: what was checked and on what, the verdict, what is wrong by
// name (Problem, "" when nothing is), what was found, and the one thing to do about it.
type Check struct {
	// Check names what was checked: source, bar_age, clock, chain_id, contract, job, rig,
	// gas, break_even, journal, lease, store.
	Check   string  `json:"check"`
	Subject string  `json:"subject,omitempty"` // which one: a source, an operator, a lease, a path
	Verdict Verdict `json:"verdict"`
	Problem string  `json:"problem,omitempty"`
	Detail  string  `json:"detail"`
	Fix     string  `json:"fix,omitempty"`
	// ErrorKind is the kind of a source's failed request (sources.ErrorKind).
	ErrorKind sources.ErrorKind `json:"error_kind,omitempty"`
	// LatencyMS is how long a source's request took.
	LatencyMS int64 `json:"latency_ms,omitempty"`
	// SkewMS is the clock's estimated offset from the references (clock): positive when this
	// machine's clock is behind theirs.
	SkewMS *int64 `json:"skew_ms,omitempty"`
}

// Options say what to check. The sources and the clock are always checked; the chain, the
// journal and the store when given.
type Options struct {
	Spec *feeds.Spec
	// Deps are the sources' clock, logger and transport. Deps.Now is the clock every check
	// reads (and the one the clock check judges).
	Deps sources.Deps
	// Chain, when set, checks the node, the contract, the job, the rigs and their gas.
	Chain *Chain
	// Journal and Store are the rig's journal and the price history (--journal, --db): a
	// SQLite path or a postgres:// URL; "" leaves them out.
	Journal, Store string
	// Ledger is the store whose quota counts and breakers the sources spend from (the rig's
	// ledger beside its journal, price's --db or per-user cache): the doctor's requests are
	// counted there and each source's quota left is read from it. Used only when there and
	// current (nothing is made or migrated); "" or otherwise, this run's requests alone.
	Ledger string
	// Timeout bounds the whole run; default DefaultTimeout.
	Timeout time.Duration
	// MaxSkew is the clock skew past which the clock fails; default DefaultMaxSkew.
	MaxSkew time.Duration
}

// Defaults of Options.
const (
	DefaultTimeout = 30 * time.Second
	// DefaultMaxSkew is "a few seconds": an NTP-synced machine is within milliseconds, and a Date
	// header's second plus a request's flight is read to within about a second, so a skew past
	// 2 s is the clock's, not the reading's.
	DefaultMaxSkew = 2 * time.Second
)

// Report is one doctor run.
type Report struct {
	At     time.Time
	Took   time.Duration
	Checks []Check
	// Kept says where the report was kept (the journal), or why not; "" without --journal.
	Kept string
}

// Exit is the command's exit code: 1 when a check failed, else 0 (warnings allowed).
func (r Report) Exit() int {
	if r.Count(Fail) > 0 {
		return 1
	}
	return 0
}

// Count is how many checks have verdict v.
func (r Report) Count(v Verdict) int {
	n := 0
	for _, c := range r.Checks {
		if c.Verdict == v {
			n++
		}
	}
	return n
}

// Run checks everything opts names and returns the report, keeping it in the journal when the
// journal is there and current. It never fails: what cannot be checked is a check's verdict.
func Run(ctx context.Context, o Options) Report {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxSkew <= 0 {
		o.MaxSkew = DefaultMaxSkew
	}
	o.Deps = o.Deps.WithDefaults()
	if o.Chain != nil && o.Chain.TasksPerDay <= 0 {
		c := *o.Chain
		c.TasksPerDay = DefaultTasksPerDay
		o.Chain = &c
	}
	started := time.Now()
	rep := Report{At: o.Deps.Now().UTC()}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	budget, budgetAt, closeBudget := openBudget(ctx, o.Ledger)
	defer closeBudget()
	o.Deps.Budget = budget

	var wg sync.WaitGroup
	var probes []probe
	var chain chainResult
	var journal, store []Check
	wg.Go(func() { probes = probeSources(ctx, o) })
	if o.Chain != nil {
		wg.Go(func() { chain = o.Chain.check(ctx, o.Spec) })
	}
	if o.Journal != "" {
		wg.Go(func() { journal = checkJournal(ctx, o.Journal) })
	}
	if o.Store != "" {
		wg.Go(func() { store = []Check{checkStore(ctx, o.Store)} })
	}
	wg.Wait()

	for i, p := range probes {
		rep.Checks = append(rep.Checks, p.checks...)
		if s := o.Spec.Sources[i]; s.Usable() {
			rep.Checks = append(rep.Checks, checkQuota(ctx, budget, budgetAt, s, p, rep.At))
		}
	}
	rep.Checks = append(rep.Checks, checkClock(probes, chain.head, rep.At, o.MaxSkew, o.Chain != nil))
	rep.Checks = append(rep.Checks, chain.checks...)
	rep.Checks = append(rep.Checks, journal...)
	rep.Checks = append(rep.Checks, store...)
	rep.Took = time.Since(started)
	if o.Journal != "" {
		rep.Kept = keep(context.WithoutCancel(ctx), o.Journal, journal, rep)
	}
	return rep
}

// MarshalJSON writes the report as `pricerig doctor --json` prints it (and the journal keeps it).
func (r Report) MarshalJSON() ([]byte, error) {
	checks := r.Checks
	if checks == nil {
		checks = []Check{}
	}
	return json.Marshal(struct {
		At     time.Time      `json:"at"`
		Exit   int            `json:"exit"`
		TookMS int64          `json:"took_ms"`
		Counts map[string]int `json:"counts"`
		Checks []Check        `json:"checks"`
		Kept   string         `json:"kept,omitempty"`
	}{r.At, r.Exit(), r.Took.Milliseconds(), map[string]int{"ok": r.Count(OK), "warn": r.Count(Warn), "fail": r.Count(Fail)}, checks, r.Kept})
}
