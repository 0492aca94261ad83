package devnet

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"golang.org/x/sync/errgroup"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// The seed's launch jobs, published by the house as builder.
var launchJobs = []struct {
	name   string
	kind   numeric.Kind
	quorum uint8
	price  *big.Int // wei
	slash  *big.Int
	tolBps uint32
	spec   string
}{
	{"Prove a hook", numeric.Exact, 3, gwei(20_000), gwei(10_000), 0, "data:text/plain,prove-a-hook"},
	{"Verify a price", numeric.Numeric, 3, gwei(10_000), gwei(10_000), 50, ""}, // spec: the sources.yaml's spec_uri
	{"Label data", numeric.Exact, 3, gwei(10_000), gwei(10_000), 0, "data:text/plain,label-data"},
}

// DefaultGasPrice is the gas price every devnet transaction pays unless told otherwise: 0.01
// gwei, Robinhood Chain's base fee as a recorded block of its testnet shows it
// (baseFeePerGas 0x989680 in QuickNode's Robinhood Chain eth_getBlockByNumber example; earlier
// testnet blocks and receipts show 0.02 gwei, 0x1312d00 and 0x13134d0) and Arbitrum's
// documented floor (docs.arbitrum.io, "Gas and fees": 0.01 gwei on Arbitrum One). Nitro takes
// no tip: a transaction pays the base fee and nothing more.
var DefaultGasPrice = big.NewInt(10_000_000)

// PriceJobID is job 2, "Verify a price".
const PriceJobID = 2

func gwei(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(params.GWei)) }

