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

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
)

// Pricer gives the reconciled price of a symbol at a minute; *feeds.Reconciler is one.
type Pricer interface {
	Price(ctx context.Context, symbol string, minute time.Time, opts ...feeds.PriceOption) (feeds.Result, error)
}

// Config tunes a Runner. Zero values take the defaults noted.
type Config struct {
	Contract  common.Address
	JobID     uint32 // default 2, "Verify a price"
	Operators []Key  // one rig per operator key, found on chain by its operator address
	// Relayer, when set, sends every commit and reveal of this process's rigs in one
	// commitMany/revealMany transaction, with the operators' EIP-712 signatures; operators then
	// need no gas. Without it each operator sends its own commit and reveal.
	Relayer *Key
	// FromBlock is where to start following the contract when the journal has no cursor yet.
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
	// (see ScheduleOrder); default DefaultStageDelay of the chain.
	StageDelay time.Duration
	// SelfCheckShare is the share of the tolerance, in percent, past which the distance of our
	// answer to the expected median raises an alert; default 50.
	SelfCheckShare int
	// SpecURI is the spec_uri sources.yaml implements; the job's specURI must match unless
	// AllowSpecDrift.
	SpecURI        string
	AllowSpecDrift bool
	Inputs         InputRules
	Now            func() time.Time
	Logger         *slog.Logger
	Metrics        *Metrics
	Sender         SenderConfig
	// Lease tunes the turns instances take on a shared (PostgreSQL) journal; with a SQLite
	// journal the runner always leads.
	Lease LeaseConfig
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
	key    Key
	signer *KeySigner
	sender *Sender // nil in relayed mode
}

// taskState is what the runner knows of one task of its job.
type taskState struct {
	id          uint64
	uri         string
	hash        common.Hash
	input       Input
	inputErr    error
	haveInput   bool
	drawRetryAt uint64 // the head from which draw may be called again
	stage       string // the phase (and anchor) the task was in at the last look
	stageSince  time.Time
	seen        bool // counted in the "seen" metric
	done        bool
}

// Runner answers a job's tasks for a set of rigs: it follows the contract, prices each task it
// is drawn for, journals the answer and salt, commits, reveals, settles and records how far its
// answer was from the stored median. It decides every step from the chain's state, so a restart,
// a dropped RPC or a reorg only delays it.
type Runner struct {
	cfg       Config
	backend   Backend
	contract  *Contract
	journal   Journal
	pricer    Pricer
	domain    Domain
	rigs      map[uint64]*rigHandle
	relayer   *Sender
	tolerance uint32
	events    eventIDs
	cursorKey string
	log       *slog.Logger

	jobRigs   []uint64 // the job's active rigs, for the draw/settle schedule
	jobRigsAt time.Time

	mu       sync.Mutex
	tasks    map[uint64]*taskState
	inflight map[string]bool
	prices   map[uint64]*priceCall
	wg       sync.WaitGroup

	lead        leadership
	scanned     uint64    // the last block scanned by this process (0: read the journal's cursor)
	lastStepAt  time.Time // when the last look at the chain ended, for Ready
	lastStepErr error
}

// priceCall shares one price fetch among the rigs of this process drawn for the same task.
type priceCall struct {
	done   chan struct{}
	result feeds.Result
	err    error
}

