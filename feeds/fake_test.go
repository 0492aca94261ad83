package feeds

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// Two source types for the loader tests, registered in the shared registry under names no real
// adapter uses.
func init() {
	sources.Register("test-plain", sources.Factory{
		Options:     map[string]string{"feed": "which feed to read", "sessions": "sessions to claim"},
		DefaultRate: sources.Rate{N: 60, Per: time.Minute},
		New: func(s sources.Settings, d sources.Deps) (sources.Source, error) {
			if f, ok := s.Options["feed"]; ok && f != "iex" && f != "sip" {
				return nil, sources.OptionErrorf(s.Name, "feed", "%q: want iex or sip", f)
			}
			cov := sources.Coverage{Sessions: []market.Session{market.Pre, market.Regular, market.Post}, Adjustment: sources.Raw}
			if ss, ok := s.Options["sessions"]; ok {
				sess, err := market.ParseSessions(strings.Split(ss, ","))
				if err != nil {
					return nil, fmt.Errorf("sessions: %v", err)
				}
				cov.Sessions = sess
			}
			return &fakeSource{name: s.Name, cov: cov}, nil
		},
	})
	sources.Register("test-keyed", sources.Factory{
		Options:     map[string]string{"region": "required region"},
		Required:    []string{"region"},
		NeedsKey:    true,
		NeedsSecret: true,
		New: func(s sources.Settings, d sources.Deps) (sources.Source, error) {
			return &fakeSource{name: s.Name, cov: sources.Coverage{Sessions: []market.Session{market.Regular}, Lookback: 29 * 24 * time.Hour}}, nil
		},
	})
}

// window is one Bars call a fake source saw.
type window struct {
	symbol   string
	from, to time.Time
}

// fakeSource serves bars from memory. With a gate it answers only once the gate is closed (or
// its context ends), which is how tests hold a source "slow" without sleeping.
type fakeSource struct {
	name string
	cov  sources.Coverage
	bars map[string][]sources.Bar // by provider symbol
	err  error
	gate chan struct{}
	// entered, when set, is closed at the first call, so a test can wait for it.
	entered chan struct{}
	once    sync.Once

	mu    sync.Mutex
	calls []window
}

func (f *fakeSource) Name() string               { return f.name }
func (f *fakeSource) Coverage() sources.Coverage { return f.cov }

func (f *fakeSource) Bars(ctx context.Context, symbol string, from, to time.Time) ([]sources.Bar, error) {
	f.mu.Lock()
	f.calls = append(f.calls, window{symbol, from, to})
	f.mu.Unlock()
	if f.entered != nil {
		f.once.Do(func() { close(f.entered) })
	}
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	var out []sources.Bar
	for _, b := range f.bars[symbol] {
		if !b.Start.Before(from) && b.Start.Before(to) {
			out = append(out, b)
		}
	}
	return out, nil
}

func (f *fakeSource) seen() []window {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// tape makes one bar per minute of [from, to) that lies in the sessions, priced base plus
// (minute of the day mod 60) cents times step, so neighbouring bars differ and a test can tell
// which bar was picked.
func tape(from, to time.Time, sessions []market.Session, base string, step int64) []sources.Bar {
	p := numeric.MustPrice(base)
	var out []sources.Bar
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		if !market.InSessions(m, sessions) {
			continue
		}
		cents := int64(m.Minute()) * step
		out = append(out, sources.Bar{Start: m, Close: p + numeric.Scaled(cents*1_000_000), Volume: 100})
	}
	return out
}

// priceOf is what tape gives the bar at m.
func priceOf(m time.Time, base string, step int64) numeric.Scaled {
	return numeric.MustPrice(base) + numeric.Scaled(int64(m.Minute())*step*1_000_000)
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

var extended = []market.Session{market.Pre, market.Regular, market.Post}