// Options set up a devnet.
type Options struct {
	// Spec is the sources.yaml the rigs answer to; its sources are pointed at the simulator.
	Spec []byte
	// Symbols to order a task for each; default NVDA, TSLA, SPY.
	Symbols []string
	// Minute priced by every task; zero means the last closed minute inside the spec's sessions.
	Minute time.Time
	// Layout says how many rigs each rig process runs: nil means [1 1 1], three processes of one
	// rig; an empty, non-nil layout runs no rigs (a chain for operators to register their own).
	// The last process is relayed unless NoRelayer.
	Layout    []int
	NoRelayer bool
	// RelayerFeeBps, when set, is the operator fee the relayed process's operators consent to
	// pay its relayer (setOperatorFee), in basis points of their rig earnings.
	RelayerFeeBps uint16
	// Ledger keeps each rig process's bar ledger beside its journal (LedgerPath), with every
	// answer's evidence, as pricerig rig does (pricerig explain --task reads them); without it a
	// process's bars live in memory.
	Ledger bool
	// WrapPricer lets tests put a broken or counting pricer in front of process i's reconciler.
	WrapPricer func(process int, p rig.Pricer) rig.Pricer
	// RPCURL lets tests route process i's JSON-RPC through a proxy of theirs.
	RPCURL func(process int, url string) string
	// RPCURLs, when set, gives process i several RPC endpoints (proxies of the test's in front of
	// url): two or more are one rig/rpcpool Pool, as `pricerig rig --rpc A --rpc B` makes, which
	// also follows the heads. RPCURL and HeadsURL are then not asked.
	RPCURLs func(process int, url string) []string
	// HeadsURL lets tests route process i's head subscription (a websocket URL) through a proxy
	// of theirs; by default each process finds the websocket endpoint of its RPC URL.
	HeadsURL func(process int, wsURL string) string
	// Metrics gives process i's Prometheus series (may be nil, or return nil).
	Metrics func(process int) *rig.Metrics
	// Dir holds the rigs' journals and ledgers, kept by Close; "" means a temporary folder,
	// removed by Close unless it holds something the devnet did not make (Foreign). Start
	// refuses a Dir that holds a journal of an earlier devnet (a new chain each run).
	Dir string
	// Stake is how many slashes each rig stakes (default 10). Each draw locks one until the
	// task settles, so a rig takes part in at most that many tasks at once.
	Stake int
	// CommitWindow and RevealWindow of the contract; zero means the seed's 4 minutes.
	CommitWindow, RevealWindow time.Duration
	// ChainID of the chain; zero means ChainID (Robinhood Chain's).
	ChainID uint64
	// BaseFee, when set, is the genesis block's base fee instead of a held gas price (EIP-1559
	// moves it from there); tests price gas so that tasks lose money.
	BaseFee *big.Int
	// GasPrice is the gas price in wei every transaction pays for the whole run
	// (ChainOptions.GasPrice); nil with no BaseFee means DefaultGasPrice, Robinhood Chain's.
	GasPrice *big.Int
	// L1BaseFee is the L1 price per poster unit in wei (ChainOptions.L1BaseFee): nil means
	// DefaultL1BaseFee, Robinhood Chain's; zero charges no L1 part.
	L1BaseFee *big.Int
	// L1Block is the L1 block number the chain starts at: the devnet is Robinhood Chain, whose
	// block.number is the L1 block number, moving every L1Interval (ChainOptions.L1Block; the
	// devnet build of AgentRig counts in it). Zero means DefaultL1Block, a young chain; 1 is an
	// old one. L1Interval zero means DefaultL1Interval (12 s).
	L1Block    uint64
	L1Interval time.Duration
	// EthereumBlocks runs an Ethereum-style chain instead, whose block.number is its own (and
	// the reference contract): the devnet's old way, for tests of that numbering.
	EthereumBlocks bool
	// Heartbeat, when positive, seals an empty block that often while nothing is sent
	// (ChainOptions.Heartbeat); zero means none, Robinhood Chain's way.
	Heartbeat time.Duration
	// ClockSkew puts the sequencer's clock, which stamps the blocks, this far behind the rigs'
	// (a sequencer whose clock is late: the case a quiet reveal's margin must cover). Only
	// behind: go-ethereum refuses a block stamped in its future.
	ClockSkew time.Duration
	// FundedKeys is how many spare funded keys (1000 ETH each) to make; zero means one.
	FundedKeys int
	Logger     *slog.Logger
	// Events receives each step of each task's life as it happens (may be nil), and, when no
	// step came for QuietAfter, what each task waits for (Event.Waiting).
	Events func(Event)
	// QuietAfter is the longest Wait stays silent between steps (zero: DefaultQuietAfter).
	QuietAfter time.Duration
	// Now is the devnet's clock (nil: the wall clock): the simulator's, the rigs', the orderer's
	// and the chain's, whose blocks it stamps (ChainOptions.Now; only times in the past).
	Now func() time.Time
	// Instant makes every simulated provider serve a minute's bar final the moment the minute
	// ends, and the spec trust it then (sim.Options.Instant, feeds.SimTarget.Instant): the world
	// of a test about something else than finality. By default the providers publish late and
	// revise as the real ones do (sim's emulations), and the rigs wait for final bars.
	Instant bool
	// Publications change when a simulated provider serves a minute's bar and when its close is
	// final (sim.Server.SetPublication), by provider, after Instant.
	Publications map[string]sim.Publication
}

// Event is one step of a task's life, for printing.
type Event struct {
	TaskID uint64
	Symbol string
	Minute time.Time
	Phase  string // ordered, drawn, committed, revealed, settled, refunded; waiting
	Detail string
	// Waiting marks no step but what the task waits for and until when (Detail), said when no
	// step came for Options.QuietAfter.
	Waiting bool
}

// DefaultQuietAfter is how long Wait lets pass without a step before it says what each task
// waits for: a few seconds, so a newcomer never wonders whether it hangs.
const DefaultQuietAfter = 5 * time.Second