// NewRunner checks the job and the rigs on chain and returns a runner ready to Run.
func NewRunner(ctx context.Context, backend Backend, journal Journal, pricer Pricer, cfg Config) (*Runner, error) {
	cfg = cfg.withDefaults()
	if len(cfg.Operators) == 0 {
		return nil, errors.New("no operator keys: a runner needs at least one rig")
	}
	chainID, err := backend.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain id: %w", ClassifyRPCError(err))
	}
	if cfg.StageDelay == 0 {
		cfg.StageDelay = DefaultStageDelay(chainID)
	}
	contract := NewContract(backend, cfg.Contract)
	job, err := contract.Job(ctx, cfg.JobID)
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
	ids, err := contract.RigIDsOf(ctx, cfg.JobID, addrs)
	if err != nil {
		return nil, err
	}
	r := &Runner{
		cfg: cfg, backend: backend, contract: contract, journal: journal, pricer: pricer,
		domain: Domain{ChainID: chainID, Contract: cfg.Contract}, rigs: map[uint64]*rigHandle{},
		tolerance: job.ToleranceBps, events: contract.events(), log: cfg.Logger,
		cursorKey: fmt.Sprintf("job%d@%s", cfg.JobID, cfg.Contract.Hex()),
		tasks:     map[uint64]*taskState{}, inflight: map[string]bool{}, prices: map[uint64]*priceCall{},
	}
	if lj, ok := journal.(interface {
		Leaser
		Shared() bool
	}); ok && lj.Shared() {
		r.lead.leaser = lj
		r.lead.name = leaseName(cfg.JobID, cfg.Contract, cfg.Operators, cfg.Relayer)
	}
	// Every broadcast, first or replacement, checks the lease on the local clock just before it
	// leaves (a process frozen past its lease wakes up fenced).
	cfg.Sender.Guard = r.guard
	r.cfg.Sender.Guard = r.guard
	for _, k := range cfg.Operators {
		id, ok := ids[k.Address]
		if !ok {
			return nil, fmt.Errorf("operator %s has no active rig on job %d", k.Address.Hex(), cfg.JobID)
		}
		h := &rigHandle{id: id, key: k, signer: NewKeySigner(k.Private)}
		if cfg.Relayer == nil {
			h.sender = NewSender(backend, k, chainID, cfg.Sender)
		}
		r.rigs[id] = h
	}
	if cfg.Relayer != nil {
		r.relayer = NewSender(backend, *cfg.Relayer, chainID, cfg.Sender)
	}
	// A restarted runner picks up every task its journal has not finished.
	open, err := journal.Open(ctx)
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
		if r.renewLease(ctx) {
			r.takeOver(ctx)
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.holdLease(ctx)
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
		}
	}
}

// Step is one look at the chain: read new events, then move every open task on.
// A follower (an instance without the lease) only reads the events, so it is ready to take over.
func (r *Runner) Step(ctx context.Context) (err error) {
	defer func() {
		r.mu.Lock()
		r.lastStepAt, r.lastStepErr = time.Now(), err
		r.mu.Unlock()
	}()
	head, err := r.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("head: %w", ClassifyRPCError(err))
	}
	leader := r.IsLeader()
	r.cfg.Metrics.setLeader(leader, r.leaseAge())
	if err := r.scan(ctx, head.Number.Uint64(), leader); err != nil {
		return err
	}
	if !leader {
		return nil
	}
	r.mu.Lock()
	open := make([]*taskState, 0, len(r.tasks))
	for _, t := range r.tasks {
		if !t.done {
			open = append(open, t)
		}
	}
	r.mu.Unlock()
	sort.Slice(open, func(i, j int) bool { return open[i].id < open[j].id })
	var batch relayBatch
	for _, t := range open {
		if err := r.drive(ctx, t, head, &batch); err != nil {
			r.log.Warn("task step failed", "task", t.id, "error", err)
		}
	}
	r.sendBatch(ctx, batch)
	return nil
}

// scan reads the contract's events from a little before the cursor up to head. The journal's
// cursor is read once and written by the leader only; each process follows from its own.
func (r *Runner) scan(ctx context.Context, head uint64, leader bool) error {
	cursor := r.scanned
	if cursor == 0 {
		var err error
		if cursor, err = r.journal.Cursor(ctx, r.cursorKey); err != nil {
			return err
		}
	}
	from := r.cfg.FromBlock
	if cursor > 0 {
		// Look again at the last ReorgDepth blocks: events of a reorganised chain are seen, and
		// handling an event twice is harmless. A chain that went back below the cursor (a
		// reorg) is looked at from its new tip.
		from = min(cursor+1, head+1)
		from -= min(from, r.cfg.ReorgDepth)
		from = max(from, r.cfg.FromBlock)
	}
	if from > head {
		return nil
	}
	const chunk = 2000
	for start := from; start <= head; start += chunk {
		end := min(start+chunk-1, head)
		logs, err := r.backend.FilterLogs(ctx, ethereum.FilterQuery{
			FromBlock: new(big.Int).SetUint64(start), ToBlock: new(big.Int).SetUint64(end),
			Addresses: []common.Address{r.cfg.Contract},
			Topics:    [][]common.Hash{{r.events.ordered, r.events.drawn, r.events.reanchored}},
		})
		if err != nil {
			return fmt.Errorf("logs %d..%d: %w", start, end, ClassifyRPCError(err))
		}
		for i := range logs {
			r.onLog(ctx, &logs[i])
		}
	}
	r.scanned = head
	if !leader {
		return nil
	}
	return r.journal.SetCursor(ctx, r.cursorKey, head)
}

