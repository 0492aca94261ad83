package main

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/doctor"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/sources"
)

func init() { register(newDoctorCmd) }

type doctorFlags struct {
	spec        specFlags
	chain       chainFlags
	keys        rigKeys
	journal     string
	db          string
	tasksPerDay int
	fromBlock   uint64
	maxGasPrice string
	timeout     time.Duration
	maxSkew     time.Duration
	asJSON      bool
}

func newDoctorCmd(a *app) *cobra.Command {
	var f doctorFlags
	cmd := &cobra.Command{
		Use:   "doctor [--config FILE] [--network NAME] [--rpc URL] [--contract 0x…] [--keystore DIR | --key-env VAR…] [--journal rig.db] [--db FILE|URL] [--json]",
		Short: "Check, before staking, that this machine, its keys, node and databases will answer correctly",
		Long: `An operator's preflight: every check prints a verdict (ok, warn, fail), what it found and the one
thing to do about it, one line each.

sources   each source of the spec, with one request for the last minutes of one symbol of its
          feed: its key variables set (missing_key names them), the key accepted (key_refused),
          the plan entitled to 1-minute bars (plan_refused: HTTP 402 or 403, Massive's
          NOT_AUTHORIZED, Alpha Vantage's premium endpoint), the provider reachable
          (unreachable); and, in a regular session, its latest bar's age against its
          final_after (bars_late).
clock     this machine's clock against the providers' Date headers and the chain head's time: a
          skew past --max-skew (2s) fails, since it moves every minute-closed, finality and commit
          window decision the rig makes.
chain     (--network, --rpc or --contract) the node's chain id against the network, code at the
          contract's address, job 2 against the spec's job: (kind, quorum, tolerance, spec_uri,
          price, slash), each operator's rig (active, its free stake against the slash), the gas
          key's balance in days of --tasks-per-day at today's gas price, and the gas price past
          which a task costs more than it earns. Keys as pricerig rig takes them; without keys
          the rigs are not checked.
journal   (--journal) there, reachable, writable (a write rolled back: nothing changes), its
          schema current (older: it will migrate, a warning; newer: a failure), and on PostgreSQL
          each lease of instances sharing it, who holds it and how old it is.
store     (--db) the same of the price history the rig answers stored minutes from.
quota     each source's requests left today (and this hour or month) by its quota, read from
          the ledger price and the rig spend from (the rig's beside --journal, else --db, else
          the per-user store): the doctor's one request is counted there too. A source over its
          quota (over_quota) or whose breaker a plan refusal opened (breaker_open) is not asked.

Nothing is sent on chain and no database is migrated. Exit 0 when nothing failed (warnings
allowed), 1 when a check failed, 2 on bad input. --json prints one object (each check's check, subject, verdict,
problem, detail, fix). With --journal the report is kept in the journal (when it is current),
and the operator's page of a rig on it shows the last one.`,
		Example: `  pricerig doctor
  pricerig doctor --network robinhood --contract 0x… --keystore ~/.pricerig/keys --journal rig.db --db prices.db
  pricerig doctor --network devnet --rpc http://127.0.0.1:8545 --contract 0x… --key-env PRICERIG_DEV_KEY --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := f.options(cmd)
			if err != nil {
				return err
			}
			return runDoctor(cmd.Context(), a, opts, f.asJSON)
		},
	}
	f.spec.register(cmd)
	f.chain.register(cmd)
	f.keys.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.journal, "journal", "", "the rig's journal to check (SQLite path or postgres:// URL); the report is kept in it")
	fl.StringVar(&f.db, "db", "", "the price history `FILE` (or postgres:// URL) the rig reads (pricerig backfill --db) to check")
	fl.IntVar(&f.tasksPerDay, "tasks-per-day", doctor.DefaultTasksPerDay, "tasks a day each rig is reckoned to answer, for the gas key's days")
	fl.StringVar(&f.maxGasPrice, "max-gas-price", "", "the rig's --max-gas-price (gwei): say whether today's fee holds its answers back")
	fl.Uint64Var(&f.fromBlock, "from-block", 0, "look for the rigs' latest commit and reveal (their gas) from this block (default: a million blocks back)")
	fl.DurationVar(&f.timeout, "timeout", doctor.DefaultTimeout, "the most the whole run may take")
	fl.DurationVar(&f.maxSkew, "max-skew", doctor.DefaultMaxSkew, "the clock skew past which the clock check fails")
	fl.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	return cmd
}

// runDoctor runs the checks, prints the report and turns it into the exit code.
func runDoctor(ctx context.Context, a *app, opts doctor.Options, asJSON bool) error {
	if opts.Chain != nil {
		if node, ok := opts.Chain.Node.(interface{ Close() }); ok {
			defer node.Close()
		}
	}
	rep := doctor.Run(ctx, opts)
	if asJSON {
		if err := a.printJSON(rep); err != nil {
			return err
		}
	} else if err := rep.WriteText(a.stdout); err != nil {
		return err
	}
	if rep.Exit() == 0 {
		return nil
	}
	var names []string
	for _, c := range rep.Checks {
		if c.Verdict == doctor.Fail && !slices.Contains(names, c.Problem) {
			names = append(names, c.Problem)
		}
	}
	return failed("doctor: %d check%s failed (%s)", rep.Count(doctor.Fail), specPlural(rep.Count(doctor.Fail)), strings.Join(names, ", "))
}

// options checks the flags and turns them into the doctor's options. Bad input (a flag that
// names nothing, a spec that does not load) is exit 2; what is wrong with the world is a check's.
func (f *doctorFlags) options(cmd *cobra.Command) (doctor.Options, error) {
	var o doctor.Options
	fl := cmd.Flags()
	for _, name := range []string{"journal", "db"} {
		if fl.Changed(name) {
			if err := storePath("--"+name, fl.Lookup(name).Value.String()); err != nil {
				return o, err
			}
			registerDBSecrets(fl.Lookup(name).Value.String())
		}
	}
	switch {
	case f.tasksPerDay < 1:
		return o, badInput("--tasks-per-day must be at least 1, got %d", f.tasksPerDay)
	case f.timeout <= 0:
		return o, badInput("--timeout must be positive, got %s", f.timeout)
	case f.maxSkew <= 0:
		return o, badInput("--max-skew must be positive, got %s", f.maxSkew)
	case f.keys.keystore != "" && len(f.keys.keyEnvs) > 0:
		return o, badInput("give operator keys with either --keystore DIR or --key-env VAR, not both")
	}
	spec, err := f.spec.load()
	if err != nil {
		return o, err
	}
	o = doctor.Options{Spec: spec, Journal: f.journal, Store: f.db, Ledger: budgetLedger(f.journal, f.db), Timeout: f.timeout, MaxSkew: f.maxSkew,
		// no logger: what a source warns of (a retry, a late bar) the checks say
		Deps: sources.Deps{Now: priceNow}}
	if !fl.Changed("network") && !fl.Changed("rpc") && !fl.Changed("contract") {
		if f.keys.any() {
			return o, badInput("the keys are checked on a chain: give --network, --rpc or --contract")
		}
		return o, nil
	}
	o.Chain, err = f.chainOptions(cmd.Context(), spec)
	return o, err
}

// budgetLedger is the store whose quota counts the doctor reads and spends from: the rig's
// ledger beside its journal, else the store --db names (as price and audit keep theirs), else
// the per-user store.
func budgetLedger(journal, db string) string {
	switch {
	case journal != "":
		return ledgerBeside(journal)
	case db != "":
		return db
	}
	path, err := userCache()
	if err != nil {
		return ""
	}
	return path
}

// chainOptions resolves the chain flags as every chain command does, dials the node (a node
// that cannot be dialled is the chain check's failure, not bad input) and loads the keys.
func (f *doctorFlags) chainOptions(ctx context.Context, spec *feeds.Spec) (*doctor.Chain, error) {
	nw, urls, contract, err := f.chain.resolve(spec)
	if err != nil {
		return nil, err
	}
	c := &doctor.Chain{RPC: shownRPCs(urls), Network: nw, Contract: contract, TasksPerDay: f.tasksPerDay, FromBlock: f.fromBlock}
	if f.maxGasPrice != "" {
		if c.MaxGasPrice, err = parseGwei(f.maxGasPrice); err != nil {
			return nil, badInput("--max-gas-price: %v", err)
		}
	}
	if client, _, err := dialRPCs(ctx, urls, nw.ChainID, nil); err != nil {
		c.DialErr = err
	} else {
		c.Node = client
	}
	if len(urls) > 1 {
		// each endpoint on its own as well: its chain id, head and lag
		for _, u := range urls {
			e := doctor.Endpoint{RPC: redact.URL(u)}
			if client, err := ethclient.DialContext(ctx, u); err != nil {
				e.DialErr = err
			} else {
				e.Node = client
			}
			c.Endpoints = append(c.Endpoints, e)
		}
	}
	if f.keys.any() {
		keys, relayer, err := f.keys.load()
		if err != nil {
			c.KeysErr = err
		}
		for _, k := range keys {
			c.Operators = append(c.Operators, k.Address)
		}
		if relayer != nil {
			c.Relayer = &relayer.Address
		}
	}
	return c, nil
}