// Devnet is a running offline AgentRig: chain, contract, simulator, rigs.
type Devnet struct {
	Chain    *Chain
	Contract common.Address
	SimURL   string
	Sim      *sim.Server
	// Funded is a spare funded key for attaching a separate `pricerig rig` or orderer: the
	// first of FundedKeys, which are in no rig.
	Funded     *ecdsa.PrivateKey
	FundedKeys []*ecdsa.PrivateKey
	// ChainID is the chain's id (Options.ChainID or ChainID).
	ChainID uint64
	Spec    *feeds.Spec
	Runners []*rig.Runner
	Dir     string

	opts     Options
	client   *ethclient.Client
	orderer  *txm.Sender
	contract *agentrig.Contract
	abi      *agentrig.AgentRig
	simSrv   *http.Server
	cancel   context.CancelFunc
	runCtx   context.Context
	wg       sync.WaitGroup
	tmpDir   bool
	configs  []rig.Config
	stops    []func()
	journals []journal.Journal // nil while a process is killed
}

// DevKey is the i-th devnet account; public, worthless, the same on every run.
func DevKey(i int) *ecdsa.PrivateKey { return agentrig.SimKey(i) }

// operatorKey is the key of the i-th rig's operator (account 2+i).
func operatorKey(i int) *ecdsa.PrivateKey { return DevKey(2 + i) }

// Start brings the whole devnet up and attaches the rig runners. Stop it with Close.
func Start(ctx context.Context, o Options) (*Devnet, error) {
	o = o.withDefaults()
	d := &Devnet{opts: o, abi: agentrig.NewAgentRig(), Dir: o.Dir}
	ok := false
	defer func() {
		if !ok {
			d.Close()
		}
	}()
	if d.Dir == "" {
		dir, err := os.MkdirTemp("", "pricerig-devnet-")
		if err != nil {
			return nil, err
		}
		d.Dir, d.tmpDir = dir, true
	} else if earlier := d.made(true); len(earlier) > 0 {
		return nil, fmt.Errorf("%s holds %s of an earlier devnet (each devnet is a new chain): choose another folder, or remove them",
			d.Dir, strings.Join(earlier, ", "))
	}
	rigCount := o.rigCount()
	if err := d.startChain(ctx, rigCount); err != nil {
		return nil, err
	}
	if err := d.deployContract(ctx); err != nil {
		return nil, err
	}
	if err := d.loadSpec(); err != nil {
		return nil, err
	}
	if err := d.publishJobs(ctx, rigCount); err != nil {
		return nil, err
	}
	if err := d.startRunners(ctx, rigCount); err != nil {
		return nil, err
	}
	ok = true
	return d, nil
}

// withDefaults fills in the zero values of Options.
func (o Options) withDefaults() Options {
	if o.Layout == nil {
		o.Layout = []int{1, 1, 1}
	}
	if o.ChainID == 0 {
		o.ChainID = ChainID
	}
	if o.FundedKeys <= 0 {
		o.FundedKeys = 1
	}
	if o.GasPrice == nil && o.BaseFee == nil {
		o.GasPrice = DefaultGasPrice
	}
	if o.L1BaseFee == nil {
		o.L1BaseFee = DefaultL1BaseFee
	}
	if o.L1Block == 0 {
		o.L1Block = DefaultL1Block
	}
	if o.L1Interval <= 0 {
		o.L1Interval = DefaultL1Interval
	}
	if len(o.Symbols) == 0 {
		o.Symbols = []string{"NVDA", "TSLA", "SPY"}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Stake == 0 {
		o.Stake = 10
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.QuietAfter <= 0 {
		o.QuietAfter = DefaultQuietAfter
	}
	return o
}

// rigCount is the number of rigs over every process of the layout.
func (o Options) rigCount() int {
	n := 0
	for _, k := range o.Layout {
		n += k
	}
	return n
}

// The accounts: 0 deploys and builds, 1 orders, 2.. operate the rigCount rigs, then the relayer
// (relayerIndex) and the funded spares (spareIndex on).
func relayerIndex(rigCount int) int { return 2 + rigCount }
func spareIndex(rigCount int) int   { return 3 + rigCount }

// startChain funds the devnet's accounts (deployer, orderer, operators, relayer, spares) on a new
// chain and dials it.
func (d *Devnet) startChain(ctx context.Context, rigCount int) error {
	o := d.opts
	alloc := types.GenesisAlloc{}
	for i := 0; i < spareIndex(rigCount)+o.FundedKeys; i++ {
		alloc[crypto.PubkeyToAddress(DevKey(i).PublicKey)] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1000), big.NewInt(params.Ether))}
	}
	for i := range o.FundedKeys {
		d.FundedKeys = append(d.FundedKeys, DevKey(spareIndex(rigCount)+i))
	}
	d.Funded = d.FundedKeys[0]
	d.ChainID = o.ChainID
	l1 := o.L1Block
	if o.EthereumBlocks {
		l1 = 0
	}
	chainNow := o.Now
	if o.ClockSkew > 0 {
		rigs := o.Now
		if rigs == nil {
			rigs = time.Now
		}
		chainNow = func() time.Time { return rigs().Add(-o.ClockSkew) }
	}
	chain, err := StartChainWithOptions(alloc, ChainOptions{ID: o.ChainID, BaseFee: o.BaseFee, GasPrice: o.GasPrice,
		Heartbeat: max(o.Heartbeat, 0), L1Block: l1, L1Interval: o.L1Interval, L1BaseFee: o.L1BaseFee, Logger: o.Logger, Now: chainNow})
	if err != nil {
		return err
	}
	d.Chain = chain
	d.client, err = chain.Dial(ctx)
	return err
}

