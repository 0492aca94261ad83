package rpcpool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/event"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/redact"
)

// Config says which endpoints a Pool uses and when it takes one out of rotation. Zero values
// take the defaults.
type Config struct {
	URLs    []string // the endpoints, http(s) or ws(s); at least one
	ChainID uint64   // the chain id every endpoint must answer; 0 takes the first answer's
	// Probe is how often each endpoint's chain id (while unchecked) and head are read; default 1s.
	Probe time.Duration
	// Attempt bounds one call on one endpoint: an endpoint that has not answered by then is
	// taken out of rotation and the call is tried on the next one; default 4s (a commit window
	// is minutes long: three endpoints tried in turn stay well inside it).
	Attempt time.Duration
	// MaxLag is how many blocks behind the highest head an endpoint may be; default 3.
	MaxLag uint64
	// StallAfter is how long an endpoint's head may stand still while another endpoint's is
	// ahead of it; default 15s.
	StallAfter time.Duration
	Log        *slog.Logger
	Now        func() time.Time // the clock of head ages; default time.Now
}

// Status is what a Pool knows of one endpoint.
type Status struct {
	Endpoint  string        `json:"endpoint"` // the URL with its credentials redacted
	Up        bool          `json:"up"`       // in rotation
	Reason    string        `json:"reason,omitempty"`
	ChainID   uint64        `json:"chain_id,omitempty"`
	Head      uint64        `json:"head"`
	HeadHash  common.Hash   `json:"head_hash"`
	HeadAge   time.Duration `json:"head_age_ns"` // since its head last moved
	Lag       uint64        `json:"head_lag"`    // blocks behind the highest head
	Errors    uint64        `json:"errors"`      // failed calls and probes so far
	Latency   time.Duration `json:"latency_ns"`  // the last answered call's round trip
	Websocket bool          `json:"websocket"`   // its heads arrive by subscription
}

// Pool is several endpoints of one chain seen as one: Client is a JSON-RPC client whose reads
// go to the healthiest endpoint and whose transactions go to all (route.go), SubscribeNewHead
// follows the highest head, and Status says how each endpoint fares.
type Pool struct {
	cfg    Config
	eps    []*endpoint
	client *rpc.Client
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	chainID uint64
	best    uint64        // the highest head of the endpoints in rotation
	moved   chan struct{} // closed when best grows
	hashes  map[uint64]common.Hash
}

// endpoint is one node; its fields past the first two are guarded by the Pool's mu.
type endpoint struct {
	name   string // redacted
	url    string
	client *rpc.Client // nil until dialed

	up      bool
	reason  string
	checked bool // chain id checked since it last came (back) into rotation
	chainID uint64
	head    uint64
	hash    common.Hash
	movedAt time.Time
	failed  error // the last probe's or call's failure; nil after an answer
	errors  uint64
	latency time.Duration
	ws      bool
	said    bool // why it is out was logged
}

// New dials every endpoint, reads each once (so the first call goes to a checked one) and
// watches them until Close. An endpoint that cannot be dialed is tried again at each probe.
func New(ctx context.Context, cfg Config) (*Pool, error) {
	if len(cfg.URLs) == 0 {
		return nil, errors.New("rpcpool: no endpoint")
	}
	cfg.Probe = cmpOr(cfg.Probe, time.Second)
	cfg.Attempt = cmpOr(cfg.Attempt, 4*time.Second)
	cfg.StallAfter = cmpOr(cfg.StallAfter, 15*time.Second)
	if cfg.MaxLag == 0 {
		cfg.MaxLag = 3
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	p := &Pool{cfg: cfg, chainID: cfg.ChainID, moved: make(chan struct{}), hashes: map[uint64]common.Hash{}}
	for _, u := range cfg.URLs {
		p.eps = append(p.eps, &endpoint{name: redact.URL(u), url: u, reason: "not read yet"})
	}
	client, err := rpc.DialOptions(ctx, "http://rpcpool.invalid/", rpc.WithHTTPClient(p.httpClient()))
	if err != nil {
		return nil, err
	}
	p.client = client
	watch, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.cancel = cancel
	var first sync.WaitGroup
	for _, e := range p.eps {
		first.Add(1)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.watch(watch, e, first.Done)
		}()
	}
	first.Wait()
	return p, nil
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Client is the pool as one JSON-RPC client.
func (p *Pool) Client() *rpc.Client { return p.client }

// Eth is the pool as a go-ethereum client: every typed call, and Client() for the raw ones.
func (p *Pool) Eth() *ethclient.Client { return ethclient.NewClient(p.client) }

// Close stops watching and closes every endpoint's client.
func (p *Pool) Close() {
	p.cancel()
	p.wg.Wait()
	p.client.Close()
	for _, e := range p.eps {
		if e.client != nil {
			e.client.Close()
		}
	}
}

// Status is every endpoint's state, in the order given.
func (p *Pool) Status() []Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.cfg.Now()
	out := make([]Status, 0, len(p.eps))
	for _, e := range p.eps {
		s := Status{Endpoint: e.name, Up: e.up, Reason: e.reason, ChainID: e.chainID, Head: e.head, HeadHash: e.hash,
			Errors: e.errors, Latency: e.latency, Websocket: e.ws}
		if !e.movedAt.IsZero() {
			s.HeadAge = now.Sub(e.movedAt)
		}
		if p.best > e.head {
			s.Lag = p.best - e.head
		}
		out = append(out, s)
	}
	return out
}

