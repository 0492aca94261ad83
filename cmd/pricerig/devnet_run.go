package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/devnet"
	"github.com/pricerig/pricerig/sources/sim"
	"github.com/pricerig/pricerig/web"
)

// devnetFlags is what `pricerig devnet` is told.
type devnetFlags struct {
	config    string
	symbols   []string
	minute    string
	keep      bool
	asJSON    bool
	verbose   bool
	noRelayer bool
	timeout   time.Duration
	rigs      int
	funded    int
	chainID   uint64
	commitWin time.Duration
	baseFee   string
	l1BaseFee string
	revealWin time.Duration
	httpAddr  string
	public    bool
	l1Block   uint64
	l1Every   time.Duration
	heartbeat time.Duration
	clockSkew time.Duration
	instant   bool
	lags      []string
	revises   []string
	dir       string
}

// devnetRun is one devnet's life as the command prints it: the tasks' labels and the start time
// the events are stamped from.
type devnetRun struct {
	f      devnetFlags
	out    io.Writer
	errOut io.Writer // what the devnet waits for, kept off stdout so --json stays one object
	start  time.Time
	labels map[uint64]string
}

// event prints a task's step as it happens (nothing with --json), and to stderr what a task
// waits for when no step came for a few seconds.
func (r *devnetRun) event(e devnet.Event) {
	if e.Waiting {
		fmt.Fprintf(r.errOut, "%6.1fs  task %d %-5s waiting %s\n", time.Since(r.start).Seconds(), e.TaskID, r.labels[e.TaskID], e.Detail)
		return
	}
	if r.f.asJSON {
		return
	}
	line := fmt.Sprintf("%6.1fs  task %d %-5s %s", time.Since(r.start).Seconds(), e.TaskID, r.labels[e.TaskID], e.Phase)
	if e.Detail != "" && e.Phase != "ordered" {
		line += "  " + e.Detail
	}
	fmt.Fprintln(r.out, line)
}

// options checks the flags and turns them into the devnet's options and the minute to order
// (zero: the devnet's default).
func (f *devnetFlags) options(logger *slog.Logger) (devnet.Options, time.Time, string, error) {
	var at time.Time
	spec, specName, err := specSource(f.config)
	if err != nil {
		return devnet.Options{}, at, "", badInput("%v", err)
	}
	if f.minute != "" {
		if at, err = feeds.ParseMinute(f.minute); err != nil {
			return devnet.Options{}, at, "", badInput("--minute: %v", err)
		}
	}
	if f.httpAddr != "" {
		if err := web.CheckAddr(f.httpAddr, f.public); err != nil {
			return devnet.Options{}, at, "", badInput("%v", err)
		}
	}
	for i, s := range f.symbols {
		f.symbols[i] = strings.ToUpper(strings.TrimSpace(s))
	}
	switch {
	case f.rigs < 0:
		return devnet.Options{}, at, "", badInput("--rigs %d: want 0 or more", f.rigs)
	case f.funded < 1:
		return devnet.Options{}, at, "", badInput("--funded-keys %d: want 1 or more", f.funded)
	case f.commitWin < 0 || f.commitWin%time.Second != 0 || f.revealWin < 0 || f.revealWin%time.Second != 0:
		return devnet.Options{}, at, "", badInput("--commit-window and --reveal-window are whole seconds")
	case f.l1Block == 0 || f.l1Every <= 0 || f.heartbeat < 0:
		return devnet.Options{}, at, "", badInput("--l1-block and --l1-interval are positive, --heartbeat not negative")
	case f.clockSkew < 0:
		return devnet.Options{}, at, "", badInput("--clock-skew %s: only a sequencer behind the rigs can be simulated (go-ethereum refuses blocks stamped in its future)", f.clockSkew)
	}
	var gasPrice *big.Int
	if f.baseFee != "" {
		if gasPrice, err = parseGwei(f.baseFee); err != nil {
			return devnet.Options{}, at, "", badInput("--base-fee: %v", err)
		}
	}
	l1BaseFee, err := parseGweiOrZero(f.l1BaseFee)
	if err != nil {
		return devnet.Options{}, at, "", badInput("--l1-base-fee: %v", err)
	}
	layout := make([]int, f.rigs)
	for i := range layout {
		layout[i] = 1
	}
	if f.dir != "" {
		// the folder may be new; a file where it should be is refused by MkdirAll
		if err := os.MkdirAll(f.dir, 0o700); err != nil {
			return devnet.Options{}, at, "", badInput("--dir: %v", err)
		}
	}
	opts := devnet.Options{Spec: spec, Logger: logger, NoRelayer: f.noRelayer, Dir: f.dir,
		Layout: layout, FundedKeys: f.funded, ChainID: f.chainID, CommitWindow: f.commitWin, RevealWindow: f.revealWin, GasPrice: gasPrice, L1BaseFee: l1BaseFee, Instant: f.instant,
		L1Block: f.l1Block, L1Interval: f.l1Every, Heartbeat: f.heartbeat, ClockSkew: f.clockSkew}
	base := sim.DefaultPublication
	if f.instant {
		base = func(string) sim.Publication { return sim.Instant }
	}
	if opts.Publications, err = simPublications(base, f.lags, f.revises); err != nil {
		return devnet.Options{}, at, "", badInput("%v", err)
	}
	return opts, at, specName, nil
}

