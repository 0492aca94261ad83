package backfill

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
)

// Backfill fills a store from the sources of a spec.
type Backfill struct {
	store   *history.Store
	opts    Options
	clock   Clock
	log     *slog.Logger
	now     time.Time // the instant the plan is made for
	rules   feeds.Rules
	symbols []string
	feeds   map[string]feeds.Feed
	members []*member // spec order
	jobs    map[*member][]job

	phase          atomic.Value // string
	minutes, total atomic.Int64
}

// New validates the options, builds the sources and plans the windows still missing from the
// store. An error wrapping ErrBadInput means the options are at fault.
func New(store *history.Store, o Options) (*Backfill, error) {
	return NewContext(context.Background(), store, o)
}

// NewContext is New with a context: planning stops when ctx is cancelled (with ctx's error).
func NewContext(ctx context.Context, store *history.Store, o Options) (*Backfill, error) {
	b, err := prepare(o)
	if err != nil {
		return nil, err
	}
	b.store = store
	if err := b.plan(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// Run fetches the planned windows, then the lead-ins the range's first minutes need to carry a
// price, then reconciles every minute of the range into the store. Cancelling ctx stops it at a
// transaction boundary: the summary says Interrupted, and a re-run continues where it stopped.
func (b *Backfill) Run(ctx context.Context) (*Summary, error) {
	started := b.clock.Now()
	args, _ := json.Marshal(map[string]any{
		"from": b.opts.From, "to": b.opts.To, "symbols": b.symbols, "sources": b.opts.Sources,
		"sessions": b.rules.Sessions,
	})
	// the store's own writes outlive a cancel: a window fetched is a window kept
	bg := context.WithoutCancel(ctx)
	runID, err := b.store.BeginRun(bg, started, string(args))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	sum := &Summary{From: b.opts.From, To: b.opts.To, Symbols: b.symbols, Sessions: market.SessionStrings(b.rules.Sessions)}
	finish := func(err error) (*Summary, error) {
		b.phase.Store("done")
		b.fill(sum)
		sum.Interrupted = ctx.Err() != nil
		sum.Elapsed = b.clock.Now().Sub(started)
		text, _ := json.Marshal(sum)
		if e := b.store.EndRun(bg, runID, b.clock.Now(), string(text)); e != nil && err == nil {
			err = fmt.Errorf("store: %w", e)
		}
		return sum, err
	}

	b.phase.Store("fetch")
	err = b.fetchAll(ctx)
	if err == nil && ctx.Err() == nil {
		b.phase.Store("lead-in")
		if err = b.planLeadIns(bg); err == nil {
			err = b.fetchAll(ctx)
		}
	}
	sum.FetchTime = b.clock.Now().Sub(started)
	if err != nil || ctx.Err() != nil {
		return finish(err)
	}
	b.phase.Store("reconcile")
	err = b.reconcile(ctx, sum)
	sum.ReconcileTime = b.clock.Now().Sub(started) - sum.FetchTime
	if ctx.Err() != nil {
		return finish(nil)
	}
	return finish(err)
}

// fetchAll runs every member's jobs, one goroutine per source (its requests are sequential: the
// rate is per source, and it keeps the request count of each window exact), and one writer.
func (b *Backfill) fetchAll(ctx context.Context) error {
	results := make(chan history.FetchedWindow, 2) // a little slack; the writer is the backpressure
	var writeErr error
	written := make(chan struct{})
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(written)
		for w := range results {
			if writeErr != nil {
				continue
			}
			n, err := b.store.PutWindow(context.WithoutCancel(ctx), w)
			if err != nil {
				writeErr = fmt.Errorf("store: %w", err)
				cancel() // no point fetching what cannot be written
				continue
			}
			m := b.member(w.Source)
			m.done.Add(1)
			m.bars.Add(int64(n))
			m.mu.Lock()
			if w.LeadIn {
				m.leadInReq += w.Requests
			}
			if !w.More {
				m.windows++
				if w.LeadIn {
					m.leadIns++
				}
				if w.Page {
					// the provider's floor for this window: its bars over the page
					m.minReq += m.pol.floorOf(w.WindowBars)
				}
			}
			for _, sym := range w.Symbols {
				if !w.Page || len(w.Bars[sym]) > 0 || w.Cover[sym].To.After(w.Cover[sym].From) {
					m.fetched[sym] = true
				}
			}
			m.mu.Unlock()
			if b.opts.OnWindow != nil {
				b.opts.OnWindow(WindowDone{Source: w.Source, Symbols: w.Symbols, Span: w.Span, Bars: n, Requests: w.Requests, LeadIn: w.LeadIn, Page: w.Page, More: w.More})
			}
		}
	}()
	var wg sync.WaitGroup
	for _, m := range b.members {
		jobs := b.jobs[m]
		if len(jobs) == 0 {
			continue
		}
		delete(b.jobs, m)
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.work(stop, m, jobs, results)
		}()
	}
	wg.Wait()
	close(results)
	<-written
	return writeErr
}

func (b *Backfill) member(name string) *member {
	for _, m := range b.members {
		if m.name == name {
			return m
		}
	}
	panic("history: unknown member " + name)
}
