package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/robfig/cron/v3"
	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/agentrig"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/web"
)

func init() { register(newAuditCmd) }

type auditFlags struct {
	spec       specFlags
	journal    string
	db         string
	noCache    bool
	rpc        []string
	network    string
	addresses  []string
	minBalance string
	minutes    int
	since      time.Duration
	symbols    []string
	symbolOld  []string
	driftBps   string
	nearMiss   int
	staleAfter time.Duration
	asJSON     bool
	schedule   string
	metrics    string
	html       string
	verbose    bool
}

func newAuditCmd(a *app) *cobra.Command {
	var f auditFlags
	cmd := &cobra.Command{
		Use:   "audit [--config FILE] [--sim URL] [--journal rig.db] [--db FILE|URL] [--rpc URL --address 0x…] [--minutes N | --since D] [--symbols NVDA,TSLA] [--json] [--schedule CRON [--metrics ADDR]]",
		Short: "Check that the sources agree and the rig's answers stay inside the tolerance",
		Long: `Audit the sources, the rig journal, the operator and relayer balances and the price history,
and report what an operator should look at before the chain does.

sources   reconciles every symbol at the last closed minutes of the spec's sessions (on a
          Saturday, Friday's last), waiting for every source, and reports each one's status,
          distance to the answer and latency: source_drift, probable_split (off by a near-integer
          ratio: a split the spec does not record), source_down, source_unauthorized,
          source_rate_limited, missing_key, source_stale, source_no_data, no_answer.
rig       (--journal) settled tasks in the window: near_miss (past --near-miss % of the
          tolerance), slashed, not_agreed, missed_window, task_skipped, commit_pending /
          reveal_pending close to their deadlines; from the journal's accounts, unprofitable
          (a rig's finished tasks cost more gas and slashes than they earned) and wasted_gas
          (a transaction mined reverted).
balances  (--rpc and --address, repeated) low_balance under --min-balance ETH.
history   (--db) history_gap: session minutes of the window with no stored answer;
          history_failed: stored minutes whose quote from a source is a failed request, one
          finding per symbol, source and error_kind (a refused key, an outage, a rate limit).
revisions (the bar ledger: --db, else the rig's beside --journal, else the per-user store) rereads the window's bars from every
          source and reports revised: an answer (a task, a stored answer, a minute price answered
          from the ledger) taken from a bar its source changed afterwards, with the old and new
          close and the answer the final bars give now (an alert past the tolerance).

One shot (for system cron): a report, or one JSON object with --json. Exit 0 healthy, 1
findings, 2 a check could not run or bad input. With --schedule it runs in-process on a cron
schedule (five fields, or @hourly, @every 15m), never overlapping itself, logging each run and
serving Prometheus gauges on --metrics. With --journal each run's report is also kept in the
journal, so the operator's page of a rig on it (pricerig rig --http) shows the last findings;
--html FILE writes the report as one self-contained HTML page (inline SVG charts, no external
asset) for cron to mail or publish. See audit/README.md.`,
		Example: `  pricerig audit
  pricerig audit --since 15m --journal rig.db --json
  pricerig audit --rpc https://rpc.mainnet.chain.robinhood.com --address 0x… --address 0x… --min-balance 0.002
  pricerig audit --schedule '*/15 * * * *' --since 15m --journal rig.db --metrics 127.0.0.1:9464
  pricerig audit --since 15m --journal rig.db --html /var/www/pricerig/audit.html
  pricerig audit --sim http://127.0.0.1:8787 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAudit(cmd, a, &f) },
	}
	f.spec.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.journal, "journal", "", "the rig journal (SQLite path or postgres:// URL) to check settled and open tasks in")
	fl.StringVar(&f.db, "db", "", "the price history store (a SQLite `FILE` or a postgres:// URL, made if missing): checked for gaps, and the bar ledger the sources check reads first and fills (default: the rig's ledger beside --journal, as explain and doctor read, else the per-user store backfill fills, $XDG_CACHE_HOME/pricerig/"+cacheFile+")")
	fl.BoolVar(&f.noCache, "no-cache", false, "keep no bars: without --db, ask the sources for everything")
	fl.StringArrayVar(&f.rpc, "rpc", nil, "JSON-RPC URL of a node, to check the balances of --address; repeat it or give a comma-separated list for several endpoints (default: --network's public RPC)")
	fl.StringVar(&f.network, "network", "", "the chain the balances are on: "+strings.Join(agentrig.NetworkNames(), ", ")+"; its eth_chainId is checked first (default: whatever chain --rpc serves)")
	fl.StringSliceVar(&f.addresses, "address", nil, "an operator or relayer address whose balance to check (repeat the flag)")
	fl.StringVar(&f.minBalance, "min-balance", audit.DefaultMinBalance, "the least ETH an --address should hold")
	fl.IntVar(&f.minutes, "minutes", audit.DefaultMinutes, "audit the sources at the last N closed session minutes")
	fl.DurationVar(&f.since, "since", 0, "audit the last D instead: the sources at its session minutes, the journal and history over it")
	fl.StringSliceVar(&f.symbols, "symbols", nil, "the feed `SYMBOLS` to audit, comma-separated as backfill and devnet take them (default every feed of the spec)")
	// --symbol SYM, repeated, is how audit took them before --symbols: still accepted, with a note
	fl.StringSliceVar(&f.symbolOld, "symbol", nil, "one symbol (repeatable): the old spelling of --symbols")
	_ = fl.MarkHidden("symbol")
	fl.StringVar(&f.driftBps, "drift-bps", "", "a source whose median distance to the answer reaches this many bps has drifted (default half of outlier_bps)")
	fl.IntVar(&f.nearMiss, "near-miss", audit.DefaultNearMissPercent, "a settled answer farther than this percent of the tolerance from the stored median is a near miss")
	fl.DurationVar(&f.staleAfter, "stale-after", audit.DefaultStaleAfter, "a carried bar older than this before the minute is stale")
	fl.BoolVar(&f.asJSON, "json", false, "print one JSON object (one per line with --schedule)")
	fl.StringVar(&f.schedule, "schedule", "", `run in-process on a cron schedule, like "*/15 * * * *" or "@every 15m"`)
	fl.StringVar(&f.metrics, "metrics", "", "with --schedule, serve Prometheus metrics on this address, like 127.0.0.1:9464")
	fl.StringVar(&f.html, "html", "", "also write the report as one self-contained HTML file (rewritten after every scheduled run)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log at debug level")
	return cmd
}

func runAudit(cmd *cobra.Command, a *app, f *auditFlags) error {
	ctx := cmd.Context()
	cfg, err := f.config(cmd)
	if err != nil {
		return err
	}
	var sched cron.Schedule
	if f.schedule != "" {
		s, err := audit.ParseSchedule(f.schedule)
		if err != nil {
			return badInput("--schedule: %v", err)
		}
		sched = s
	} else if f.metrics != "" {
		return badInput("--metrics serves the gauges of a scheduled audit: it needs --schedule")
	}

	if len(f.symbolOld) > 0 {
		// on stderr: stdout is the report (--json: one object)
		fmt.Fprintf(a.stderr, "pricerig audit: note: --symbol is the old spelling of --symbols: read as --symbols %s\n", strings.Join(slices.Concat(f.symbols, f.symbolOld), ","))
	}
	spec, err := f.spec.load()
	if err != nil {
		return err
	}
	a.warn(spec)
	if f.spec.sim != "" {
		// The simulator is not the provider: pacing to the provider's budget would only slow
		// the run (pricerig sim --rate-limit emulates limits).
		for i := range spec.Sources {
			spec.Sources[i].Rate = sources.Rate{N: 1 << 30, Per: time.Second}
		}
	}
	for _, s := range cfg.Symbols {
		if _, ok := spec.Feed(s); !ok {
			return badInput("--symbols %s: the spec has %s", s, strings.Join(spec.Symbols(), ", "))
		}
	}
	cfg.Spec = spec

	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	// the journal first: one that is not there is refused before a ledger beside it is made
	var journal *rigjournal.DBJournal
	if f.journal != "" {
		j, err := openJournalToRead(f.journal, failedToRun)
		if err != nil {
			return err
		}
		defer j.Close()
		cfg.Journal, journal = j, j
	}
	store, err := openLedger(f.auditLedger(), f.noCache, logger)
	if err != nil {
		return err
	}
	if store != nil && f.db == "" && f.journal == "" {
		noteOldDefault(a.stderr, "audit", store.Path())
	}
	if store != nil {
		defer store.Close()
		cfg.Ledger = store
	}
	cfg.Deps = ledgerDeps(feeds.Deps{Deps: sources.Deps{Now: priceNow, Logger: logger}}, store)
	if f.db != "" {
		cfg.History = audit.StoreHistory{Store: store}
	}
	if len(f.rpc) > 0 {
		client, closeChain, err := f.dialChain(ctx)
		if err != nil {
			return err
		}
		defer closeChain()
		cfg.Chain = client
	}

	auditor, err := audit.New(cfg)
	if err != nil {
		return failedToRun("%v", err)
	}
	keep := keepAuditReport(ctx, journal, f.html, spec, logger)
	if sched == nil {
		rep := auditor.Run(ctx)
		keep(rep)
		if err := writeAuditReport(a.stdout, rep, f.asJSON, true); err != nil {
			return err
		}
		return auditExit(rep)
	}

	return runScheduledAudit(ctx, a, f, auditor.Run, sched, keep, logger)
}

// auditLedger is the bar ledger the audit reads and fills: --db, else with --journal the rig's
// ledger beside it (its bars and the evidence of its answers, so a revision of a bar a rig
// answered from is found, as explain and doctor read it), else "" (the per-user store).
func (f *auditFlags) auditLedger() string {
	if f.db == "" && f.journal != "" && !f.noCache {
		return ledgerBeside(f.journal)
	}
	return f.db
}

// dialChain connects to --rpc (one endpoint, or several as one pool) for the balances check
// and, with --network, checks that it serves that chain; the func closes what it dialed.
func (f *auditFlags) dialChain(ctx context.Context) (*ethclient.Client, func(), error) {
	var want *agentrig.Network
	if f.network != "" {
		nw, _ := agentrig.NetworkByName(f.network) // checked by config
		want = &nw
	}
	// the URLs' credentials (a /v3/KEY path, user:pass@) never reach a log line or an error
	urls, chainID := rpcList(f.rpc), uint64(0)
	if want != nil {
		chainID = want.ChainID
	}
	shown := shownRPCs(urls)
	client, pool, err := dialRPCs(ctx, urls, chainID, nil)
	if err != nil {
		return nil, nil, failedToRun("--rpc %s: %s", shown, redact.String(err.Error()))
	}
	closeAll := func() {
		client.Close()
		if pool != nil {
			pool.Close()
		}
	}
	if want != nil {
		if _, err := agentrig.CheckChain(ctx, client, want.ChainID); err != nil {
			closeAll()
			if errors.Is(err, agentrig.ErrWrongChain) {
				return nil, nil, badInput("--rpc %s: %v: it is not %s (chain id %d); nothing was checked", shown, err, want.Name, want.ChainID)
			}
			return nil, nil, failedToRun("--rpc %s: %s", shown, redact.String(err.Error()))
		}
	}
	return client, closeAll, nil
}

// keepAuditReport is what happens after each run: the report kept in the journal, for the
// operator's page of a rig on it, and written as HTML (--html). Neither changes the verdict; a
// failure is logged.
func keepAuditReport(ctx context.Context, journal *rigjournal.DBJournal, html string, spec *feeds.Spec, logger *slog.Logger) func(audit.Report) {
	return func(rep audit.Report) {
		if journal != nil {
			if b, err := json.Marshal(rep); err == nil {
				err = journal.RecordAudit(context.WithoutCancel(ctx), rep.At, b)
				if err != nil {
					logger.Warn("could not record the report in the journal", "error", err)
				}
			}
		}
		if html != "" {
			if err := writeAuditHTML(html, rep, journal, spec); err != nil {
				logger.Error("writing the HTML report", "file", html, "error", err)
			}
		}
	}
}

// runScheduledAudit runs the audit on its cron schedule until ctx ends, each report written as
// it comes and kept, with the gauges on --metrics.
func runScheduledAudit(ctx context.Context, a *app, f *auditFlags, run func(context.Context) audit.Report, sched cron.Schedule, keep func(audit.Report), logger *slog.Logger) error {
	s := &audit.Scheduler{
		Schedule: sched, Audit: run, Logger: logger, RunAtStart: true,
		OnReport: func(r audit.Report) {
			keep(r)
			if err := writeAuditReport(a.stdout, r, f.asJSON, false); err != nil {
				logger.Error("writing the report", "error", err)
			}
		},
	}
	if f.metrics != "" {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		s.Metrics = audit.NewMetrics(reg)
		stop, err := serveMetrics(f.metrics, reg, logger, nil)
		if err != nil {
			return failedToRun("--metrics %s: %v", f.metrics, err)
		}
		defer stop()
	}
	return s.Run(ctx)
}

// config checks the flags that need no spec and turns them into an audit configuration.
func (f *auditFlags) config(cmd *cobra.Command) (audit.Config, error) {
	var cfg audit.Config
	fl := cmd.Flags()
	for _, name := range []string{"journal", "db"} {
		if fl.Changed(name) {
			if err := storePath("--"+name, fl.Lookup(name).Value.String()); err != nil {
				return cfg, err
			}
		}
	}
	switch {
	case fl.Changed("minutes") && fl.Changed("since"):
		return cfg, badInput("give --minutes or --since, not both")
	case f.minutes < 1 || f.minutes > 1000:
		return cfg, badInput("--minutes must be between 1 and 1000, got %d", f.minutes)
	case fl.Changed("since") && f.since < time.Minute:
		return cfg, badInput("--since must be at least 1m, got %s", f.since)
	case f.nearMiss < 1 || f.nearMiss > 100:
		return cfg, badInput("--near-miss is a percent of the tolerance, 1 to 100; got %d", f.nearMiss)
	case f.staleAfter < time.Minute:
		return cfg, badInput("--stale-after must be at least 1m, got %s", f.staleAfter)
	}
	if f.html != "" {
		if st, err := os.Stat(filepath.Dir(f.html)); err != nil || !st.IsDir() {
			return cfg, badInput("--html %s: its folder does not exist", f.html)
		}
		if st, err := os.Stat(f.html); err == nil && st.IsDir() {
			return cfg, badInput("--html %s is a directory", f.html)
		}
	}
	cfg.Minutes, cfg.Since = f.minutes, f.since
	cfg.Thresholds = audit.Thresholds{NearMissPercent: f.nearMiss, StaleAfter: f.staleAfter}
	if f.driftBps != "" {
		c, err := parseCentiBps(f.driftBps)
		if err != nil {
			return cfg, badInput("--drift-bps: %v", err)
		}
		cfg.Thresholds.DriftCentiBps = c
	}
	for _, s := range slices.Concat(f.symbols, f.symbolOld) {
		s = strings.ToUpper(strings.TrimSpace(s))
		if s != "" && !slices.Contains(cfg.Symbols, s) {
			cfg.Symbols = append(cfg.Symbols, s)
		}
	}
	minBalance, err := audit.ParseETH(f.minBalance)
	if err != nil {
		return cfg, badInput("--min-balance: %v", err)
	}
	cfg.MinBalance = minBalance
	for _, text := range f.addresses {
		text = strings.TrimSpace(text)
		if !common.IsHexAddress(text) {
			return cfg, badInput("--address %q is not an address (0x and 40 hex digits)", text)
		}
		cfg.Addresses = append(cfg.Addresses, common.HexToAddress(text))
	}
	if f.network != "" {
		nw, err := agentrig.NetworkByName(f.network)
		if err != nil {
			return cfg, badInput("--network: %v", err)
		}
		if len(rpcList(f.rpc)) == 0 {
			if nw.RPC == "" {
				return cfg, badInput("--network %s has no public RPC: give --rpc", nw.Name)
			}
			f.rpc = []string{nw.RPC}
		}
	}
	switch {
	case len(cfg.Addresses) > 0 && len(rpcList(f.rpc)) == 0:
		return cfg, badInput("--address needs --rpc to read the balance from")
	case len(rpcList(f.rpc)) > 0 && len(cfg.Addresses) == 0:
		return cfg, badInput("--rpc checks the balances of --address: give the operator and relayer addresses")
	}
	return cfg, nil
}

// writeAuditHTML writes the report's HTML next to file and renames it into place, so a web
// server or a mailer never reads half a report.
func writeAuditHTML(file string, rep audit.Report, journal *rigjournal.DBJournal, spec *feeds.Spec) error {
	o := web.ReportOptions{ToleranceBps: spec.Job.ToleranceBps}
	if journal != nil {
		entries, err := journal.Since(context.Background(), rep.Window.From)
		if err != nil {
			return err
		}
		o.Entries, o.Journal = entries, true
		// A day before the window: a task settled in it may have been committed before it.
		ledger, err := journal.Ledger(context.Background(), rep.Window.From.Add(-24*time.Hour))
		if err != nil {
			return err
		}
		o.Money = web.LedgerMoney(ledger)
	}
	b, err := web.WriteAuditHTML(rep, o)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".pricerig-audit-*.html")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// parseCentiBps reads basis points with at most two decimals ("12.5") as hundredths of a bp.
func parseCentiBps(text string) (int64, error) {
	d, err := decimal.NewFromString(strings.TrimSpace(text))
	if err != nil || len(text) > 32 || d.Exponent() > 10 || d.Exponent() < -10 {
		return 0, fmt.Errorf("%q is not a number of basis points", text)
	}
	c := d.Shift(2)
	if !c.Equal(c.Truncate(0)) || !c.IsPositive() || c.GreaterThan(decimal.NewFromInt(1_000_000)) {
		return 0, fmt.Errorf("%q: want a positive number of basis points with at most two decimals, up to 10000", text)
	}
	return c.IntPart(), nil
}

func mustExist(flag, path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return badInput("%s %s: %v", flag, path, err)
	case st.IsDir():
		return badInput("%s %s is a directory", flag, path)
	}
	return nil
}

// failedToRun is exit 2: the audit could not run (as for bad input, nothing was judged).
func failedToRun(format string, args ...any) error {
	return &exitError{code: exitBadInput, err: fmt.Errorf(format, args...)}
}

func writeAuditReport(w io.Writer, r audit.Report, asJSON, indent bool) error {
	if !asJSON {
		if err := r.WriteText(w); err != nil {
			return err
		}
		if !indent { // scheduled: a blank line between runs
			_, err := io.WriteString(w, "\n")
			return err
		}
		return nil
	}
	enc := json.NewEncoder(w)
	if indent {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(r)
}

// auditExit turns a report into the command's exit: 0 healthy, 1 findings, 2 a check could not
// run. The report is already written; the error is the one line main prints.
func auditExit(r audit.Report) error {
	switch r.ExitCode() {
	case 0:
		return nil
	case 1:
		var names []string
		for _, f := range r.Findings {
			if !slices.Contains(names, f.Name) {
				names = append(names, f.Name)
			}
		}
		return failed("audit: %d finding%s (%s)", len(r.Findings), specPlural(len(r.Findings)), strings.Join(names, ", "))
	}
	var broken []string
	for _, c := range r.Checks {
		if c.State == audit.CheckError {
			broken = append(broken, c.Name+": "+c.Detail)
		}
	}
	return &exitError{code: exitBadInput, err: fmt.Errorf("audit: could not run: %s", strings.Join(broken, "; "))}
}