// deployContract deploys the reference contract from the deployer's account.
func (d *Devnet) deployContract(ctx context.Context) error {
	deployer := bind.NewKeyedTransactor(DevKey(0), new(big.Int).SetUint64(d.ChainID))
	deployer.Context = ctx
	addr, tx, err := deployAgentRig(deployer, d.client, d.Chain.L1 != nil, d.opts.CommitWindow, d.opts.RevealWindow)
	if err != nil {
		return fmt.Errorf("deploying AgentRig: %w", err)
	}
	if err := waitMined(ctx, d.client, tx.Hash()); err != nil {
		return fmt.Errorf("deploying AgentRig: %w", err)
	}
	d.Contract = addr
	d.contract = agentrig.NewContract(d.client, addr)
	return nil
}

// loadSpec starts the quote simulator and loads the spec pointed at it.
func (d *Devnet) loadSpec() error {
	if err := d.startSim(); err != nil {
		return err
	}
	spec, err := feeds.Load(d.opts.Spec, feeds.LoadOptions{File: "sources.yaml (embedded)", Getenv: func(string) string { return "" },
		Sim: &feeds.SimTarget{Root: d.SimURL, Key: sim.Key, Secret: sim.Secret, Instant: d.opts.Instant}})
	if err != nil {
		return err
	}
	// The simulator does not throttle: devnet holds no source to a provider's real rate.
	for i := range spec.Sources {
		spec.Sources[i].Settings.Rate = sources.Rate{N: 1000, Per: time.Second}
	}
	d.Spec = spec
	return nil
}

// publishJobs publishes the seed's three launch jobs as the builder, registers the rigs and
// readies the orderer's sender.
func (d *Devnet) publishJobs(ctx context.Context, rigCount int) error {
	chainID := new(big.Int).SetUint64(d.ChainID)
	builder := txm.NewSender(d.client, task.Key{Address: crypto.PubkeyToAddress(DevKey(0).PublicKey), Private: DevKey(0), From: "devnet builder"}, chainID, txm.SenderConfig{Poll: 20 * time.Millisecond})
	for _, j := range launchJobs {
		specURI := j.spec
		if j.kind == numeric.Numeric {
			specURI = d.Spec.SpecURI
		}
		if _, err := builder.Send(ctx, d.Contract, d.abi.PackPublishJob(uint8(j.kind), j.quorum, j.price, j.slash, j.tolBps, specURI), nil); err != nil {
			return fmt.Errorf("publishing %q: %w", j.name, err)
		}
	}
	for i := 0; i < rigCount; i++ {
		if err := d.RegisterRig(ctx, operatorKey(i)); err != nil {
			return fmt.Errorf("registering rig %d: %w", i+1, err)
		}
	}
	d.orderer = txm.NewSender(d.client, task.Key{Address: crypto.PubkeyToAddress(DevKey(1).PublicKey), Private: DevKey(1), From: "devnet orderer"}, chainID, txm.SenderConfig{Poll: 20 * time.Millisecond})
	return nil
}