func (r *Runner) onLog(ctx context.Context, l *types.Log) {
	if l.Removed || len(l.Topics) == 0 {
		return
	}
	abi := r.contract.ABI()
	switch l.Topics[0] {
	case r.events.ordered:
		ev, err := abi.UnpackTaskOrderedEvent(l)
		if err != nil || ev.JobId != r.cfg.JobID {
			return
		}
		t := r.task(ev.TaskId.Uint64())
		r.setInput(t, ev.InputURI, ev.InputHash)
	case r.events.drawn:
		ev, err := abi.UnpackTaskDrawnEvent(l)
		if err != nil || ev.JobId != r.cfg.JobID {
			return
		}
		for _, id := range ev.RigIds {
			if _, ours := r.rigs[id]; ours {
				deadline := time.Unix(int64(ev.CommitDeadline), 0)
				if err := r.journal.Drawn(context.WithoutCancel(ctx), ev.TaskId.Uint64(), id, deadline); err != nil {
					r.log.Error("journal write failed", "task", ev.TaskId, "rig", id, "error", err)
				}
				r.task(ev.TaskId.Uint64())
			}
		}
	case r.events.reanchored:
		// The next drive of the task sees the new anchor in taskOf and draws again.
		if ev, err := abi.UnpackReanchoredEvent(l); err == nil {
			r.log.Info("task re-anchored", "task", ev.TaskId, "anchor", ev.OrderBlock)
		}
	}
}

func (r *Runner) setInput(t *taskState, uri string, hash common.Hash) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.haveInput {
		return
	}
	t.uri, t.hash, t.haveInput = uri, hash, true
	t.input, t.inputErr = r.cfg.Inputs.Decode(uri, hash)
}

// ensureInput finds a task's input URI when the runner started after the order was placed.
func (r *Runner) ensureInput(ctx context.Context, t *taskState) error {
	r.mu.Lock()
	have := t.haveInput
	r.mu.Unlock()
	if have {
		return nil
	}
	ev, err := r.contract.TaskInput(ctx, t.id)
	if err != nil {
		return err
	}
	r.setInput(t, ev.InputURI, ev.InputHash)
	return nil
}

// relayBatch collects the signed commits and reveals of one step for one relayed transaction.
type relayBatch struct {
	commits    []agentrig.AgentRigCommit
	commitSigs [][]byte
	commitKeys []string
	reveals    []agentrig.AgentRigReveal
	revealSigs [][]byte
	revealKeys []string
}

// ours returns, for each of our rigs drawn in the task, its index in info.RigIds.
func (r *Runner) ours(info agentrig.AgentRigTaskInfo) map[uint64]int {
	out := map[uint64]int{}
	for i, id := range info.RigIds {
		if _, ok := r.rigs[id]; ok {
			out[id] = i
		}
	}
	return out
}

