package rig

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/task"
)

// LeaseConfig tunes active/passive instances on a shared (PostgreSQL) journal. Zero values take
// the defaults noted.
type LeaseConfig struct {
	// TTL is how long a lease lasts unrenewed; default 10s. A follower takes over at most TTL
	// (plus one Renew) after the leader stopped renewing.
	TTL time.Duration
	// Renew is the pause between two renewals (and between two tries of a follower); default
	// TTL/3.
	Renew time.Duration
	// Holder names this instance in the lease row; default host/pid/random.
	Holder string
}

func (c LeaseConfig) withDefaults() LeaseConfig {
	if c.TTL == 0 {
		c.TTL = 10 * time.Second
	}
	if c.Renew == 0 {
		c.Renew = c.TTL / 3
	}
	if c.Holder == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		c.Holder = fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	return c
}

// leadership is what a runner knows of its lease. validUntil is on this process's monotonic
// clock: taken before the acquiring request left, plus the TTL less a safety share, so it ends
// before the database's expiry whatever the machines' wall clocks say, and a process frozen
// past it (SIGSTOP, a long GC pause) finds it passed when it wakes.
type leadership struct {
	mu         sync.Mutex
	leaser     journal.Leaser // nil: an unshared journal, always the leader
	fence      journal.Fence
	held       bool
	validUntil time.Time
	renewedAt  time.Time // local, for the lease-age metric
	holderAge  time.Duration
	name       string
	// cfg, log and metrics are the runner's (Config.Lease, Config.Logger, Config.Metrics).
	cfg     LeaseConfig
	log     *slog.Logger
	metrics *Metrics
}

// leaseName is the lease of one set of keys on one job and contract: instances with the same
// keys share it, instances with other keys do not.
func leaseName(job uint32, contract common.Address, operators []task.Key, relayer *task.Key) string {
	addrs := make([]string, 0, len(operators)+1)
	for _, k := range operators {
		addrs = append(addrs, strings.ToLower(k.Address.Hex()))
	}
	slices.Sort(addrs)
	if relayer != nil {
		addrs = append(addrs, "relayer:"+strings.ToLower(relayer.Address.Hex()))
	}
	return fmt.Sprintf("job%d@%s/%s", job, strings.ToLower(contract.Hex()), strings.Join(addrs, ","))
}

// IsLeader reports whether this runner may send transactions now.
func (r *Runner) IsLeader() bool { return r.lead.isLeader() }

// isLeader reports whether the lease is ours by the local monotonic clock (always, unshared).
func (l *leadership) isLeader() bool {
	if l.leaser == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held && time.Now().Before(l.validUntil)
}

// guard is the sender's last check before a transaction leaves: the lease must still be valid
// by the local monotonic clock.
func (l *leadership) guard() error {
	if !l.isLeader() {
		return journal.ErrFenced
	}
	return nil
}

// gate is the check before a send job starts: the lease is valid locally and, in the database,
// still ours in our epoch.
func (l *leadership) gate(ctx context.Context) error {
	if l.leaser == nil {
		return nil
	}
	if !l.isLeader() {
		return journal.ErrFenced
	}
	l.mu.Lock()
	f := l.fence
	l.mu.Unlock()
	if err := l.leaser.CheckFence(ctx, f); err != nil {
		return err
	}
	return l.guard()
}