// startRunners attaches the rig runners, each a separate "process" with its own RPC
// connection, journal and reconciler; the last process relays, unless Options.NoRelayer.
func (d *Devnet) startRunners(ctx context.Context, rigCount int) error {
	o := d.opts
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	d.cancel, d.runCtx = cancel, runCtx
	if last := len(o.Layout) - 1; last >= 0 && !o.NoRelayer && o.RelayerFeeBps > 0 {
		if err := d.consentToRelayerFee(ctx, rigCount-o.Layout[last], rigCount, DevKey(relayerIndex(rigCount)), o.RelayerFeeBps); err != nil {
			return err
		}
	}
	head, err := d.client.BlockNumber(ctx)
	if err != nil {
		return err
	}
	window := o.CommitWindow
	if window == 0 {
		window = agentrig.DefaultWindow
	}
	next := 0
	for i, n := range o.Layout {
		cfg := rig.Config{
			Contract: d.Contract, JobID: PriceJobID, FromBlock: head,
			Poll: 100 * time.Millisecond, SpecURI: d.Spec.SpecURI, Inputs: task.SpecInputRules(d.Spec), Now: o.Now,
			CommitMargin: min(60*time.Second, window/4),
			Logger:       o.Logger.With("rig_process", i+1), Sender: txm.SenderConfig{Poll: 20 * time.Millisecond},
			Clock: d.clock(),
		}
		for ; n > 0; n-- {
			k := operatorKey(next)
			next++
			cfg.Operators = append(cfg.Operators, task.Key{Address: crypto.PubkeyToAddress(k.PublicKey), Private: k, From: fmt.Sprintf("devnet operator %d", next)})
		}
		if i == len(o.Layout)-1 && !o.NoRelayer {
			k := DevKey(relayerIndex(rigCount))
			cfg.Relayer = &task.Key{Address: crypto.PubkeyToAddress(k.PublicKey), Private: k, From: "devnet relayer"}
		}
		if o.Metrics != nil {
			cfg.Metrics = o.Metrics(i)
		}
		d.configs = append(d.configs, cfg)
		d.Runners = append(d.Runners, nil)
		d.stops = append(d.stops, nil)
		d.journals = append(d.journals, nil)
		if err := d.attach(ctx, runCtx, i); err != nil {
			return err
		}
	}
	return nil
}

// clock is how the devnet numbers its blocks, as its rigs read them: Nitro-style, or
// Ethereum-style with EthereumBlocks.
func (d *Devnet) clock() agentrig.ChainClock {
	if d.Chain.L1 == nil {
		return agentrig.EthereumClock{}
	}
	return agentrig.NitroClock{Interval: d.Chain.L1.Interval, Network: "devnet"}
}

// RegisterRig registers a job-2 rig operated (and owned) by key, staked with Options.Stake
// slashes, through the operator code `pricerig operator register` uses. Tests use it to attach
// a rig process of their own, like a separate `pricerig rig`.
func (d *Devnet) RegisterRig(ctx context.Context, key *ecdsa.PrivateKey) error {
	owner := txm.NewSender(d.client, task.Key{Address: crypto.PubkeyToAddress(key.PublicKey), Private: key, From: "devnet operator"},
		new(big.Int).SetUint64(d.ChainID), txm.SenderConfig{Poll: 20 * time.Millisecond})
	stake := new(big.Int).Mul(big.NewInt(int64(d.opts.Stake)), launchJobs[PriceJobID-1].slash)
	plan, err := txm.Prepare(ctx, d.client, owner.Address(), d.contract.RegisterCall(PriceJobID, owner.Address(), stake))
	if err != nil {
		return err
	}
	r, err := txm.SendPlan(ctx, owner, plan)
	if err != nil {
		return err
	}
	_, err = d.contract.RegisteredRig(r)
	return err
}