// drive moves one task on by what its phase on chain asks for.
func (r *Runner) drive(ctx context.Context, t *taskState, head *types.Header, batch *relayBatch) error {
	taskID := new(big.Int).SetUint64(t.id)
	info, err := r.contract.Task(ctx, taskID)
	if err != nil {
		return err
	}
	if info.JobId != r.cfg.JobID {
		r.finish(t)
		return nil
	}
	mine := r.ours(info)
	if len(mine) > 0 && !t.seen {
		t.seen = true
		for range mine {
			r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Seen })
		}
	}
	// The schedule's clock starts when the chain allows the step: a draw only once the chain is
	// past the order block (else every rank would come due together when that block arrives).
	stage := fmt.Sprintf("%d@%d", info.Phase, info.OrderBlock)
	if agentrig.Phase(info.Phase) == agentrig.PhaseDraw && head.Number.Uint64() <= info.OrderBlock {
		stage = "wait " + stage
	}
	if stage != t.stage {
		t.stage, t.stageSince = stage, r.cfg.Now()
	}
	switch agentrig.Phase(info.Phase) {
	case agentrig.PhaseDraw:
		// Draw once the chain is past the order block and our rank's turn has come; again after a
		// re-anchor, or when a draw that was mined vanished in a reorg (still undrawn a few blocks
		// later).
		now := head.Number.Uint64()
		if now > info.OrderBlock && now >= t.drawRetryAt && r.due(ctx, t, nil) {
			t.drawRetryAt = now + 3
			r.spawn(ctx, fmt.Sprintf("draw/%d", t.id), func(ctx context.Context) {
				r.sendAny(ctx, "draw", t.id, r.contract.ABI().PackDraw(taskID))
			})
		}
	case agentrig.PhaseCommit:
		if len(mine) == 0 {
			return nil
		}
		if err := r.ensureInput(ctx, t); err != nil {
			return err
		}
		for rigID, idx := range mine {
			if info.CommittedMask&(1<<idx) != 0 {
				r.advance(ctx, t.id, rigID, StateCommitted, nil)
				continue
			}
			r.commit(ctx, t, info, head, rigID, batch)
		}
	case agentrig.PhaseReveal:
		for rigID, idx := range mine {
			switch {
			case info.RevealedMask&(1<<idx) != 0:
				r.advance(ctx, t.id, rigID, StateRevealed, nil)
			case info.CommittedMask&(1<<idx) == 0:
				r.advance(ctx, t.id, rigID, StateMissed, func(e *Entry) { e.Reason = "commit window closed before our commit was mined" })
			default:
				r.advance(ctx, t.id, rigID, StateCommitted, nil)
				r.reveal(ctx, t, rigID, batch)
			}
		}
	case agentrig.PhaseSettle:
		for rigID, idx := range mine {
			if info.RevealedMask&(1<<idx) != 0 {
				r.advance(ctx, t.id, rigID, StateRevealed, nil)
			}
		}
		if r.due(ctx, t, info.RigIds) {
			r.spawn(ctx, fmt.Sprintf("settle/%d", t.id), func(ctx context.Context) {
				r.sendAny(ctx, "settle", t.id, r.contract.ABI().PackSettle(taskID))
			})
		}
	case agentrig.PhaseSettled:
		if err := r.recordSettlement(ctx, t, info, mine); err != nil {
			return err
		}
		r.finish(t)
	case agentrig.PhaseRefunded:
		for rigID := range mine {
			r.advance(ctx, t.id, rigID, StateRefunded, nil)
		}
		r.finish(t)
	}
	return nil
}

// due reports whether this process's turn has come to send a task's draw or settle: the task has
// been in its current phase for our rank in the schedule times the stage delay (see
// ScheduleOrder; drawn ranks first, for settle).
func (r *Runner) due(ctx context.Context, t *taskState, drawn []uint64) bool {
	now := r.cfg.Now()
	if r.jobRigs == nil || now.Sub(r.jobRigsAt) > 30*time.Second {
		if ids, err := r.contract.JobRigs(ctx, r.cfg.JobID); err == nil {
			r.jobRigs, r.jobRigsAt = ids, now
		} else {
			r.log.Warn("reading the job's rigs for the send schedule failed", "error", err)
		}
	}
	order := ScheduleOrder(t.id, drawn, r.jobRigs)
	rank := ScheduleRank(order, func(id uint64) bool { _, ok := r.rigs[id]; return ok })
	return !now.Before(t.stageSince.Add(time.Duration(rank) * r.cfg.StageDelay))
}

func (r *Runner) finish(t *taskState) {
	r.mu.Lock()
	t.done = true
	delete(r.prices, t.id)
	r.mu.Unlock()
}

// advance records progress. The write is not cancelled with the runner: what the chain already
// shows must reach the journal even while the process is shutting down.
func (r *Runner) advance(ctx context.Context, taskID, rigID uint64, to State, update func(*Entry)) {
	if err := r.journal.Advance(context.WithoutCancel(ctx), taskID, rigID, to, update); err != nil {
		r.log.Error("journal write failed", "task", taskID, "rig", rigID, "state", to, "error", err)
	}
}

