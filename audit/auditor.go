package audit

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/journal"
)

// Journal is what the rig check reads of the rig journal; *journal.DBJournal has it.
type Journal interface {
	// Since returns the entries updated at or after t.
	Since(ctx context.Context, t time.Time) ([]journal.Entry, error)
	// Open returns the entries that are not final.
	Open(ctx context.Context) ([]journal.Entry, error)
}

// BalanceReader reads balances; *ethclient.Client has it.
type BalanceReader interface {
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
}

// Config is what an Auditor audits, and with what.
type Config struct {
	Spec *feeds.Spec
	// Deps are the clock, logger and transport of the sources and the reconciler; Now is also
	// the audit's clock.
	Deps feeds.Deps
	// Symbols to audit; nil means every feed of the spec.
	Symbols []string
	// The window: the last Minutes closed session minutes, or with Since > 0 the session
	// minutes of the last Since (at most MaxMinutes of them). See SelectWindow.
	Minutes    int
	Since      time.Duration
	MaxMinutes int
	Thresholds Thresholds
	// Journal enables the rig check; nil skips it.
	Journal Journal
	// History enables the history check; nil skips it.
	History History
	// Ledger enables the revisions check: the bar ledger the sources check reads and fills (the
	// reconciler's too when Deps.Ledger is nil), which the audit rereads its window's bars into
	// and whose revised closes it reads; nil skips it.
	Ledger Ledger
	// Chain and Addresses enable the balances check; MinBalance is in wei (nil: DefaultMinBalance).
	Chain      BalanceReader
	Addresses  []common.Address
	MinBalance *big.Int
	// PaceBudget is how long a run waits on a source's own pacing (sources.yaml rate:) beyond
	// the spec's deadline. A source too slow to serve every symbol within it is audited for
	// as many symbols as it can, picked at random each run. Default DefaultPaceBudget.
	PaceBudget time.Duration
}

// DefaultPaceBudget: a run waits up to a minute on the sources' pacing, which serves every
// symbol of the shipped sources.yaml (massive's and alphavantage's 5/min: 12 s apart); tiingo's
// 50/h and fmp's 250/day are allowances, which pace nothing (sources.PaceSpan).
const DefaultPaceBudget = time.Minute

// CheckState is how one check of a run ended.
type CheckState string

// The states of a check.
const (
	CheckOK       CheckState = "ok"       // ran, nothing found
	CheckFindings CheckState = "findings" // ran, found something
	CheckSkipped  CheckState = "skipped"  // not configured (no --journal, no --rpc, no --db)
	CheckError    CheckState = "error"    // could not run
)

// CheckResult is one check of a run.
type CheckResult struct {
	Name     string     `json:"name"`
	State    CheckState `json:"state"`
	Findings int        `json:"findings"`
	// Detail says what was looked at, why the check was skipped, or why it failed.
	Detail string `json:"detail,omitempty"`
}

// Report is one audit run.
type Report struct {
	At       time.Time
	Took     time.Duration
	Window   Window
	Symbols  []string
	Checks   []CheckResult
	Findings []Finding
	Sources  SourcesReport
	Balances []Balance
}

// Healthy reports whether every check ran and found nothing.
func (r Report) Healthy() bool { return r.ExitCode() == 0 }

// ExitCode is the one-shot command's exit status: 2 when a check could not run, 1 with
// findings, 0 when healthy.
func (r Report) ExitCode() int {
	for _, c := range r.Checks {
		if c.State == CheckError {
			return 2
		}
	}
	if len(r.Findings) > 0 {
		return 1
	}
	return 0
}

// Check returns a check's result by name.
func (r Report) Check(name string) (CheckResult, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return CheckResult{}, false
}

