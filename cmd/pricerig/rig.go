package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/dburl"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/rpcpool"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/web"
)

func init() { register(newRigCmd) }

type rigFlags struct {
	spec           specFlags
	chain          chainFlags
	keys           rigKeys
	journal        string
	db             string
	fromBlock      uint64
	l1RPC          string
	l1Interval     time.Duration
	metrics        string
	http           string
	httpPublic     bool
	allowSpecDrift bool
	job            uint32
	commitMargin   time.Duration
	stageDelay     time.Duration
	selfCheckShare int
	maxGasPrice    string
	leaseTTL       time.Duration
	instance       string
	logJSON        bool
	verbose        bool
	keep           history.Retention
}

func newRigCmd(a *app) *cobra.Command {
	var f rigFlags
	cmd := &cobra.Command{
		Use:   "rig [--network NAME] [--rpc URL] [--contract 0x…] (--keystore DIR | --key-env VAR) [flags]",
		Short: "Answer AgentRig job-2 tasks as one or more rigs",
		Long: `Run rigs on AgentRig's job 2 ("Verify a price"). For every task a rig is drawn for, pricerig
decodes and verifies the input, reconciles the price from the spec's sources, checks its distance
to the expected median, writes the answer and a fresh salt to the journal (synced to disk), and
only then commits; it reveals as soon as the reveal window opens, draws tasks nobody has drawn,
settles tasks nobody has settled, and records how far its answer was from the stored median.

Operator keys come from a go-ethereum keystore directory (one rig per key; the password from
--password-file or --password-env) or, for development, from hex keys in environment variables
(--key-env, repeatable). With --relayer-key-env the operators sign EIP-712 commits and reveals
and the relayer sends them all in one transaction; operators then need no gas.

The chain is --network (robinhood by default, its public RPC unless --rpc says otherwise); the
node's eth_chainId must be the network's. The contract is --contract or networks.NAME.contract
in the spec.

The rig refuses to start when the job's specURI is not the spec_uri of sources.yaml: a rig on
another spec disagrees with its peers (--allow-spec-drift overrides). A restart resumes from
the journal: never a second commit with a different salt, never a lost reveal.

With --journal postgres://… (or PRICERIG_JOURNAL_URL) any number of instances with the same keys
may run on different machines. One holds the lease of the keys (renewed every --lease-ttl/3) and
acts; the others follow the chain and take over within --lease-ttl of the leader's last renewal,
finishing what it left with the salts it journaled. A leader that lost its lease sends nothing.
--metrics also serves /healthz and /readyz (leader, or follower at the head).`,
		Example: `  pricerig rig --network robinhood --contract 0x… --keystore ~/.pricerig/keys --password-file ~/.pricerig/pw
  pricerig rig --network robinhood-testnet --rpc https://rpc.testnet.chain.robinhood.com --contract 0x… --keystore ~/.pricerig/keys
  PRICERIG_JOURNAL_URL=postgres://rig@db.internal/pricerig pricerig rig --contract 0x… --keystore ~/.pricerig/keys --metrics :9464
  PRICERIG_DEV_KEY=… pricerig rig --network devnet --rpc http://127.0.0.1:8545 --contract 0x… --key-env PRICERIG_DEV_KEY --sim http://127.0.0.1:8787`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// An unset --journal falls back to $PRICERIG_JOURNAL_URL or rig.db; only a
			// --journal given empty on purpose names no file.
			if cmd.Flags().Changed("journal") {
				if err := storePath("--journal", f.journal); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("db") {
				if err := historyMustExist(f.db); err != nil {
					return err
				}
			}
			if f.maxGasPrice != "" {
				if _, err := parseGwei(f.maxGasPrice); err != nil {
					return badInput("--max-gas-price: %v", err)
				}
			}
			if f.keep.Bars < 0 || f.keep.Evidence < 0 {
				return badInput("--ledger-keep and --evidence-keep must not be negative (0 keeps for ever)")
			}
			return runRig(cmd.Context(), a, f)
		},
	}
	f.spec.register(cmd)
	f.chain.register(cmd)
	fl := cmd.Flags()
	f.keys.register(cmd)
	fl.StringVar(&f.journal, "journal", "", "the journal of answers, salts and task states: a SQLite path, or a postgres:// URL that several instances share (default $PRICERIG_JOURNAL_URL, else rig.db)")
	fl.StringVar(&f.db, "db", "", "a backfill store (pricerig backfill --db: a SQLite `FILE` or a postgres:// URL): minutes it holds complete are answered without a fetch")
	fl.Uint64Var(&f.fromBlock, "from-block", 0, "block to start following from when the journal has no cursor (default: the block an hour and a minute back, the refund hour, found by time)")
	fl.StringVar(&f.l1RPC, "l1-rpc", "", "on a Nitro chain (Robinhood Chain), an L1 node whose latest block number says when a quiet chain has passed a task's order block (default: estimated from the head's time)")
	fl.DurationVar(&f.l1Interval, "l1-interval", 12*time.Second, "on a Nitro chain, how often its L1 makes a block (the devnet: its --l1-interval)")
	fl.StringVar(&f.metrics, "metrics", "", "serve Prometheus /metrics, /healthz and /readyz on this address, like 127.0.0.1:9464")
	fl.StringVar(&f.http, "http", "", "serve the operator's page (/, live) and the metrics (/metrics) on this loopback address, like 127.0.0.1:9464")
	fl.BoolVar(&f.httpPublic, "http-public", false, "let --http bind a non-loopback address (the page is read-only and shows no secret, but it shows stakes and balances)")
	fl.BoolVar(&f.allowSpecDrift, "allow-spec-drift", false, "run even when the job's specURI differs from sources.yaml's spec_uri")
	fl.Uint32Var(&f.job, "job", 2, "the job id of \"Verify a price\"")
	fl.DurationVar(&f.commitMargin, "commit-margin", 60*time.Second, "send the commit at least this long before the commit window closes")
	fl.DurationVar(&f.stageDelay, "stage-delay", 0, "how long each rank of the draw/settle schedule waits for the one before it (default: 2s on Robinhood Chain and on the devnet, which runs its chain id; 1s on chain id 1337; 4s elsewhere)")
	fl.StringVar(&f.maxGasPrice, "max-gas-price", "", "the most a commit, reveal, draw or settle may pay per gas, in gwei (like 0.05): above it answers are held back (logged) until the fee falls (default: no cap)")
	fl.IntVar(&f.selfCheckShare, "self-check-share", 50, "alert when our answer is farther than this percent of the tolerance from the expected median")
	fl.DurationVar(&f.leaseTTL, "lease-ttl", 10*time.Second, "with a PostgreSQL journal: how long the lease of the keys lasts unrenewed before a follower takes over")
	fl.StringVar(&f.instance, "instance", "", "with a PostgreSQL journal: this instance's name in the lease (default host/pid/random)")
	fl.DurationVar(&f.keep.Bars, "ledger-keep", history.DefaultRetention.Bars, "keep the bar ledger's bars that no answer used this long (0: for ever); an answer's evidence is kept for --evidence-keep")
	fl.DurationVar(&f.keep.Evidence, "evidence-keep", history.DefaultRetention.Evidence, "keep the bars each answer was derived from (pricerig explain --task) this long (0: for ever, as the journal keeps its tasks)")
	fl.BoolVar(&f.logJSON, "log-json", false, "log as JSON lines instead of text")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log debug detail (every request)")
	return cmd
}

