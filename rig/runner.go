package rig

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/accounts"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// Pricer gives the reconciled price of a symbol at a minute; *feeds.Reconciler is one.
type Pricer interface {
	// Price reconciles the sources' prices of symbol at minute (agreed or not, with why).
	Price(ctx context.Context, symbol string, minute time.Time, opts ...feeds.PriceOption) (feeds.Result, error)
}

// EvidenceKeeper keeps what an answer was derived from for as long as the journal keeps its
// task: the rig's bar ledger (feeds/history) pins the days res read.
type EvidenceKeeper interface {
	KeepEvidence(ctx context.Context, taskID uint64, res feeds.Result, at time.Time) error
}

// Config tunes a Runner. Zero values take the defaults noted.
type Config struct {
	Contract common.Address
	// Deployment reads what the seeds leave open (how a rig learns it was drawn, the windows);
	// nil means the reference contract's (agentrig.ReferenceDeployment).
	Deployment agentrig.Deployment
	JobID      uint32     // default 2, "Verify a price"
	Operators  []task.Key // one rig per operator key, found on chain by its operator address
	// Relayer, when set, sends every commit and reveal of this process's rigs in one
	// commitMany/revealMany transaction, with the operators' EIP-712 signatures; operators then
	// need no gas. Without it each operator sends its own commit and reveal.
	Relayer *task.Key
	// FromBlock is where to start following the contract when the journal has no cursor yet (or
	// one older); zero means the newest block stamped an hour (the refund hour) and a minute
	// before the head, found by time (startBlock), so every task still drawable or refundable is
	// seen.
	FromBlock uint64
	// Poll is the pause between two looks at the chain; default 500ms.
	Poll time.Duration
	// CommitMargin is how long before the commit window closes the commit must be sent, even
	// when slow sources have not answered; default 60s.
	CommitMargin time.Duration
	// ReorgDepth is how many blocks behind the cursor each scan starts again, so events of a
	// reorganised chain are seen; default 12.
	ReorgDepth uint64
	// StageDelay is how long a rank of the draw/settle schedule waits for the rank before it
	// (see task.ScheduleOrder); default DefaultStageDelay of the chain.
	StageDelay time.Duration
	// SelfCheckShare is the share of the tolerance, in percent, past which the distance of our
	// answer to the expected median raises an alert; default 50.
	SelfCheckShare int
	// SpecURI is the spec_uri sources.yaml implements; the job's specURI must match unless
	// AllowSpecDrift.
	SpecURI        string
	AllowSpecDrift bool
	Inputs         task.InputRules
	Now            func() time.Time
	Logger         *slog.Logger
	Metrics        *Metrics
	Sender         txm.SenderConfig
	// Lease tunes the turns instances take on a shared (PostgreSQL) journal; with a SQLite
	// journal the runner always leads.
	Lease LeaseConfig
	// Evidence, when set, keeps each answer's evidence (the bars of the ledger it was derived
	// from) before the answer is journaled, for pricerig explain --task.
	Evidence EvidenceKeeper
	// Clock says how the network numbers the blocks the contract counts in (chainclock.go):
	// nil means agentrig.EthereumClock, the chain's own block numbers; Robinhood Chain's is a agentrig.NitroClock.
	Clock agentrig.ChainClock
	// Heads delivers new heads, so the runner looks at the chain as soon as a block arrives (see
	// heads.go); nil means the backend's own subscription when it has one (an RPC client over
	// websockets), polling alone otherwise.
	Heads HeadSubscriber
}