// Auditor runs audits. Its sources (and their rate limiters) live as long as it does, so a
// scheduled audit paces its requests across runs. Runs must not overlap (Scheduler sees to it).
type Auditor struct {
	cfg     Config
	members []feeds.Member // the spec's sources, built once, each usable one a *sharedSource
	shared  map[string]*sharedSource
	symbols []string
	rng     *rand.Rand // picks the symbols a paced source is audited for
	// rec is the run's reconciler (sources check), which the revisions check re-derives with
	rec *feeds.Reconciler
	// reread counts the run's rereads of its window into the ledger, and their failures
	reread, rereadFailed int
}

// New builds the spec's sources and an auditor over them.
func New(cfg Config) (*Auditor, error) {
	if cfg.Spec == nil {
		return nil, errors.New("audit: no spec")
	}
	cfg.Deps.Deps = cfg.Deps.Deps.WithDefaults()
	if cfg.Ledger != nil && cfg.Deps.Ledger == nil {
		cfg.Deps.Ledger = cfg.Ledger
	}
	cfg.Thresholds = cfg.Thresholds.WithDefaults(cfg.Spec.Rules.OutlierBps)
	if cfg.PaceBudget <= 0 {
		cfg.PaceBudget = DefaultPaceBudget
	}
	if cfg.MinBalance == nil {
		cfg.MinBalance, _ = ParseETH(DefaultMinBalance)
	}
	symbols := cfg.Symbols
	if len(symbols) == 0 {
		symbols = cfg.Spec.Symbols()
	}
	for _, s := range symbols {
		if _, ok := cfg.Spec.Feed(s); !ok {
			return nil, fmt.Errorf("audit: the spec has no feed for %q (it has %v)", s, cfg.Spec.Symbols())
		}
	}
	members, err := feeds.BuildSources(cfg.Spec, cfg.Deps.Deps)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	a := &Auditor{cfg: cfg, shared: map[string]*sharedSource{}, symbols: symbols, members: members,
		rng: rand.New(rand.NewPCG(uint64(cfg.Deps.Now().UnixNano()), 0x61756469))}
	for i, m := range members {
		if m.Source == nil {
			continue
		}
		s := &sharedSource{Source: m.Source}
		a.shared[m.Name] = s
		members[i].Source = s
	}
	return a, nil
}

// Symbols are the symbols the auditor audits.
func (a *Auditor) Symbols() []string { return slices.Clone(a.symbols) }

// Run audits once. Every configured check runs; one that cannot run is reported in the result
// (CheckError), not returned.
func (a *Auditor) Run(ctx context.Context) Report {
	a.rec, a.reread, a.rereadFailed = nil, 0, 0
	now := a.cfg.Deps.Now().UTC()
	rep := Report{At: now, Symbols: a.Symbols()}
	rep.Window = SelectWindow(now, a.cfg.Spec.Rules.Sessions, a.cfg.Minutes, a.cfg.Since, a.cfg.MaxMinutes)

	rep.add(a.sources(ctx, &rep))
	rep.add(a.rig(ctx, rep.Window, now))
	rep.add(a.balances(ctx, &rep))
	rep.add(a.history(ctx, rep.Window))
	rep.add(a.revisions(ctx, rep.Window))
	rep.Took = a.cfg.Deps.Now().Sub(now)
	return rep
}

func (r *Report) add(c CheckResult, findings []Finding) {
	c.Findings = len(findings)
	if c.State == "" {
		c.State = CheckOK
		if len(findings) > 0 {
			c.State = CheckFindings
		}
	}
	r.Checks = append(r.Checks, c)
	r.Findings = append(r.Findings, findings...)
}