func runRig(ctx context.Context, a *app, f rigFlags) error {
	if !f.keys.given() {
		return badInput("give operator keys with either --keystore DIR or --key-env VAR")
	}
	if f.http != "" {
		if err := web.CheckAddr(f.http, f.httpPublic); err != nil {
			return badInput("%v", err)
		}
	}
	keys, relayer, err := f.keys.load()
	if err != nil {
		return badInput("%v", err)
	}
	spec, err := f.spec.load()
	if err != nil {
		return err
	}
	a.warn(spec)
	logger := rigLogger(a, f)

	f.chain.logger = logger
	conn, err := f.chain.connect(ctx, spec)
	if err != nil {
		return err
	}
	defer conn.Close()
	client := conn.client
	if f.journal == "" {
		f.journal = cmp.Or(os.Getenv("PRICERIG_JOURNAL_URL"), "rig.db")
	}
	// connect reached the chain (eth_chainId) before the journal is made: a rig that cannot
	// start leaves no file.
	started := false
	journal, closeJournal, err := openRigJournal(f.journal, &started)
	if err != nil {
		return err
	}
	defer closeJournal()
	logger.Info("journal", "target", journal.Target(), "shared", journal.Shared())
	ledger, closeLedger, err := openRigLedger(ctx, f, logger, &started)
	if err != nil {
		return err
	}
	defer closeLedger()
	reconciler, err := feeds.New(spec, ledgerDeps(feeds.Deps{Deps: sources.Deps{Logger: logger}}, ledger))
	if err != nil {
		return failed("%v", err)
	}
	pricer, evidence, closeBackfill, err := backfillFirst(f.db, spec, reconciler, ledger, logger)
	if err != nil {
		return err
	}
	defer closeBackfill()
	var httpListener net.Listener
	clock, stopClock, err := chainClock(ctx, conn.network, f.l1RPC, f.l1Interval)
	if err != nil {
		return err
	}
	defer stopClock()
	var current atomic.Pointer[rig.Runner] // for /readyz, once it exists
	reg, metrics, stopMetrics, err := rigMetrics(f, logger, &current)
	if err != nil {
		return err
	}
	defer stopMetrics()
	if reg != nil && conn.pool != nil {
		reg.MustRegister(rpcpool.Collector{Pool: conn.pool})
	}
	var recorder *web.Recorder
	if f.http != "" {
		listener, err := web.Listen(f.http, f.httpPublic)
		if err != nil {
			return failed("http: %v", err)
		}
		defer listener.Close()
		recorder = web.NewRecorder(0, nil)
		pricer = recorder.Wrap(pricer)
		httpListener = listener
	}
	heads, closeHeads := followHeads(ctx, conn, logger)
	defer closeHeads()
	var sender txm.SenderConfig
	if f.maxGasPrice != "" {
		sender.MaxGasPrice, _ = parseGwei(f.maxGasPrice) // checked with the other flags
	}
	runner, err := rig.NewRunner(ctx, client, journal, pricer, rig.Config{
		Contract: conn.contract.Address, JobID: f.job, Operators: keys, Relayer: relayer, Heads: heads,
		FromBlock: f.fromBlock, Clock: clock, CommitMargin: f.commitMargin, StageDelay: f.stageDelay, SelfCheckShare: f.selfCheckShare,
		SpecURI: spec.SpecURI, AllowSpecDrift: f.allowSpecDrift, Inputs: task.SpecInputRules(spec),
		Logger: logger, Metrics: metrics, Lease: rig.LeaseConfig{TTL: f.leaseTTL, Holder: f.instance},
		Evidence: evidence, Sender: sender,
	})
	if err != nil {
		if errors.Is(err, rig.ErrSpecDrift) {
			return badInput("%v", err)
		}
		return failed("%v", err)
	}
	started = true
	current.Store(runner)
	if httpListener != nil {
		var relayerAddr *common.Address
		if relayer != nil {
			relayerAddr = &relayer.Address
		}
		opts := web.Options{Title: "pricerig rig", Chain: client, ChainURL: conn.rpcShown, Contract: conn.contract.Address,
			RoleOf: func() string { return pageRole(journal, runner) },
			JobID:  f.job, SelfCheckShare: f.selfCheckShare, Recorder: recorder, Logger: logger, Public: f.httpPublic,
			Processes: []web.Process{{Journal: journal, RigIDs: runner.RigIDs(), Relayer: relayerAddr}}}
		if conn.pool != nil {
			opts.ChainURL, opts.Endpoints = "", pageEndpoints(conn.pool)
		}
		_, stop := servePage(ctx, httpListener, web.New(opts), reg, logger)
		defer stop()
	}
	return runner.Run(ctx)
}