// Healthy is how many endpoints are in rotation.
func (p *Pool) Healthy() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, e := range p.eps {
		if e.up {
			n++
		}
	}
	return n
}

// watch probes e every Probe until ctx ends, and follows its heads by subscription when it
// offers them; ready is called after the first probe.
func (p *Pool) watch(ctx context.Context, e *endpoint, ready func()) {
	heads := p.subscribe(ctx, e)
	p.probe(ctx, e)
	ready()
	tick := time.NewTicker(p.cfg.Probe)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case h, ok := <-heads:
			if !ok {
				heads = nil // the subscription ended: the probes go on alone
				continue
			}
			p.sawHead(e, h, true)
		case <-tick.C:
			if heads == nil && p.offersWebsocket(e) {
				heads = p.subscribe(ctx, e) // it did before: again
			}
			p.probe(ctx, e)
		}
	}
}

// wireHead is a block as eth_getBlockByNumber and newHeads give it: the fields the pool reads.
type wireHead struct {
	Number *hexutil.Big `json:"number"`
	Hash   common.Hash  `json:"hash"`
}

// probe reads e's chain id (when not checked since it came back) and its head.
func (p *Pool) probe(ctx context.Context, e *endpoint) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Attempt)
	defer cancel()
	client, err := p.dial(ctx, e)
	if err != nil {
		p.failed(e, fmt.Errorf("dial: %w", err))
		return
	}
	p.mu.Lock()
	checked := e.checked
	p.mu.Unlock()
	if !checked {
		var id hexutil.Big
		if err := client.CallContext(ctx, &id, "eth_chainId"); err != nil {
			p.failed(e, fmt.Errorf("eth_chainId: %w", err))
			return
		}
		if !p.checkChain(e, (*big.Int)(&id)) {
			return
		}
	}
	start := time.Now()
	var h *wireHead
	if err := client.CallContext(ctx, &h, "eth_getBlockByNumber", "latest", false); err != nil || h == nil || h.Number == nil {
		if err == nil {
			err = errors.New("no latest block")
		}
		p.failed(e, fmt.Errorf("eth_getBlockByNumber: %w", err))
		return
	}
	p.mu.Lock()
	e.latency = time.Since(start)
	p.mu.Unlock()
	p.sawHead(e, *h, false)
}

// dial is e's client, dialed on first use (a websocket endpoint that was down at the start is
// dialed again at each probe).
func (p *Pool) dial(ctx context.Context, e *endpoint) (*rpc.Client, error) {
	p.mu.Lock()
	c := e.client
	p.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err := rpc.DialContext(ctx, e.url)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.client != nil {
		c.Close()
		return e.client, nil
	}
	e.client = c
	return c, nil
}

// clientOf is e's client; nil until a probe dialed it.
func (p *Pool) clientOf(e *endpoint) *rpc.Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	return e.client
}

// checkChain records e's chain id; a chain other than the pool's keeps e out of rotation.
func (p *Pool) checkChain(e *endpoint, id *big.Int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !id.IsUint64() {
		p.setDown(e, fmt.Sprintf("chain id %s", id))
		return false
	}
	e.chainID = id.Uint64()
	if p.chainID == 0 {
		p.chainID = e.chainID
	}
	if e.chainID != p.chainID {
		p.setDown(e, fmt.Sprintf("wrong chain: chain id %d, want %d", e.chainID, p.chainID))
		return false
	}
	e.checked = true
	return true
}