// fenced returns ctx carrying this runner's fence, for journal writes that lead to a
// transaction (RecordAnswer checks it in the same database transaction).
func (l *leadership) fenced(ctx context.Context) context.Context {
	if l.leaser == nil {
		return ctx
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return journal.WithFence(ctx, l.fence)
}

// renew takes or renews the lease once. It returns true when this runner just became the
// leader (a new epoch): the caller then takes over what the previous leader left.
func (l *leadership) renew(ctx context.Context) (tookOver bool) {
	cfg := l.cfg
	start := time.Now()
	actx, cancel := context.WithTimeout(ctx, cfg.Renew)
	lease, err := l.leaser.AcquireLease(actx, l.name, cfg.Holder, cfg.TTL)
	cancel()
	l.mu.Lock()
	defer func() {
		l.mu.Unlock()
		l.metrics.setLeader(l.isLeader(), l.age())
	}()
	if err != nil {
		if ctx.Err() == nil {
			l.log.Warn("lease not renewed: the journal database is unreachable; sending nothing until it is back", "error", err)
		}
		return false
	}
	l.holderAge = lease.Age
	if !lease.Held {
		if l.held {
			l.log.Warn("lease lost: another instance leads now", "holder", lease.Holder, "epoch", lease.Epoch)
		}
		l.held = false
		return false
	}
	tookOver = !l.held || l.fence.Epoch != lease.Epoch
	l.held = true
	l.fence = journal.Fence{Name: l.name, Holder: cfg.Holder, Epoch: lease.Epoch}
	// A fifth of the TTL is kept back for the time between this check and a broadcast.
	l.validUntil = start.Add(cfg.TTL - cfg.TTL/5)
	l.renewedAt = time.Now()
	if tookOver {
		l.log.Info("lease taken: this instance leads", "holder", cfg.Holder, "epoch", lease.Epoch)
	}
	return tookOver
}

// age is how long ago the lease was renewed: by us when we lead, by the leader as the
// database saw it otherwise.
func (l *leadership) age() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.leaser == nil {
		return 0
	}
	if l.held {
		return time.Since(l.renewedAt)
	}
	return l.holderAge
}

// takeOver makes a new leader finish what the previous one left: nonces are read from the
// chain (pending) again, and every open task of the journal is driven by what the chain says,
// so a journaled commit not yet mined is sent again with the same salt and a due reveal is sent.
func (r *Runner) takeOver(ctx context.Context) {
	for _, h := range r.rigs {
		if h.sender != nil {
			h.sender.ForgetNonce()
		}
	}
	if r.relayer != nil {
		r.relayer.ForgetNonce()
	}
	open, err := r.journal.Open(ctx)
	if err != nil {
		r.log.Warn("journal unreadable at takeover; the chain's events will bring the tasks back", "error", err)
		return
	}
	for _, e := range open {
		if _, ours := r.rigs[e.RigID]; ours {
			t := r.task(e.TaskID)
			r.mu.Lock()
			t.done = false
			r.mu.Unlock()
		}
	}
}

// holdLease renews the lease every Renew until ctx ends, then releases it so a follower takes
// over at once.
func (r *Runner) holdLease(ctx context.Context) {
	tick := time.NewTicker(r.cfg.Lease.Renew)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.lead.release()
			return
		case <-tick.C:
		}
		if r.lead.renew(ctx) {
			r.takeOver(ctx)
		}
	}
}

// release lets the lease expire now when we hold it (a clean stop), so a follower takes over at
// its next look instead of waiting out the TTL.
func (l *leadership) release() {
	l.mu.Lock()
	held, f := l.held, l.fence
	l.held = false
	l.mu.Unlock()
	if !held {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := l.leaser.ReleaseLease(ctx, f); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		l.log.Warn("lease not released; a follower takes over when it expires", "error", err)
	}
	l.metrics.setLeader(false, 0)
}

// Ready reports whether the runner is ready, for /readyz: the leader whose last look at the
// chain succeeded, or a follower that followed the chain up to the head it saw at its last
// look; why says what is wrong when it is not.
func (r *Runner) Ready() (ready bool, why string) {
	r.mu.Lock()
	at, err := r.lastStepAt, r.lastStepErr
	r.mu.Unlock()
	switch {
	case at.IsZero():
		return false, "no look at the chain yet"
	case err != nil:
		// served on /readyz: redacted as stdout and stderr are (the RPC URL's key is in err)
		return false, "last look at the chain failed: " + redact.Error(err)
	case time.Since(at) > 5*r.cfg.Poll+5*time.Second:
		return false, fmt.Sprintf("last look at the chain was %s ago", time.Since(at).Round(time.Second))
	}
	if r.IsLeader() {
		return true, "leader"
	}
	return true, "follower, at the head"
}