func (a *Auditor) sources(ctx context.Context, rep *Report) (CheckResult, []Finding) {
	c := CheckResult{Name: CheckSourcesName}
	minutes := rep.Window.Minutes
	if len(minutes) == 0 {
		c.State, c.Detail = CheckError, "no closed minute of the spec's sessions to audit"
		return c, nil
	}
	spans := spansOf(minutes, a.cfg.Spec.Rules.Window)
	for _, s := range a.shared {
		s.begin(spans)
	}
	requests := len(spans)
	if a.cfg.Ledger != nil {
		// the reread's request of each span, and the check's own for minutes not final yet
		requests *= 2
	}
	rec, paced := a.reconciler(requests)
	a.rec = rec
	a.rereadWindow(ctx, spans)
	perSymbol := make([][]Sample, len(a.symbols))
	errs := make([]error, len(a.symbols))
	var wg sync.WaitGroup
	for i, sym := range a.symbols {
		wg.Go(func() {
			for _, m := range minutes {
				res, err := rec.Price(ctx, sym, m, feeds.WaitAll())
				if err != nil && len(res.Quotes) == 0 {
					errs[i] = fmt.Errorf("%s at %s: %w", sym, m.Format(time.RFC3339), err)
					return
				}
				perSymbol[i] = append(perSymbol[i], a.sample(sym, res))
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.State, c.Detail = CheckError, redact.Error(err)
		return c, nil
	}
	var samples []Sample
	for _, s := range perSymbol {
		samples = append(samples, s...)
	}
	rep.Sources = CheckSources(samples, a.cfg.Thresholds)
	c.Detail = fmt.Sprintf("%s × %s, %d sources", plural(len(a.symbols), "symbol"), plural(len(minutes), "minute"), len(a.cfg.Spec.Sources))
	if len(paced) > 0 {
		c.Detail += "; paced by their rate, audited for fewer symbols this run: " + strings.Join(paced, ", ")
	}
	if rep.Window.Note != "" {
		c.Detail += "; " + rep.Window.Note
	}
	return c, rep.Sources.Findings
}

// paceShare is how many of n symbols a source paced at one request per interval can be asked
// for when each costs spans requests and the run waits at most budget on the pacing (at least
// one), and how long the last of its requests waits.
func paceShare(interval, budget time.Duration, spans, n int) (k int, wait time.Duration) {
	if interval <= 0 {
		return n, 0
	}
	allowed := 1 + int(budget/interval) // the first goes at once, then one per interval
	k = min(max(1, allowed/spans), n)
	return k, min(time.Duration(k*spans-1)*interval, budget)
}

// reconciler builds this run's reconciler over the auditor's sources. Each source makes one
// request per symbol and span, every symbol's first at once, so a source paced at one request
// per interval I serves the k-th request (k−1)·I late. The deadline is stretched to wait for
// that, up to PaceBudget; a source that cannot serve every symbol within it is left out of the
// feeds of the symbols it will not be asked for this run (paced lists them, for the report).
func (a *Auditor) reconciler(spans int) (rec *feeds.Reconciler, paced []string) {
	rules := a.cfg.Spec.Rules
	budget := a.cfg.PaceBudget
	drop := map[string]map[string]bool{} // source → symbols it is not asked for
	var wait time.Duration
	for _, m := range a.members {
		if m.Source == nil {
			continue
		}
		interval := m.Source.Coverage().Rate.Pace().Interval() // an hourly or daily rate is an allowance, not a pace
		if interval <= 0 {
			continue
		}
		k, w := paceShare(interval, budget, spans, len(a.symbols))
		wait = max(wait, w)
		if k == len(a.symbols) {
			continue
		}
		keep := a.rng.Perm(len(a.symbols))[:k]
		drop[m.Name] = map[string]bool{}
		var kept []string
		for i, sym := range a.symbols {
			if slices.Contains(keep, i) {
				kept = append(kept, sym)
			} else {
				drop[m.Name][sym] = true
			}
		}
		paced = append(paced, fmt.Sprintf("%s (one request per %s: %s)", m.Name, interval, strings.Join(kept, ", ")))
	}
	rules.Deadline += wait
	fs := make([]feeds.Feed, len(a.cfg.Spec.Feeds))
	for i, f := range a.cfg.Spec.Feeds {
		fs[i] = f
		fs[i].Sources = slices.DeleteFunc(slices.Clone(f.Sources), func(s feeds.FeedSource) bool { return drop[s.Source][f.Symbol] })
	}
	cfg := feeds.Config{Rules: rules, Feeds: fs, Splits: a.cfg.Spec.Splits, Members: a.members}
	return feeds.NewReconciler(cfg, a.cfg.Deps), paced
}

// sample attaches what the shared sources kept to a result: the latency of the real requests in
// place of the near-zero one of a minute served from a shared fetch.
func (a *Auditor) sample(symbol string, res feeds.Result) Sample {
	s := Sample{Result: res}
	res.Quotes = slices.Clone(res.Quotes)
	for i, q := range res.Quotes {
		src := a.shared[q.Source]
		if src == nil {
			continue
		}
		// a quote the reread's request filled the ledger for makes no request of its own
		if d, ok := src.latencyOf(q.Symbol); ok && (q.Requests > 0 || a.reread > 0) {
			res.Quotes[i].Latency = d
		}
	}
	s.Result = res
	return s
}

func (a *Auditor) rig(ctx context.Context, w Window, now time.Time) (CheckResult, []Finding) {
	c := CheckResult{Name: CheckRigName}
	if a.cfg.Journal == nil {
		c.State, c.Detail = CheckSkipped, "no journal (--journal)"
		return c, nil
	}
	recent, err := a.cfg.Journal.Since(ctx, w.From)
	if err != nil {
		c.State, c.Detail = CheckError, "reading the journal: "+redact.Error(err)
		return c, nil
	}
	open, err := a.cfg.Journal.Open(ctx)
	if err != nil {
		c.State, c.Detail = CheckError, "reading the journal: "+redact.Error(err)
		return c, nil
	}
	entries := dedupe(append(recent, open...))
	settled := 0
	for _, e := range entries {
		if e.State == journal.StateSettled {
			settled++
		}
	}
	tol := a.cfg.Spec.Job.ToleranceBps
	c.Detail = fmt.Sprintf("%s since %s (%d settled, %d open), tolerance %d bps, near miss past %d%% of it",
		plural(len(entries), "task"), w.From.Format(time.RFC3339), settled, len(open), tol, a.cfg.Thresholds.NearMissPercent)
	findings := CheckRig(entries, now, w.From, tol, a.cfg.Thresholds)
	if book, ok := a.cfg.Journal.(Accounts); ok {
		ledger, err := book.Ledger(ctx, w.From)
		if err != nil {
			c.State, c.Detail = CheckError, "reading the journal's accounts: "+redact.Error(err)
			return c, findings
		}
		c.Detail += moneyDetail(ledger)
		findings = append(findings, CheckMoney(ledger, entries)...)
	}
	return c, findings
}

func (a *Auditor) balances(ctx context.Context, rep *Report) (CheckResult, []Finding) {
	c := CheckResult{Name: CheckBalancesName}
	switch {
	case a.cfg.Chain == nil:
		c.State, c.Detail = CheckSkipped, "no RPC (--rpc)"
		return c, nil
	case len(a.cfg.Addresses) == 0:
		c.State, c.Detail = CheckSkipped, "no addresses (--address)"
		return c, nil
	}
	var errs []error
	for _, addr := range a.cfg.Addresses {
		wei, err := a.cfg.Chain.BalanceAt(ctx, addr, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", addr.Hex(), err))
			continue
		}
		rep.Balances = append(rep.Balances, Balance{Address: addr, Wei: wei})
	}
	findings := CheckBalances(rep.Balances, a.cfg.MinBalance)
	if len(errs) > 0 {
		c.State, c.Detail = CheckError, "reading balances: "+redact.Error(errors.Join(errs...))
		return c, findings
	}
	c.Detail = fmt.Sprintf("%s, minimum %s ETH", plural(len(rep.Balances), "address"), FormatETH(a.cfg.MinBalance))
	return c, findings
}
