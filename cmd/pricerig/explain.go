package main

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/explain"
	"github.com/pricerig/pricerig/feeds"
)

func init() { register(newExplainCmd) }

// explainOpts is what `pricerig explain` was asked.
type explainOpts struct {
	spec    specFlags
	chain   chainFlags
	onChain bool // --network, --rpc or --contract given: a task's reveals are read on chain
	db      string
	journal string
	task    uint64
	asJSON  bool
	symbol  string
	minute  time.Time
}

func newExplainCmd(a *app) *cobra.Command {
	var o explainOpts
	cmd := &cobra.Command{
		Use:   "explain (SYMBOL MINUTE | --task N [--network NAME] [--rpc URL] [--contract 0x…]) [--db FILE|URL] [--journal rig.db] [--json]",
		Short: "Show how an answer was made, derived again from the bar ledger alone",
		Long: `Derive the answer of a minute (or of a task the rig answered) again from the bar ledger alone,
with no request to any source, and show how it is made: each source's bars around the minute as
the ledger holds them (time, close, volume, when fetched, final or provisional), the bar each
source used or carried from and why, the outliers dropped, the lower median and the answer
× 10^8. For --task N: the answer the journal's rigs committed and revealed, their distance to the
stored median, and whether the answer derived again equals the one committed; with a chain
(--network, --rpc or --contract), every drawn rig's reveal on chain and its distance to the
stored median. A stored bar a later fetch changed is listed, marked when changed after the answer.

The ledger is the store --db names, else the rig's beside --journal (rig.ledger.db, or the
journal's PostgreSQL database), else the per-user store backfill and price fill. A task's symbol and minute
come from the journal, else from the evidence the rig's ledger keeps of every answer it commits
(pricerig rig --evidence-keep).

Exit 0 when the answer derived again is an answer (and, for a task, the committed one); 1 when it
is not; 2 for bad input.`,
		Example: `  pricerig explain NVDA 2026-11-27T15:30Z
  pricerig explain --json TSLA 1795793400
  pricerig explain --task 1234 --journal rig.db`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.parse(cmd, args); err != nil {
				return err
			}
			return runExplain(cmd.Context(), a, o)
		},
	}
	o.spec.register(cmd)
	o.chain.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&o.db, "db", "", "the bar ledger to read (a SQLite `FILE` or a postgres:// URL; default: the rig's beside --journal, else the per-user store backfill fills)")
	fl.StringVar(&o.journal, "journal", "", "the rig's journal (SQLite path or postgres:// URL): a task's rigs and answers")
	fl.Uint64Var(&o.task, "task", 0, "explain this task's answer instead of SYMBOL MINUTE")
	fl.BoolVar(&o.asJSON, "json", false, "print one JSON object")
	return cmd
}

// parse checks the arguments: SYMBOL MINUTE, or --task alone.
func (o *explainOpts) parse(cmd *cobra.Command, args []string) error {
	switch {
	case cmd.Flags().Changed("task") && len(args) > 0:
		return badInput("give SYMBOL MINUTE or --task N, not both")
	case cmd.Flags().Changed("task") && o.task == 0:
		return badInput("--task must be a task id, got 0")
	case !cmd.Flags().Changed("task") && len(args) != 2:
		return badInput("give SYMBOL MINUTE (like NVDA 2026-11-27T15:30Z) or --task N")
	}
	o.onChain = cmd.Flags().Changed("network") || cmd.Flags().Changed("rpc") || cmd.Flags().Changed("contract")
	if o.onChain && !cmd.Flags().Changed("task") {
		return badInput("the chain is read for a task: give --task N with --network, --rpc or --contract")
	}
	for _, name := range []string{"db", "journal"} {
		if v := cmd.Flags().Lookup(name).Value.String(); v != "" {
			if err := storePath("--"+name, v); err != nil {
				return err
			}
			registerDBSecrets(v)
		}
	}
	if len(args) == 2 {
		o.symbol = strings.ToUpper(strings.TrimSpace(args[0]))
		m, err := feeds.ParseMinute(args[1])
		if err != nil {
			return badInput("minute: %v", err)
		}
		o.minute = m
	}
	return nil
}

// runExplain opens the ledger (and the journal), explains and prints.
func runExplain(ctx context.Context, a *app, o explainOpts) error {
	spec, err := o.spec.load()
	if err != nil {
		return err
	}
	if _, ok := spec.Feed(o.symbol); o.task == 0 && !ok {
		return badInput("unknown symbol %q: the spec has %s", o.symbol, strings.Join(spec.Symbols(), ", "))
	}
	at := o.db
	if at == "" {
		at = budgetLedger(o.journal, "") // the rig's beside its journal, else the per-user store
		if o.journal == "" {
			noteOldDefault(a.stderr, "explain", at)
		}
	}
	if at == "" {
		return badInput("no bar ledger: give --db or --journal")
	}
	ledger, err := openHistory(at, failed)
	if err != nil {
		return err
	}
	defer ledger.Close()
	opts := explain.Options{Spec: spec, Ledger: ledger, Symbol: o.symbol, Minute: o.minute, Task: o.task}
	if o.journal != "" {
		j, err := openJournalToRead(o.journal, failed)
		if err != nil {
			return err
		}
		defer j.Close()
		opts.Journal = j
	}
	if o.onChain {
		conn, err := o.chain.connect(ctx, spec)
		if err != nil {
			return err
		}
		defer conn.Close()
		opts.Chain = conn.contract
	}
	rep, err := explain.Run(ctx, opts)
	if err != nil {
		return failed("explain: %v", err)
	}
	if o.asJSON {
		err = a.printJSON(rep)
	} else {
		err = rep.WriteText(a.stdout)
	}
	switch {
	case err != nil:
		return err
	case rep.Task != nil && rep.Task.Refusal != "":
		return nil // answered the spec's refusal_answer, as every rig did
	case rep.Task != nil && rep.Task.EvidenceDiffers != "":
		return failed("task %s: %s", strconv.FormatUint(o.task, 10), rep.Task.EvidenceDiffers)
	case !rep.Agreed:
		return failed("no answer from the ledger: %s", rep.Reason)
	case rep.Task != nil && !rep.Task.Rederived:
		return failed("task %s: the answer derived again (%s) is not the one committed (%s)", strconv.FormatUint(o.task, 10), rep.Answer, rep.Task.Committed)
	}
	return nil
}
