package rig

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

// countingPricer answers every symbol at once and counts the fetches of each symbol and minute.
type countingPricer struct {
	mu      sync.Mutex
	fetches map[string]int
}

func (p *countingPricer) Price(_ context.Context, symbol string, minute time.Time, _ ...feeds.PriceOption) (feeds.Result, error) {
	p.mu.Lock()
	p.fetches[fmt.Sprintf("%s@%s", symbol, minute.Format("15:04"))]++
	p.mu.Unlock()
	price := numeric.MustPrice("123.45")
	return feeds.Result{Symbol: symbol, Minute: minute, Agreed: true, Price: price, Median: price, Survivors: 3}, nil
}

func (p *countingPricer) count(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fetches[key]
}

// Tasks that ask the same symbol at the same minute share one fetch while any of them is open:
// drawn together for a hundred tasks, a process fetched each task's price on its own, and the
// sources' rates queued the fetches for seconds. A price that did not serve (forgotten) and one
// whose tasks all finished are fetched again.
func TestTasksOfOneSymbolAndMinuteShareOnePriceFetch(t *testing.T) {
	b := newBatchRig(t, false, 1)
	p := &countingPricer{fetches: map[string]int{}}
	b.r.pricer = p
	m := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	ask := func(task uint64, symbol string, minute time.Time) {
		t.Helper()
		res, err := b.r.price(b.ctx, task, rigtask.Input{Symbol: symbol, Minute: minute}, time.Minute)
		if err != nil || !res.Agreed || res.Symbol != symbol || !res.Minute.Equal(minute) {
			t.Fatalf("task %d: price of %s at %s: %+v, %v", task, symbol, minute, res, err)
		}
	}
	for task := uint64(101); task <= 103; task++ {
		ask(task, "SPY", m)
	}
	ask(104, "NVDA", m)
	ask(105, "SPY", m.Add(time.Minute))
	for key, want := range map[string]int{"SPY@15:30": 1, "NVDA@15:30": 1, "SPY@15:31": 1} {
		if got := p.count(key); got != want {
			t.Errorf("%s fetched %d times for its tasks, want %d", key, got, want)
		}
	}

	b.r.forgetPrice(101) // it did not serve: the next task asking fetches again
	ask(106, "SPY", m)
	if got := p.count("SPY@15:30"); got != 2 {
		t.Errorf("after a forgotten price, SPY@15:30 fetched %d times, want 2", got)
	}

	b.r.finish(b.r.task(105)) // the last task of SPY@15:31 is done: its price goes with it
	ask(107, "SPY", m.Add(time.Minute))
	if got := p.count("SPY@15:31"); got != 2 {
		t.Errorf("after its last task finished, SPY@15:31 fetched %d times, want 2", got)
	}
	b.r.finish(b.r.task(104))
	b.r.finish(b.r.task(107))
	for _, task := range []uint64{102, 103, 106} {
		b.r.finish(b.r.task(task))
	}
	b.r.mu.Lock()
	left, shared := len(b.r.prices), len(b.r.priceOf)
	b.r.mu.Unlock()
	if left != 0 || shared != 0 {
		t.Errorf("with every task finished, %d task prices and %d shared prices are kept, want none", left, shared)
	}
}

// ctxKeepingPricer answers at once and keeps the context it was asked with, as a reconciler
// whose early quorum left slower fetches running on that context.
type ctxKeepingPricer struct{ ctx context.Context }

func (p *ctxKeepingPricer) Price(ctx context.Context, symbol string, minute time.Time, _ ...feeds.PriceOption) (feeds.Result, error) {
	p.ctx = ctx
	price := numeric.MustPrice("123.45")
	return feeds.Result{Symbol: symbol, Minute: minute, Agreed: true, Price: price, Median: price, Survivors: 3}, nil
}

// A price answered on an early quorum leaves the slower fetches its context carries running, to
// keep their bars in the ledger: the rig cancelled that context as soon as Price returned, and
// every slower source's fetch ended "context canceled" with nothing kept. The context still
// ends with the rig's.
func TestAnEarlyQuorumLeavesTheSlowerFetchesRunning(t *testing.T) {
	b := newBatchRig(t, false, 1)
	p := &ctxKeepingPricer{}
	b.r.pricer = p
	ctx, stop := context.WithCancel(b.ctx)
	m := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	if _, err := b.r.price(ctx, 201, rigtask.Input{Symbol: "SPY", Minute: m}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := context.Cause(p.ctx); err != nil {
		t.Fatalf("the fetches' context ended when the price was answered: %v", err)
	}
	stop()
	select {
	case <-p.ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the fetches' context outlived the rig's")
	}
}