// followHeads is how the rig follows new heads by subscription: with several endpoints, the
// pool's (each endpoint followed by websocket where it offers one, polled otherwise); with one,
// a ws:// or wss:// --rpc subscribes itself, and for an http(s) one the same address over
// websockets when the node serves it there. Nil: polling. The func closes what it dialed.
func followHeads(ctx context.Context, conn *chainConn, logger *slog.Logger) (rig.HeadSubscriber, func()) {
	if conn.pool != nil {
		logger.Info("several RPC endpoints: reads from the healthiest, transactions sent to all", "rpc", conn.rpcShown, "healthy", conn.pool.Healthy())
		return conn.pool, func() {}
	}
	hc, err := rig.DialHeads(ctx, conn.rpcURL, 5*time.Second)
	switch {
	case err != nil:
		logger.Info("no websocket endpoint beside the RPC: following new heads by polling", "rpc", conn.rpcShown, "reason", shownURL(err.Error()))
	case hc != nil:
		logger.Info("following new heads over the RPC's websocket endpoint", "rpc", conn.rpcShown)
		return hc, hc.Close
	}
	return nil, func() {}
}

// rigMetrics makes the Prometheus registry and the rig's metrics when --metrics or --http asks
// for them, and serves /metrics and /readyz on --metrics when it is an address of its own (the
// page serves them on --http otherwise).
func rigMetrics(f rigFlags, logger *slog.Logger, current *atomic.Pointer[rig.Runner]) (*prometheus.Registry, *rig.Metrics, func(), error) {
	if f.metrics == "" && f.http == "" {
		return nil, nil, func() {}, nil
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := rig.NewMetrics(reg)
	if f.metrics == "" || f.metrics == f.http {
		return reg, metrics, func() {}, nil
	}
	stop, err := serveMetrics(f.metrics, reg, logger, func() (bool, string) {
		if r := current.Load(); r != nil {
			return r.Ready()
		}
		return false, "starting"
	})
	if err != nil {
		return nil, nil, nil, failed("metrics: %v", err)
	}
	return reg, metrics, stop, nil
}

// rigLogger is the rig's logger: text or JSON (--log-json) on stderr, debug with --verbose.
func rigLogger(a *app, f rigFlags) *slog.Logger {
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	var handler slog.Handler = slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level})
	if f.logJSON {
		handler = slog.NewJSONHandler(a.stderr, &slog.HandlerOptions{Level: level})
	}
	return slog.New(handler)
}