// commit makes sure the rig's answer is on disk, then sends (or batches) its commit.
func (r *Runner) commit(ctx context.Context, t *taskState, info agentrig.AgentRigTaskInfo, head *types.Header, rigID uint64, batch *relayBatch) {
	entry, found, err := r.journal.Get(ctx, t.id, rigID)
	if err != nil {
		r.log.Error("journal read failed", "task", t.id, "rig", rigID, "error", err)
		return
	}
	if found && entry.State.Final() {
		return
	}
	chainNow := time.Unix(int64(head.Time), 0)
	deadline := time.Unix(int64(info.CommitDeadline), 0)
	if !found || entry.State == StateDrawn {
		// Price once per task for all our rigs; answer in the background so other tasks move on.
		r.spawn(ctx, fmt.Sprintf("price/%d", t.id), func(ctx context.Context) {
			r.answer(ctx, t, info, chainNow)
		})
		return
	}
	key := fmt.Sprintf("commit/%d/%d", t.id, rigID)
	h := r.rigs[rigID]
	if r.relayer != nil {
		if r.isInflight(key) {
			return
		}
		digest, err := r.domain.CommitDigest(new(big.Int).SetUint64(t.id), entry.Commitment)
		if err == nil {
			var sig []byte
			if sig, err = h.signer.SignDigest(digest); err == nil {
				batch.commits = append(batch.commits, agentrig.AgentRigCommit{TaskId: new(big.Int).SetUint64(t.id), Commitment: entry.Commitment})
				batch.commitSigs = append(batch.commitSigs, sig)
				batch.commitKeys = append(batch.commitKeys, key)
			}
		}
		if err != nil {
			r.log.Error("signing a commit failed", "task", t.id, "rig", rigID, "error", err)
		}
		return
	}
	r.spawn(ctx, key, func(ctx context.Context) {
		rec, err := r.send(ctx, h.sender, r.contract.ABI().PackCommit(new(big.Int).SetUint64(t.id), entry.Commitment))
		if err != nil {
			r.logSendError("commit", t.id, rigID, err)
			return
		}
		r.committed(ctx, t.id, rigID, rec, deadline, chainNow)
	})
}

func (r *Runner) committed(ctx context.Context, taskID, rigID uint64, rec *types.Receipt, deadline, chainNow time.Time) {
	r.advance(ctx, taskID, rigID, StateCommitted, func(e *Entry) { e.CommitTx = rec.TxHash.Hex() })
	r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Committed })
	r.cfg.Metrics.observe(func(m *Metrics) prometheus.Histogram { return m.CommitMargin }, deadline.Sub(chainNow).Seconds())
	r.log.Info("committed", "task", taskID, "rig", rigID, "tx", rec.TxHash.Hex(), "block", rec.BlockNumber)
}

