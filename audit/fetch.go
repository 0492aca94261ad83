package audit

import (
	"context"
	"sync"
	"time"

	"github.com/pricerig/pricerig/sources"
)

// span is a stretch [from, to) of bars one request covers for every audited minute in it.
type span struct{ from, to time.Time }

func (s span) holds(from, to time.Time) bool { return !from.Before(s.from) && !to.After(s.to) }

// spansOf groups the audited minutes into the stretches one request each can cover: every
// minute's first request is [m − window, m + 1m), so minutes less than a window apart share one.
func spansOf(minutes []time.Time, window time.Duration) []span {
	var out []span
	for _, m := range minutes {
		s := span{m.Add(-window), m.Add(time.Minute)}
		if n := len(out); n > 0 && !s.from.After(out[n-1].to) {
			if s.to.After(out[n-1].to) {
				out[n-1].to = s.to
			}
			if s.from.Before(out[n-1].from) {
				out[n-1].from = s.from
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// sharedSource wraps a spec's source for an audit. The reconciler asks it for
// [m − window, m + 1m) at every audited minute m; the first such call of a run fetches the
// whole span of the run's minutes once and the others are served from it, so a run costs one
// request per source and symbol however many minutes it audits — which matters for sources
// paced at a few requests a minute or an hour. It also keeps what feeds.Quote cannot know: how
// long the real requests took.
type sharedSource struct {
	sources.Source
	mu  sync.Mutex
	run *runFetches
}

// runFetches is one run's memory of a source.
type runFetches struct {
	spans   []span
	fetches map[fetchKey]*fetch
	latency map[string]time.Duration // symbol → longest real request
}

type fetchKey struct {
	symbol string
	span   int
}

type fetch struct {
	done chan struct{}
	bars []sources.Bar
	err  error
}

// begin starts a run over spans, forgetting the last one.
func (s *sharedSource) begin(spans []span) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.run = &runFetches{spans: spans, fetches: map[fetchKey]*fetch{}, latency: map[string]time.Duration{}}
}

// Bars serves a window inside one of the run's spans from that span's single fetch, and any
// other window (the reconciler's second, longer look back) directly.
func (s *sharedSource) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	s.mu.Lock()
	run := s.run
	idx := -1
	if run != nil {
		for i, sp := range run.spans {
			if sp.holds(from, to) {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		s.mu.Unlock()
		return s.direct(ctx, run, symbol, from, to)
	}
	k := fetchKey{symbol, idx}
	f, ok := run.fetches[k]
	if !ok {
		f = &fetch{done: make(chan struct{})}
		run.fetches[k] = f
		s.mu.Unlock()
		sp := run.spans[idx]
		f.bars, f.err = s.direct(ctx, run, symbol, sp.from, sp.to)
		if f.err != nil && ctx.Err() != nil {
			// Cut short by this caller's deadline: the next minute should try again, not
			// inherit a cancellation.
			s.mu.Lock()
			delete(run.fetches, k)
			s.mu.Unlock()
		}
		close(f.done)
	} else {
		s.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	var out []sources.Bar
	for _, b := range f.bars {
		if !b.Start.Before(from) && b.Start.Before(to) {
			out = append(out, b)
		}
	}
	return out, nil
}

func (s *sharedSource) direct(ctx context.Context, run *runFetches, symbol string, from, to time.Time) ([]sources.Bar, error) {
	start := time.Now() // a measurement for the report, not a decision: the real clock
	bars, err := s.Source.Bars(ctx, symbol, from, to)
	took := time.Since(start)
	if run == nil {
		return bars, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	run.latency[symbol] = max(run.latency[symbol], took)
	return bars, err
}

// latencyOf is the longest real request for a symbol this run; false when none was made.
func (s *sharedSource) latencyOf(symbol string) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil {
		return 0, false
	}
	d, ok := s.run.latency[symbol]
	return d, ok
}