// sawHead records a head of e and looks at every endpoint again.
func (p *Pool) sawHead(e *endpoint, h wireHead, pushed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := h.Number.ToInt().Uint64()
	if pushed && n < e.head {
		return // a subscription's stale delivery; the probe reads the latest
	}
	if n != e.head || e.movedAt.IsZero() {
		e.movedAt = p.cfg.Now()
	}
	e.head, e.hash, e.failed = n, h.Hash, nil
	p.rank()
}

// failed records a failed probe or call on e: it leaves rotation until a probe reads it again
// and its chain id is checked again.
func (p *Pool) failed(e *endpoint, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.errors++
	e.failed = err
	e.checked = false
	p.setDown(e, "not answering: "+redact.String(err.Error()))
	p.rank()
}

// setDown takes e out of rotation for reason, said once: when it leaves (or first fails to
// join); the reason kept for Status follows it.
func (p *Pool) setDown(e *endpoint, reason string) {
	if e.up || !e.said {
		p.cfg.Log.Warn("rpc endpoint out of rotation", "endpoint", e.name, "reason", reason)
		e.said = true
	}
	e.up, e.reason = false, reason
}

// rank decides, from every endpoint's last head, which are in rotation: one behind the highest
// head by more than MaxLag, standing still behind another's for StallAfter, or holding another
// block at a height the pool has seen is out; the others are in. Called with mu held.
func (p *Pool) rank() {
	now := p.cfg.Now()
	var best uint64
	for _, e := range p.eps {
		if e.failed == nil && e.checked && e.head > best {
			best = e.head
		}
	}
	for _, e := range p.eps {
		if e.failed != nil || !e.checked || e.movedAt.IsZero() {
			continue
		}
		reason := ""
		switch want, seen := p.hashes[e.head]; {
		case best > e.head+p.cfg.MaxLag:
			reason = fmt.Sprintf("lagging: head %d, %d blocks behind %d", e.head, best-e.head, best)
		case best > e.head && now.Sub(e.movedAt) > p.cfg.StallAfter:
			reason = fmt.Sprintf("stalled: head %d unmoved for %s while another's is at %d", e.head, now.Sub(e.movedAt).Round(time.Second), best)
		case seen && want != e.hash:
			reason = fmt.Sprintf("another block at height %d: %s, the others hold %s", e.head, e.hash.Hex(), want.Hex())
		}
		if reason != "" {
			p.setDown(e, reason)
			continue
		}
		if !e.up {
			p.cfg.Log.Info("rpc endpoint in rotation", "endpoint", e.name, "head", e.head, "chain_id", e.chainID)
		}
		e.up, e.reason, e.said = true, "", false
		if _, seen := p.hashes[e.head]; !seen {
			p.hashes[e.head] = e.hash
		}
	}
	for n := range p.hashes {
		if n+64 < best {
			delete(p.hashes, n)
		}
	}
	if best > p.best {
		p.best = best
		close(p.moved)
		p.moved = make(chan struct{})
	}
}

// ranked is the endpoints a read tries, in order: those in rotation by highest head, then
// lowest latency; then the others (an answer from one out of rotation beats none).
func (p *Pool) ranked() []*endpoint {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := slices.Clone(p.eps)
	slices.SortStableFunc(out, func(a, b *endpoint) int {
		switch {
		case a.up != b.up:
			if a.up {
				return -1
			}
			return 1
		case a.head != b.head:
			if a.head > b.head {
				return -1
			}
			return 1
		}
		return int(a.latency - b.latency)
	})
	return out
}

// SubscribeNewHead sends a header carrying the block number each time the highest head of the
// endpoints in rotation grows (a wake-up: the runner reads the head it needs itself).
func (p *Pool) SubscribeNewHead(ctx context.Context, ch chan<- *types.Header) (ethereum.Subscription, error) {
	return event.NewSubscription(func(quit <-chan struct{}) error {
		for {
			p.mu.Lock()
			moved := p.moved
			p.mu.Unlock()
			select {
			case <-quit:
				return nil
			case <-ctx.Done():
				return nil
			case <-moved:
			}
			p.mu.Lock()
			n := p.best
			p.mu.Unlock()
			select {
			case ch <- &types.Header{Number: new(big.Int).SetUint64(n)}:
			case <-quit:
				return nil
			case <-ctx.Done():
				return nil
			}
		}
	}), nil
}