// answer prices the task once and journals an answer and a fresh salt for each of our rigs
// drawn for it. Nothing is sent here: the next step commits what the journal holds.
func (r *Runner) answer(ctx context.Context, t *taskState, info agentrig.AgentRigTaskInfo, chainNow time.Time) {
	log := r.log.With("task", t.id)
	mine := r.ours(info)
	deadline := time.Unix(int64(info.CommitDeadline), 0)
	left := deadline.Sub(chainNow) - r.cfg.CommitMargin
	skip := func(reason string) {
		log.Warn("task cannot be answered honestly", "reason", reason)
		for rigID := range mine {
			r.advance(ctx, t.id, rigID, StateSkipped, func(e *Entry) { e.Reason = reason })
		}
		r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Skipped })
	}
	r.mu.Lock()
	input, refusal := t.input, t.inputErr
	r.mu.Unlock()
	if refusal == nil {
		refusal = r.cfg.Inputs.CheckWindow(input, deadline)
	}
	if refusal != nil {
		if r.cfg.Inputs.RefusalAnswer == nil {
			skip(RefusalText(refusal))
			return
		}
		r.refuse(ctx, t, info, input, refusal)
		return
	}
	log = log.With("symbol", input.Symbol, "minute", input.Minute.Format(time.RFC3339))
	if closes := input.Minute.Add(time.Minute); r.cfg.Now().Before(closes) {
		// The minute closes inside the commit window (else the spec refuses the task), but too
		// late for this rig to price it by its commit margin: that is this rig's situation, not
		// the task's, so it skips rather than answer the refusal.
		if closes.Sub(r.cfg.Now()) > left {
			skip("the minute closes too late in the commit window to price it before the commit margin")
		}
		return // the minute has not closed yet: wait for it
	}
	if left <= 0 {
		skip("no time left in the commit window to price the minute")
		return
	}
	res, err := r.price(ctx, t.id, input, left)
	if err != nil || !res.Agreed {
		reason := res.Reason
		if err != nil {
			reason = err.Error()
		}
		if left < 2*r.cfg.Poll+time.Second {
			skip("no reconciled price: " + reason)
		} else {
			log.Warn("no reconciled price yet; trying again", "reason", reason)
			r.forgetPrice(t.id)
		}
		return
	}
	for _, q := range res.Quotes {
		if !q.Status.Priced() && q.Status != feeds.StatusNotCovered && q.Status != feeds.StatusNoKey {
			if m := r.cfg.Metrics; m != nil {
				m.SourceErrors.WithLabelValues(q.Source, string(q.Status)).Inc()
			}
		}
	}
	self := numeric.DistanceCentiBps(res.Price, res.Median)
	r.cfg.Metrics.observe(func(m *Metrics) prometheus.Histogram { return m.SelfDistance }, float64(self)/100)
	if limit := int64(r.tolerance) * int64(r.cfg.SelfCheckShare); self > limit || self < 0 {
		log.Warn("self-check: our answer is far from the expected median", "distance_bps", feeds.FormatCentiBps(self),
			"alert_bps", feeds.FormatCentiBps(limit), "answer", res.Price.String(), "expected_median", res.Median.String())
	}
	r.record(ctx, log, t, info, Entry{Symbol: input.Symbol, Minute: input.Minute, Price: res.Price,
		ExpectedMedian: res.Median, SelfCentiBps: self}, func(stored Entry) {
		log.Info("answered", "rig", stored.RigID, "price", stored.Price.String(), "expected_median", res.Median.String(),
			"self_distance_bps", feeds.FormatCentiBps(self), "sources", res.Survivors, "early", res.Early)
	})
}

// refuse journals the spec's refusal_answer for each of our rigs drawn for a task the spec
// refuses, with the reason; the next steps commit and reveal it like any answer.
func (r *Runner) refuse(ctx context.Context, t *taskState, info agentrig.AgentRigTaskInfo, input Input, why error) {
	reason, kind, price := RefusalText(why), RefusalKind(why), *r.cfg.Inputs.RefusalAnswer
	log := r.log.With("task", t.id)
	log.Warn("the spec refuses the task: answering its refusal_answer", "refusal_answer", price.String(), "rule", kind, "reason", reason)
	if m := r.cfg.Metrics; m != nil {
		m.Refused.WithLabelValues(kind).Inc()
	}
	r.record(ctx, log, t, info, Entry{Symbol: input.Symbol, Minute: input.Minute, Price: price, ExpectedMedian: price, Refusal: reason},
		func(stored Entry) {
			log.Info("answered the refusal", "rig", stored.RigID, "answer", stored.Price.String())
		})
}

// record journals answer e (Price, and the fields describing it) with a fresh salt for each of
// our rigs drawn for the task, before anything is sent. A rig whose journal already holds an
// answer keeps that one (RecordAnswer).
func (r *Runner) record(ctx context.Context, log *slog.Logger, t *taskState, info agentrig.AgentRigTaskInfo, e Entry, done func(Entry)) {
	answer := e.Price.Answer()
	for rigID := range r.ours(info) {
		salt, err := NewSalt()
		if err != nil {
			log.Error("no salt", "error", err)
			return
		}
		commitment, err := Commitment(new(big.Int).SetUint64(t.id), rigID, answer, salt)
		if err != nil {
			log.Error("commitment", "error", err)
			return
		}
		e.TaskID, e.RigID, e.Answer, e.Salt, e.Commitment = t.id, rigID, answer, salt, commitment
		e.CommitDeadline, e.RevealDeadline = time.Unix(int64(info.CommitDeadline), 0), time.Unix(int64(info.RevealDeadline), 0)
		stored, err := r.journal.RecordAnswer(r.fenced(ctx), e)
		if err != nil {
			log.Error("journal write failed: not committing", "rig", rigID, "error", err)
			return
		}
		done(stored)
	}
}