// isNewFile says whether target is a SQLite file that does not exist yet, so opening it makes
// it (a PostgreSQL database is never a file of ours to remove).
func isNewFile(target string) bool {
	if rigjournal.IsPostgresURL(target) {
		return false
	}
	_, err := os.Stat(target)
	return errors.Is(err, os.ErrNotExist)
}

// openRigJournal opens (or makes) the rig's journal at target. Its close removes a SQLite file
// this run made when the runner never started (*started still false): a rig that cannot start
// leaves no file.
func openRigJournal(target string, started *bool) (*rigjournal.DBJournal, func(), error) {
	fresh := isNewFile(target)
	registerDBSecrets(target)
	journal, err := rigjournal.OpenJournal(target)
	if err != nil {
		return nil, nil, failed("%v", err)
	}
	return journal, func() {
		journal.Close()
		if !*started && fresh {
			removeStoreFiles(target) // made by this run, which never ran
		}
	}, nil
}

// openRigLedger opens the bar ledger beside the journal: in its PostgreSQL database, so the
// instances share the leader's bars and quota counts, or in a SQLite file next to it. It is
// pruned every 6 hours while the rig runs, of its own bars only: what a backfill wrote into the
// same store, under whatever URL, is never pruned (history.Store.Prune). Its close stops the
// pruning first, and removes a file this run made when the runner never started.
func openRigLedger(ctx context.Context, f rigFlags, logger *slog.Logger, started *bool) (*history.Store, func(), error) {
	ledgerAt := ledgerBeside(f.journal)
	fresh := isNewFile(ledgerAt)
	ledger, err := history.Open(ledgerAt)
	if err != nil {
		return nil, nil, failed("the bar ledger: %v", err)
	}
	logger.Info("bar ledger", "target", ledger.Path())
	pruneCtx, cancel := context.WithCancel(ctx)
	pruned := make(chan struct{})
	go func() { defer close(pruned); ledger.PruneEvery(pruneCtx, f.keep, 6*time.Hour, time.Now, logger) }()
	stopPruning := func() { cancel(); <-pruned }
	return ledger, func() {
		stopPruning() // before the ledger closes
		ledger.Close()
		if !*started && fresh {
			removeStoreFiles(ledgerAt)
		}
	}, nil
}

// pageRole is what the page says of the instance: "single" on a journal of its own; on a shared
// (PostgreSQL) journal, whether it holds the lease of the keys (leader) or waits (follower).
func pageRole(j *rigjournal.DBJournal, r *rig.Runner) string {
	switch {
	case !j.Shared():
		return "single"
	case r.IsLeader():
		return "leader"
	}
	return "follower"
}

// ledgerBeside is where a rig keeps its bar ledger: in the journal's PostgreSQL database, or
// beside its SQLite file (rig.db: rig.ledger.db). SQLite keeps one schema version a file, so
// the two stores cannot share one.
func ledgerBeside(journal string) string {
	if rigjournal.IsPostgresURL(journal) {
		return journal
	}
	return strings.TrimSuffix(journal, filepath.Ext(journal)) + ".ledger.db"
}

// removeStoreFiles removes an SQLite file and its WAL companions.
func removeStoreFiles(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		_ = os.Remove(path + suffix)
	}
}