func (c Config) withDefaults() Config {
	if c.JobID == 0 {
		c.JobID = 2
	}
	if c.Poll == 0 {
		c.Poll = 500 * time.Millisecond
	}
	if c.CommitMargin == 0 {
		c.CommitMargin = 60 * time.Second
	}
	if c.ReorgDepth == 0 {
		c.ReorgDepth = 12
	}
	if c.SelfCheckShare == 0 {
		c.SelfCheckShare = 50
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Clock == nil {
		c.Clock = agentrig.EthereumClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.Sender.Logger = c.Logger
	c.Lease = c.Lease.withDefaults()
	return c
}

// ErrSpecDrift means the job on chain names another spec than the one this rig implements.
var ErrSpecDrift = errors.New("spec drift")

// rigHandle is one of this process's rigs.
type rigHandle struct {
	id     uint64
	key    task.Key
	signer *task.KeySigner
	// sender sends the rig's transactions; behind a relayer it only simulates and estimates
	// them (the operator holds no gas).
	sender *txm.Sender
}

// taskState is what the runner knows of one task of its job.
type taskState struct {
	id          uint64
	uri         string
	hash        common.Hash
	input       task.Input
	inputErr    error
	haveInput   bool
	drawRetryAt time.Time // when draw may be called again
	stage       string    // the phase (and anchor) the task was in at the last look
	stageSince  time.Time
	stageBlock  uint64 // the head at the look that saw the stage begin
	seen        bool   // counted in the "seen" metric
	// over is set by a follower that saw the task settled, refunded or of another job: it has
	// no stage left to note (noteStages).
	over bool
	// mined holds, per rig of ours, the states whose mined transaction the metrics counted
	// (committed, revealed): a commit or reveal mined again after a reorg is not counted twice.
	mined map[uint64][]journal.State
	done  bool
	// commitDeadline is set when one of our rigs is drawn: a follower prices the task before it
	// (warm); warmed says it did, or found the task answered.
	commitDeadline time.Time
	warmed         bool
	// What this runner knows the journal holds, so a look at the chain re-asserts nothing with a
	// journal round trip (a hundred open tasks made a step cost seconds): drawn is the commit
	// deadline of each of our rigs' journaled draw; journaled the furthest state each rig was
	// advanced to (states only move on, so advancing to it or an earlier one again changes
	// nothing); answers each rig's answered entry (its answer, salt and commitment never change
	// once journaled: RecordAnswer keeps the first).
	drawn     map[uint64]time.Time
	journaled map[uint64]journal.State
	answers   map[uint64]journal.Entry
}

// Runner answers a job's tasks for a set of rigs: it follows the contract, prices each task it
// is drawn for, journals the answer and salt, commits, reveals, settles and records how far its
// answer was from the stored median. It decides every step from the chain's state, so a restart,
// a dropped RPC or a reorg only delays it.
type Runner struct {
	cfg       Config
	backend   agentrig.Backend
	chain     agentrig.Chain      // the seeds' calls
	deploy    agentrig.Deployment // what the seeds leave open
	journal   journal.Journal
	pricer    Pricer
	domain    task.Domain
	rigs      map[uint64]*rigHandle
	relayer   *txm.Sender
	pace      stagePace            // how long our draws and settles take to be mined (pace.go)
	skew      agentrig.SkewMeter   // how far the sequencer's clock stamps behind ours (quiet steps wait for it)
	books     *accounts.Accountant // the accounts (rig/accounts)
	tolerance uint32
	cursorKey string
	log       *slog.Logger

	jobRigs   []uint64 // the job's active rigs, for the draw/settle schedule
	jobRigsAt time.Time

	mu       sync.Mutex
	tasks    map[uint64]*taskState
	inflight map[string]bool
	prices   map[uint64]*priceCall   // by task
	priceOf  map[priceKey]*priceCall // by symbol and minute, shared by the tasks asking it
	wg       sync.WaitGroup

	lead        leadership
	subscribed  bool          // following new heads by subscription right now
	wake        chan struct{} // a look at the chain is due now: a new head, or an answer journaled
	headCh      chan struct{} // closed at the next head while subscribed (see nextHead)
	scanned     uint64        // the last block scanned by this process (0: read the journal's cursor)
	cursorAt    uint64        // the last cursor this process wrote
	lastStepAt  time.Time     // when the last look at the chain ended, for Ready
	lastStepErr error
}

// NewRunner checks the job and the rigs on chain and returns a runner ready to Run.
func NewRunner(ctx context.Context, backend agentrig.Backend, j journal.Journal, pricer Pricer, cfg Config) (*Runner, error) {
	cfg = cfg.withDefaults()
	if cfg.Heads == nil {
		if s, ok := backend.(HeadSubscriber); ok {
			cfg.Heads = s
		}
	}
	if len(cfg.Operators) == 0 {
		return nil, errors.New("no operator keys: a runner needs at least one rig")
	}
	chainID, err := backend.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain id: %w", txm.ClassifyRPCError(err))
	}
	if cfg.StageDelay == 0 {
		cfg.StageDelay = DefaultStageDelay(chainID)
	}
	contract := agentrig.NewContract(backend, cfg.Contract)
	deploy := cfg.Deployment
	if deploy == nil {
		deploy = agentrig.NewReferenceDeployment(contract)
	}
	job, err := deploy.Job(ctx, cfg.JobID)
	if err != nil {
		return nil, fmt.Errorf("reading job %d: %w", cfg.JobID, err)
	}
	if job.Kind != uint8(numeric.Numeric) {
		return nil, fmt.Errorf("job %d is not a NUMERIC job (kind %d)", cfg.JobID, job.Kind)
	}
	if cfg.SpecURI != "" && job.SpecURI != cfg.SpecURI {
		if !cfg.AllowSpecDrift {
			return nil, fmt.Errorf("%w: job %d was published with spec %q but sources.yaml implements %q; a rig on another spec disagrees with its peers (use --allow-spec-drift to run anyway)", ErrSpecDrift, cfg.JobID, job.SpecURI, cfg.SpecURI)
		}
		cfg.Logger.Warn("running on a spec the job does not name", "job_spec", job.SpecURI, "our_spec", cfg.SpecURI)
	}
	addrs := make([]common.Address, len(cfg.Operators))
	for i, k := range cfg.Operators {
		addrs[i] = k.Address
	}
	ids, err := deploy.RigIDsOf(ctx, cfg.JobID, addrs)
	if err != nil {
		return nil, err
	}
	// A node that is not of a Nitro-style network's kind (its heads carry no l1BlockNumber) is
	// refused at once: every look at the chain would fail the same way.
	if _, err := cfg.Clock.ReadHead(ctx, backend); errors.Is(err, agentrig.ErrNoL1BlockNumber) {
		return nil, err
	}
	if cfg.FromBlock == 0 {
		if cfg.FromBlock, err = startBlock(ctx, backend); err != nil {
			return nil, err
		}
	}
	r := &Runner{
		cfg: cfg, backend: backend, chain: contract, deploy: deploy, journal: j, pricer: pricer,
		domain: task.Domain{ChainID: chainID, Contract: cfg.Contract}, rigs: map[uint64]*rigHandle{},
		tolerance: job.ToleranceBps, log: cfg.Logger,
		cursorKey: fmt.Sprintf("job%d@%s", cfg.JobID, cfg.Contract.Hex()),
		tasks:     map[uint64]*taskState{}, inflight: map[string]bool{}, prices: map[uint64]*priceCall{}, priceOf: map[priceKey]*priceCall{},
		wake: make(chan struct{}, 1),
	}
	if lj, ok := j.(interface {
		journal.Leaser
		Shared() bool
	}); ok && lj.Shared() {
		r.lead.leaser = lj
		r.lead.name = leaseName(cfg.JobID, cfg.Contract, cfg.Operators, cfg.Relayer)
		r.lead.cfg, r.lead.log, r.lead.metrics = cfg.Lease, cfg.Logger, cfg.Metrics
	}
	// Every broadcast, first or replacement, checks the lease on the local clock just before it
	// leaves (a process frozen past its lease wakes up fenced).
	cfg.Sender.Guard = r.lead.guard
	r.cfg.Sender.Guard = r.lead.guard
	r.books = accounts.New(accounts.Config{Backend: backend, Journal: j, Deploy: deploy, Domain: r.domain,
		FromBlock: cfg.FromBlock, ReorgDepth: cfg.ReorgDepth, Metrics: cfg.Metrics, Log: cfg.Logger, Reopen: r.reopen})
	cfg.Sender.OnMined = r.books.OnMined
	cfg.Sender.NextHead = r.nextHead
	r.cfg.Sender.NextHead = r.nextHead
	for _, k := range cfg.Operators {
		id, ok := ids[k.Address]
		if !ok {
			return nil, fmt.Errorf("operator %s has no active rig on job %d", k.Address.Hex(), cfg.JobID)
		}
		r.rigs[id] = &rigHandle{id: id, key: k, signer: task.NewKeySigner(k.Private), sender: txm.NewSender(backend, k, chainID, cfg.Sender)}
		r.books.AddRig(accounts.Rig{ID: id, Operator: k.Address, Sender: r.rigs[id].sender})
	}
	if cfg.Relayer != nil {
		r.relayer = txm.NewSender(backend, *cfg.Relayer, chainID, cfg.Sender)
		r.books.SetRelayer(r.relayer)
	}
	// A restarted runner picks up every task its journal has not finished.
	open, err := j.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	for _, e := range open {
		if _, ours := r.rigs[e.RigID]; ours {
			r.task(e.TaskID).seen = true
		}
	}
	return r, nil
}

// RigIDs lists this process's rig ids, sorted.
func (r *Runner) RigIDs() []uint64 {
	ids := make([]uint64, 0, len(r.rigs))
	for id := range r.rigs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ours returns, for each of our rigs drawn in the task, its index in v.RigIDs.
func (r *Runner) ours(v agentrig.TaskView) map[uint64]int {
	out := map[uint64]int{}
	for i, id := range v.RigIDs {
		if _, ok := r.rigs[id]; ok {
			out[id] = i
		}
	}
	return out
}

func (r *Runner) task(id uint64) *taskState {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.tasks[id]
	if !ok {
		t = &taskState{id: id}
		r.tasks[id] = t
	}
	return t
}

// Run follows the chain until ctx ends. Errors of one look (an unreachable RPC, a failed call)
// are logged and the next look tries again.
func (r *Runner) Run(ctx context.Context) error {
	r.log.Info("rig runner started", "job", r.cfg.JobID, "contract", r.cfg.Contract.Hex(), "rigs", r.RigIDs(), "relayed", r.relayer != nil,
		"shared_journal", r.lead.leaser != nil)
	tick := time.NewTicker(r.cfg.Poll)
	defer tick.Stop()
	defer r.wg.Wait()
	if r.lead.leaser != nil {
		r.log.Info("active/passive: taking turns by a lease", "lease", r.lead.name, "holder", r.cfg.Lease.Holder, "ttl", r.cfg.Lease.TTL)
		if r.lead.renew(ctx) {
			r.takeOver(ctx)
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.holdLease(ctx)
		}()
	}
	if r.cfg.Heads != nil {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.followHeads(ctx, r.cfg.Heads)
		}()
	}
	for {
		if err := r.Step(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("rig step failed; trying again", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		case <-r.wake:
		}
	}
}

// Step is one look at the chain: read new events, then move every open task on.
// A follower (an instance without the lease) only reads the events and notes each task's stage
// (noteStages), so it is ready to take over and knows whose turn it is in the schedule.
func (r *Runner) Step(ctx context.Context) (err error) {
	defer func() {
		r.mu.Lock()
		r.lastStepAt, r.lastStepErr = time.Now(), err
		r.mu.Unlock()
	}()
	head, err := r.cfg.Clock.ReadHead(ctx, r.backend)
	if err != nil {
		return err
	}
	r.skew.Observe(head.Header, r.cfg.Now())
	leader := r.IsLeader()
	r.cfg.Metrics.setLeader(leader, r.lead.age())
	if err := r.scan(ctx, head.Number.Uint64(), leader); err != nil {
		return err
	}
	if !leader {
		r.noteStages(ctx, head)
		r.warm(ctx)
		return nil
	}
	r.books.CheckReorg(ctx, head.Header)
	r.mu.Lock()
	open := make([]*taskState, 0, len(r.tasks))
	for _, t := range r.tasks {
		if !t.done {
			open = append(open, t)
		}
	}
	r.mu.Unlock()
	sort.Slice(open, func(i, j int) bool { return open[i].id < open[j].id })
	views, errs, err := r.readTasks(ctx, open, head.Number)
	if err != nil {
		return err
	}
	var batch answerBatch
	for i, t := range open {
		err := errs[i]
		if err == nil {
			err = r.drive(ctx, t, views[i], head, &batch)
		}
		if err != nil {
			r.log.Warn("task step failed", "task", t.id, "error", err)
		}
	}
	r.flush(ctx, batch)
	return nil
}

// readTasks reads where each open task stands at block: in one round trip when the deployment
// can (agentrig.TasksReader), else one read a task.
func (r *Runner) readTasks(ctx context.Context, open []*taskState, block *big.Int) ([]agentrig.TaskView, []error, error) {
	ids := make([]uint64, len(open))
	for i, t := range open {
		ids[i] = t.id
	}
	if tr, ok := r.deploy.(agentrig.TasksReader); ok {
		return tr.Tasks(ctx, ids, block)
	}
	views, errs := make([]agentrig.TaskView, len(ids)), make([]error, len(ids))
	for i, id := range ids {
		views[i], errs[i] = r.deploy.Task(ctx, id)
	}
	return views, errs, nil
}

func (r *Runner) finish(t *taskState) {
	r.mu.Lock()
	t.done = true
	r.dropPriceLocked(t.id, false)
	r.mu.Unlock()
}

// advance records progress. The write is not cancelled with the runner: what the chain already
// shows must reach the journal even while the process is shutting down.
func (r *Runner) advance(ctx context.Context, taskID, rigID uint64, to journal.State, update func(*journal.Entry)) {
	t := r.task(taskID)
	r.mu.Lock()
	known, ok := t.journaled[rigID]
	r.mu.Unlock()
	if update == nil && ok && (known.Final() || !known.Before(to)) {
		return // the journal already holds it: Advance would change nothing
	}
	if err := r.journal.Advance(context.WithoutCancel(ctx), taskID, rigID, to, update); err != nil {
		r.log.Error("journal write failed", "task", taskID, "rig", rigID, "state", to, "error", err)
		return
	}
	r.mu.Lock()
	if t.journaled == nil {
		t.journaled = map[uint64]journal.State{}
	}
	if cur, ok := t.journaled[rigID]; !ok || (!cur.Final() && cur.Before(to)) {
		t.journaled[rigID] = to
	}
	r.mu.Unlock()
}

// firstMined records that the rig's transaction for state s of the task was mined, and says
// whether this is the first time this runner saw one (the metrics count it then).
func (r *Runner) firstMined(taskID, rigID uint64, s journal.State) bool {
	t := r.task(taskID)
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.Contains(t.mined[rigID], s) {
		return false
	}
	if t.mined == nil {
		t.mined = map[uint64][]journal.State{}
	}
	t.mined[rigID] = append(t.mined[rigID], s)
	return true
}

// journaledAnswer is the journal's entry of one of our rigs for a task, from memory once it holds an
// answer (whose answer, salt and commitment no longer change).
func (r *Runner) journaledAnswer(ctx context.Context, t *taskState, rigID uint64) (journal.Entry, bool, error) {
	r.mu.Lock()
	e, ok := t.answers[rigID]
	r.mu.Unlock()
	if ok {
		return e, true, nil
	}
	e, found, err := r.journal.Get(ctx, t.id, rigID)
	if err != nil || !found || e.Salt == ([32]byte{}) || e.State.Before(journal.StateAnswered) || e.State.Final() {
		return e, found, err
	}
	r.mu.Lock()
	if t.answers == nil {
		t.answers = map[uint64]journal.Entry{}
	}
	t.answers[rigID] = e
	r.mu.Unlock()
	return e, true, nil
}

// reopen puts a finished task back among those each step looks at.
func (r *Runner) reopen(taskID uint64) {
	t := r.task(taskID)
	r.mu.Lock()
	t.done = false
	r.mu.Unlock()
}