// price fetches a task's price once, however many of our rigs ask.
func (r *Runner) price(ctx context.Context, taskID uint64, input Input, budget time.Duration) (feeds.Result, error) {
	r.mu.Lock()
	call, ok := r.prices[taskID]
	if !ok {
		call = &priceCall{done: make(chan struct{})}
		r.prices[taskID] = call
	}
	r.mu.Unlock()
	if !ok {
		pctx, cancel := context.WithTimeout(ctx, budget)
		call.result, call.err = r.pricer.Price(pctx, input.Symbol, input.Minute)
		cancel()
		close(call.done)
	}
	select {
	case <-call.done:
		return call.result, call.err
	case <-ctx.Done():
		return feeds.Result{}, ctx.Err()
	}
}

func (r *Runner) forgetPrice(taskID uint64) {
	r.mu.Lock()
	delete(r.prices, taskID)
	r.mu.Unlock()
}

// reveal sends (or batches) the reveal of a committed rig with the answer and salt on disk.
func (r *Runner) reveal(ctx context.Context, t *taskState, rigID uint64, batch *relayBatch) {
	entry, found, err := r.journal.Get(ctx, t.id, rigID)
	if err != nil || !found || entry.Salt == ([32]byte{}) {
		r.log.Error("committed but the journal holds no answer to reveal", "task", t.id, "rig", rigID, "error", err)
		return
	}
	taskID := new(big.Int).SetUint64(t.id)
	key := fmt.Sprintf("reveal/%d/%d", t.id, rigID)
	h := r.rigs[rigID]
	if r.relayer != nil {
		if r.isInflight(key) {
			return
		}
		digest, err := r.domain.RevealDigest(taskID, entry.Answer, entry.Salt)
		if err == nil {
			var sig []byte
			if sig, err = h.signer.SignDigest(digest); err == nil {
				batch.reveals = append(batch.reveals, agentrig.AgentRigReveal{TaskId: taskID, Answer: entry.Answer, Salt: entry.Salt})
				batch.revealSigs = append(batch.revealSigs, sig)
				batch.revealKeys = append(batch.revealKeys, key)
			}
		}
		if err != nil {
			r.log.Error("signing a reveal failed", "task", t.id, "rig", rigID, "error", err)
		}
		return
	}
	r.spawn(ctx, key, func(ctx context.Context) {
		rec, err := r.send(ctx, h.sender, r.contract.ABI().PackReveal(taskID, entry.Answer, entry.Salt))
		if err != nil {
			r.logSendError("reveal", t.id, rigID, err)
			return
		}
		r.revealed(ctx, t.id, rigID, rec)
	})
}

func (r *Runner) revealed(ctx context.Context, taskID, rigID uint64, rec *types.Receipt) {
	r.advance(ctx, taskID, rigID, StateRevealed, func(e *Entry) { e.RevealTx = rec.TxHash.Hex() })
	r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Revealed })
	r.log.Info("revealed", "task", taskID, "rig", rigID, "tx", rec.TxHash.Hex())
}

// sendBatch sends one step's relayed commits and reveals, one transaction each.
func (r *Runner) sendBatch(ctx context.Context, b relayBatch) {
	if r.relayer == nil {
		return
	}
	if len(b.commits) > 0 {
		keys := b.commitKeys
		data := r.contract.ABI().PackCommitMany(b.commits, b.commitSigs)
		r.spawnMany(ctx, keys, func(ctx context.Context) {
			rec, err := r.send(ctx, r.relayer, data)
			if err != nil {
				r.log.Warn("relayed commits failed", "entries", len(keys), "error", err, "reason", revertName(err))
				return
			}
			r.log.Info("relayed commits", "entries", len(keys), "tx", rec.TxHash.Hex())
		})
	}
	if len(b.reveals) > 0 {
		keys := b.revealKeys
		data := r.contract.ABI().PackRevealMany(b.reveals, b.revealSigs)
		r.spawnMany(ctx, keys, func(ctx context.Context) {
			rec, err := r.send(ctx, r.relayer, data)
			if err != nil {
				r.log.Warn("relayed reveals failed", "entries", len(keys), "error", err, "reason", revertName(err))
				return
			}
			r.log.Info("relayed reveals", "entries", len(keys), "tx", rec.TxHash.Hex())
		})
	}
}