// runDevnet starts the devnet, orders one task per symbol when there are enough rigs, follows
// them to their answers and prints them; with --keep it stays up until interrupted.
func runDevnet(ctx context.Context, a *app, f devnetFlags) error {
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	opts, at, specName, err := f.options(logger)
	if err != nil {
		return err
	}
	run := &devnetRun{f: f, out: a.stdout, errOut: a.stderr, start: time.Now(), labels: map[uint64]string{}}
	opts.Events = run.event
	runCtx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	var recorder *web.Recorder
	if f.httpAddr != "" {
		recorder = web.NewRecorder(0, nil)
		opts.WrapPricer = func(_ int, p rig.Pricer) rig.Pricer { return recorder.Wrap(p) }
	}
	d, err := devnet.Start(runCtx, opts)
	if err != nil {
		return failed("devnet: %v", err)
	}
	defer closeDevnet(a.stderr, d, f.dir != "")
	if f.httpAddr != "" {
		pageURL, stop, err := serveDevnetPage(ctx, d, f.httpAddr, f.public, recorder, logger)
		if err != nil {
			return failed("devnet: %v", err)
		}
		defer stop()
		fmt.Fprintf(a.stderr, "devnet: the operator's page of the devnet's rigs: %s\n", pageURL)
	}
	if at.IsZero() {
		at = devnet.DefaultMinute(time.Now(), d.Spec.Rules.Sessions)
	}
	if !f.asJSON {
		run.printStarted(d, specName)
	}
	reports, err := run.orderAndWait(runCtx, d, at)
	if err != nil {
		return err
	}
	allAgreed, err := run.print(d, at, reports)
	if err != nil {
		return err
	}
	if f.keep {
		// The devnet keys are public and worthless: printed whole, past the writer that would take
		// PRICERIG_DEV_KEY=… for a secret parameter.
		printKeep(redact.Underlying(a.stderr), d, f.config, at)
		<-ctx.Done()
	}
	if !allAgreed {
		return failed("not every task agreed")
	}
	return nil
}

// closeDevnet stops the devnet and says where its folder stays: always with --dir, and for a
// temporary folder when it holds something the devnet did not make (Close keeps it then).
func closeDevnet(w io.Writer, d *devnet.Devnet, chosen bool) {
	if err := d.Close(); err != nil {
		fmt.Fprintf(w, "devnet: closing: %v\n", err)
	}
	if chosen {
		fmt.Fprintf(w, "devnet: kept its folder %s (--dir)\n", d.Dir)
		return
	}
	if _, err := os.Stat(d.Dir); err == nil {
		foreign, _ := d.Foreign()
		fmt.Fprintf(w, "devnet: kept its folder %s: it holds %s, which the devnet did not make\n", d.Dir, strings.Join(foreign, ", "))
	}
}

