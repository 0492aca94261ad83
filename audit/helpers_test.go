package audit

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// fakeClock is the one clock of a test: the simulator, the sources, the reconciler and the
// audit read it.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.t = c.t.Add(max(d, 0))
	c.mu.Unlock()
	return ctx.Err()
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// simEnv is an in-process simulator on loopback, on a fake clock, serving every bar final the
// moment its minute ends (sim.Options.Instant): the audit of the last minutes sees every source.
type simEnv struct {
	sim   *sim.Server
	url   string
	clock *fakeClock
}

func newSimEnv(t testing.TB, now time.Time) *simEnv {
	t.Helper()
	clock := &fakeClock{t: now}
	s := sim.New(sim.Options{Seed: 3, Now: clock.Now, Instant: true})
	hs := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); hs.Close() })
	return &simEnv{sim: s, url: hs.URL, clock: clock}
}

// spec is the shipped sources.yaml pointed at the simulator through base_url overrides and the
// environment (so a key can be left unset), with pacing lifted and retries off, and every bar
// trusted when its minute ends (the simulator is instant): a test never waits on a real timer.
func (e *simEnv) spec(t testing.TB, unset ...string) *feeds.Spec {
	t.Helper()
	base := map[string]string{}
	for _, p := range sim.Providers() {
		base[p] = e.url + "/" + p
	}
	getenv := func(name string) string {
		if slices.Contains(unset, name) {
			return ""
		}
		if name == "ALPACA_API_SECRET_KEY" {
			return sim.Secret
		}
		return sim.Key
	}
	spec, err := feeds.Load(pricerig.DefaultSpec, feeds.LoadOptions{Getenv: getenv, BaseURLs: base})
	if err != nil {
		t.Fatal(err)
	}
	for i := range spec.Sources {
		spec.Sources[i].Rate = sources.Rate{N: 1 << 30, Per: time.Second}
		spec.Sources[i].Retries = -1 // negative: off (zero means the default)
		spec.Sources[i].FinalAfter, spec.Sources[i].Coverage.FinalAfter = sources.FinalAtClose, 0
	}
	return spec
}

func (e *simEnv) auditor(t testing.TB, cfg Config) *Auditor {
	t.Helper()
	cfg.Deps.Now = e.clock.Now
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// names maps each finding name to the sources (or symbols, or tasks) it was reported for.
func names(fs []Finding) map[string][]string {
	out := map[string][]string{}
	for _, f := range fs {
		who := f.Source
		if who == "" {
			who = f.Symbol
		}
		if who == "" {
			who = f.Address
		}
		if who == "" && f.TaskID != 0 {
			who = fmt.Sprintf("task %d", f.TaskID)
		}
		if !slices.Contains(out[f.Name], who) {
			out[f.Name] = append(out[f.Name], who)
		}
	}
	for k := range out {
		sort.Strings(out[k])
	}
	return out
}