// send sends a transaction to the contract from s, once the lease is checked in the database
// (a shared journal): an instance that lost the lease sends nothing.
func (r *Runner) send(ctx context.Context, s *Sender, data []byte) (*types.Receipt, error) {
	if err := r.gate(ctx); err != nil {
		return nil, err
	}
	return s.Send(ctx, r.cfg.Contract, data, nil)
}

// sendAny sends a transaction anyone may send (draw, settle) from the relayer or our first rig.
// A revert means another process got there first, or it is not time yet: the next step looks
// again.
func (r *Runner) sendAny(ctx context.Context, what string, taskID uint64, data []byte) {
	s := r.relayer
	if s == nil {
		s = r.rigs[r.RigIDs()[0]].sender
	}
	rec, err := r.send(ctx, s, data)
	if err != nil {
		r.logSendError(what, taskID, 0, err)
		return
	}
	r.log.Info(what, "task", taskID, "tx", rec.TxHash.Hex())
}

// logSendError logs a transaction that was not sent because it would revert (someone else got
// there first, or a predecessor of this process already did it: expected, info) apart from one
// that failed or reverted on chain (a warning with the decoded reason).
func (r *Runner) logSendError(what string, taskID, rigID uint64, err error) {
	log := r.log.With("task", taskID)
	if rigID != 0 {
		log = log.With("rig", rigID)
	}
	if errors.Is(err, ErrWouldRevert) {
		log.Info(what+" not sent: it would revert", "reason", revertName(err))
		return
	}
	log.Warn(what+" failed", "error", err, "reason", revertName(err))
}

// recordSettlement reads the stored answer and records, per rig, whether our answer was inside
// the agreement and how far it was from the stored median.
func (r *Runner) recordSettlement(ctx context.Context, t *taskState, info agentrig.AgentRigTaskInfo, mine map[uint64]int) error {
	if len(mine) == 0 {
		return nil
	}
	ans, err := r.contract.AnswerOf(ctx, new(big.Int).SetUint64(t.id))
	if err != nil {
		return err
	}
	stored := numeric.AnswerInt(ans.Answer)
	for rigID, idx := range mine {
		entry, _, err := r.journal.Get(ctx, t.id, rigID)
		if err != nil {
			return err
		}
		if entry.State.Final() {
			continue
		}
		revealed := info.RevealedMask&(1<<idx) != 0
		if !revealed {
			r.advance(ctx, t.id, rigID, StateMissed, func(e *Entry) {
				e.StoredAnswer, e.Agreed = ans.Answer, ans.Agreed
				if e.Reason == "" {
					e.Reason = "no reveal before the reveal window closed"
				}
			})
			r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Slashed })
			continue
		}
		inside := numeric.WithinTolerance(numeric.AnswerInt(entry.Answer), stored, r.tolerance)
		distance := StoredDistance(entry.Answer, ans.Answer)
		r.advance(ctx, t.id, rigID, StateSettled, func(e *Entry) {
			e.StoredAnswer, e.Agreed, e.Inside, e.RealizedCentiBps = ans.Answer, ans.Agreed, inside, distance
		})
		r.cfg.Metrics.observe(func(m *Metrics) prometheus.Histogram { return m.RealizedDistance }, float64(distance)/100)
		if inside && ans.Agreed {
			r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Agreed })
		} else if !inside {
			r.cfg.Metrics.inc(func(m *Metrics) prometheus.Counter { return m.Slashed })
		}
		r.log.Info("settled", "task", t.id, "rig", rigID, "agreed", ans.Agreed, "inside", inside,
			"stored", numeric.FormatScaled(stored), "ours", entry.Price.String(), "distance_bps", feeds.FormatCentiBps(distance))
	}
	return nil
}

// spawn runs f in the background unless a job with the same key is still running.
func (r *Runner) spawn(ctx context.Context, key string, f func(ctx context.Context)) {
	r.spawnMany(ctx, []string{key}, f)
}

func (r *Runner) spawnMany(ctx context.Context, keys []string, f func(ctx context.Context)) {
	r.mu.Lock()
	for _, k := range keys {
		if r.inflight[k] {
			r.mu.Unlock()
			return
		}
	}
	for _, k := range keys {
		r.inflight[k] = true
	}
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			for _, k := range keys {
				delete(r.inflight, k)
			}
			r.mu.Unlock()
		}()
		f(ctx)
	}()
}

func (r *Runner) isInflight(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inflight[key]
}