// Stake is the stake each devnet rig registers with, in wei.
func (d *Devnet) Stake() *big.Int {
	return new(big.Int).Mul(big.NewInt(int64(d.opts.Stake)), launchJobs[PriceJobID-1].slash)
}

// waitMined polls for a receipt more often than bind.WaitMined's one second: devnet blocks come
// within milliseconds.
func waitMined(ctx context.Context, client *ethclient.Client, hash common.Hash) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if r, err := client.TransactionReceipt(ctx, hash); err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return fmt.Errorf("transaction %s reverted", hash.Hex())
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func (d *Devnet) startSim() error {
	d.Sim = sim.New(sim.Options{Seed: 1, Now: d.opts.Now, Instant: d.opts.Instant})
	for p, pub := range d.opts.Publications {
		if err := pub.Check(); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if !slices.Contains(sim.Providers(), p) {
			return fmt.Errorf("no simulated provider %q", p)
		}
		d.Sim.SetPublication(p, pub)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	d.simSrv = &http.Server{Handler: d.Sim, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = d.simSrv.Serve(l) }()
	d.SimURL = "http://" + l.Addr().String()
	return nil
}

// orderBatch is how many tasks one orderMany transaction carries: each order stores its input,
// so a hundred at once would not fit a block.
const orderBatch = 20

// Order places one job-2 task per symbol at the minute, in orderMany transactions of up to
// orderBatch tasks, through the order code `pricerig order` uses, and returns the task ids. The
// transactions are prepared first and then sent together, so the tasks are ordered in one block
// (a few hundred fit a block's gas) and come to be drawn at once.
func (d *Devnet) Order(ctx context.Context, symbols []string, minute time.Time) ([]uint64, error) {
	rules := task.SpecInputRules(d.Spec)
	var plans []txm.Plan
	for start := 0; start < len(symbols); start += orderBatch {
		batch := symbols[start:min(start+orderBatch, len(symbols))]
		pairs := make([]agentrig.OrderInput, len(batch))
		for i, s := range batch {
			pairs[i] = agentrig.OrderInput{Symbol: s, Minute: minute}
		}
		inputs, err := agentrig.BuildInputs(rules, pairs, time.Time{})
		if err != nil {
			return nil, err
		}
		plan, err := txm.Prepare(ctx, d.client, d.orderer.Address(), d.contract.OrderCall(PriceJobID, launchJobs[PriceJobID-1].price, inputs))
		if err != nil {
			return nil, fmt.Errorf("ordering: %w", err)
		}
		plans = append(plans, plan)
	}
	ordered := make([][]uint64, len(plans))
	var g errgroup.Group
	for i, plan := range plans {
		g.Go(func() error {
			rec, err := txm.SendPlan(ctx, d.orderer, plan)
			if err != nil {
				return fmt.Errorf("ordering: %w", err)
			}
			ordered[i] = d.contract.OrderedTasks(rec)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var ids []uint64
	for _, o := range ordered {
		ids = append(ids, o...)
	}
	if len(ids) != len(symbols) {
		return nil, fmt.Errorf("ordered %d tasks, saw %d TaskOrdered events", len(symbols), len(ids))
	}
	return ids, nil
}

func (d *Devnet) emit(e Event) {
	if d.opts.Events != nil {
		d.opts.Events(e)
	}
}

// DefaultMinute is the minute devnet prices: the last closed minute inside the spec's sessions.
func DefaultMinute(now time.Time, sessions []market.Session) time.Time {
	end := now.UTC().Truncate(time.Minute).Add(-time.Minute) // the last minute that has closed
	if market.InSessions(end, sessions) {
		return end
	}
	if m, ok := market.PrevSessionMinute(end, sessions, 7*24*time.Hour); ok {
		return m.UTC()
	}
	return end
}