// backfillFirst is the rig's pricer and evidence keeper: with a backfill store (db), a minute
// it holds is answered from it (storePricer) and such an answer's bars are copied into the
// ledger with its evidence (history.Evidencer.Backfill); without, the reconciler and the ledger.
func backfillFirst(db string, spec *feeds.Spec, reconciler rig.Pricer, ledger *history.Store, logger *slog.Logger) (rig.Pricer, history.Evidencer, func(), error) {
	evidence := history.Evidencer{Store: ledger, Spec: spec}
	if db == "" {
		return reconciler, evidence, func() {}, nil
	}
	store, err := openHistory(db, failed)
	if err != nil {
		return nil, evidence, nil, err
	}
	evidence.Backfill = store
	return storePricer{store: store, spec: spec, next: reconciler, log: logger}, evidence, func() { store.Close() }, nil
}

// storePricer answers a minute from the backfill store when the store holds it complete and
// reconciled under the spec's rules, and asks the sources otherwise.
type storePricer struct {
	store *history.Store
	spec  *feeds.Spec
	next  rig.Pricer
	log   *slog.Logger
}

func (p storePricer) Price(ctx context.Context, symbol string, minute time.Time, opts ...feeds.PriceOption) (feeds.Result, error) {
	// the rule is price --db's too (history.StoreFirst); the rig says where each answer came from
	return history.StoreFirst{Store: p.store, Spec: p.spec, Next: p.next,
		Stored: func(res feeds.Result) {
			p.log.Info("price from the store", "symbol", res.Symbol, "minute", res.Minute.Format(time.RFC3339), "price", res.Price.String())
		},
		Missed: func(symbol string, minute time.Time, why string, err error) error {
			switch {
			case err != nil:
				p.log.Warn("price store unreadable; asking the sources", "error", err)
			case why != "":
				p.log.Info("store minute not usable; asking the sources", "symbol", symbol, "minute", minute.Format(time.RFC3339), "why", why)
			}
			return nil // the store is a shortcut: the sources answer what it cannot
		},
	}.Price(ctx, symbol, minute, opts...)
}

// servePage serves the operator's page and, with reg, /metrics on l until the returned stop is
// called.
func servePage(ctx context.Context, l net.Listener, page *web.Server, reg *prometheus.Registry, logger *slog.Logger) (string, func()) {
	mux := http.NewServeMux()
	if reg != nil {
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	}
	mux.Handle("/", page.Handler())
	// No write timeout: the page's live updates are one long response.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	pageCtx, cancel := context.WithCancel(ctx)
	go page.Run(pageCtx)
	go func() { _ = srv.Serve(l) }()
	base := "http://" + l.Addr().String()
	logger.Info("serving the operator's page", "page", base+"/", "metrics", base+"/metrics")
	return base + "/", func() {
		cancel()
		_ = srv.Close()
	}
}

// serveMetrics serves /metrics on addr until the returned stop is called.
// Beside it, /healthz answers 200 while the process runs, and /readyz 200 when ready says so
// (503 with the reason otherwise; always ready when ready is nil).
func serveMetrics(addr string, reg *prometheus.Registry, logger *slog.Logger, ready func() (bool, string)) (func(), error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		ok, why := true, "ready"
		if ready != nil {
			ok, why = ready()
		}
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		fmt.Fprintln(w, why)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	logger.Info("serving metrics", "url", "http://"+l.Addr().String()+"/metrics")
	return func() { _ = srv.Close() }, nil
}

// registerDBSecrets keeps a journal's or store's URL password out of every output. Only the
// password: the user name of a database (often "postgres") is no secret, and registering it
// would redact the word wherever it appears.
func registerDBSecrets(target string) { redact.Register(dburl.Secrets(target)...) }

// chainClock is the network's block numbering (agentrig.ChainClock): on a Nitro chain, reading L1's
// block number from l1RPC when given.
func chainClock(ctx context.Context, nw agentrig.Network, l1RPC string, interval time.Duration) (agentrig.ChainClock, func(), error) {
	if interval <= 0 {
		return nil, nil, badInput("--l1-interval %s: want a positive duration", interval)
	}
	var l1 agentrig.L1Reader
	stop := func() {}
	if l1RPC != "" {
		redact.Register(redact.URLSecrets(l1RPC)...)
		c, err := ethclient.DialContext(ctx, l1RPC)
		if err != nil {
			return nil, nil, failed("--l1-rpc %s: %s", redact.URL(l1RPC), shownURL(err.Error()))
		}
		l1, stop = c, c.Close
	}
	clock, err := agentrig.ClockFor(nw.Blocks, nw.Name, interval, l1)
	if err != nil {
		stop()
		return nil, nil, badInput("network %s: %v", nw.Name, err)
	}
	return clock, stop, nil
}