// printStarted names what the devnet runs: the chain, the simulator, each rig process.
func (r *devnetRun) printStarted(d *devnet.Devnet, specName string) {
	fmt.Fprintf(r.out, "devnet: chain %s (chain id %d), AgentRig %s\n", d.Chain.URL, d.ChainID, d.Contract.Hex())
	fmt.Fprintf(r.out, "devnet: provider simulator %s, spec %s (%s)\n", d.SimURL, d.Spec.SpecURI, specName)
	for i, rp := range d.Runners {
		mode := "direct"
		if r.relayed(d, i) {
			mode = "relayed"
		}
		fmt.Fprintf(r.out, "devnet: rig process %d: rig %v, %s\n", i+1, rp.RigIDs(), mode)
	}
	kept := "removed on exit unless it holds files the devnet did not make"
	if r.f.dir != "" {
		kept = "kept on exit"
	}
	fmt.Fprintf(r.out, "devnet: journals and ledgers in %s (%s)\n", d.Dir, kept)
}

// relayed says whether rig process i is the relayed one (the last, unless --no-relayer).
func (r *devnetRun) relayed(d *devnet.Devnet, i int) bool {
	return i == len(d.Runners)-1 && !r.f.noRelayer
}

// orderAndWait orders one task per symbol at the minute and waits for their answers; with fewer
// rigs than job 2's quorum it orders nothing.
func (r *devnetRun) orderAndWait(ctx context.Context, d *devnet.Devnet, at time.Time) ([]devnet.TaskReport, error) {
	if r.f.rigs < devnetQuorum {
		if !r.f.asJSON {
			fmt.Fprintf(r.out, "devnet: %d rig(s), fewer than job 2's quorum of %d: nothing ordered\n", r.f.rigs, devnetQuorum)
		}
		return nil, nil
	}
	if !r.f.asJSON {
		fmt.Fprintf(r.out, "devnet: ordering job 2 for %s at %s\n", strings.Join(r.f.symbols, ", "), at.Format(time.RFC3339))
	}
	ids, err := d.Order(ctx, r.f.symbols, at)
	if err != nil {
		return nil, failed("devnet: %v", err)
	}
	for i, id := range ids {
		r.labels[id] = r.f.symbols[i]
	}
	reports, err := d.Wait(ctx, ids)
	if err != nil {
		return nil, failed("devnet: %v", err)
	}
	return reports, nil
}

// print writes the tasks' answers (a JSON object with --json) and says whether every task agreed.
func (r *devnetRun) print(d *devnet.Devnet, at time.Time, reports []devnet.TaskReport) (bool, error) {
	allAgreed := true
	for _, rep := range reports {
		allAgreed = allAgreed && rep.Agreed
	}
	elapsed := time.Since(r.start)
	if r.f.asJSON {
		res := devnetOutput{RPC: d.Chain.URL, ChainID: d.ChainID, Contract: d.Contract.Hex(), Sim: d.SimURL,
			Minute: at.Format(time.RFC3339), Tasks: devnetTasksJS(reports), Agreed: allAgreed, Elapsed: elapsed.Milliseconds()}
		for i, rp := range d.Runners {
			res.Rigs = append(res.Rigs, devnetRigProcessJS{Rigs: rp.RigIDs(), Relayed: r.relayed(d, i)})
		}
		enc := json.NewEncoder(r.out)
		enc.SetIndent("", "  ")
		return allAgreed, enc.Encode(res)
	}
	if len(reports) > 0 {
		printDevnetReports(r.out, reports, r.labels)
		verdict := "every task agreed"
		if !allAgreed {
			verdict = "NOT every task agreed"
		}
		fmt.Fprintf(r.out, "devnet: %s in %.1fs\n", verdict, elapsed.Seconds())
	}
	return allAgreed, nil
}
