package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// The client timeouts of a fault check: under sim.FaultTimeout the simulator holds the request
// until the client gives up, so a short one keeps the test fast; every other fault gets a
// patient one where the settings set none (a long window takes a while under -race).
const (
	HangTimeout    = 200 * time.Millisecond
	PatientTimeout = time.Minute
)

// Config says which source to build against a fresh simulator.
type Config struct {
	Type     string // the registered source type
	Provider string // the simulator provider it reads; "" is Type
	Seed     int64  // the tape's seed
	Now      time.Time
	// Settings are the source's. BaseURL is the simulator's; an empty Name is Type, an empty
	// Key is sim.Key, an empty Secret is sim.Secret for a type that needs one, and a zero Rate
	// is Fast.
	Settings sources.Settings
}

// ProviderName is the simulator provider the source reads.
func (c Config) ProviderName() string {
	if c.Provider != "" {
		return c.Provider
	}
	return c.Type
}

// Start starts a simulator on a loopback listener, closed when the test ends, whose clock (and
// the source's) stands at c.Now, and builds a source of c.Type against it through the registry,
// as sources.yaml would. The simulator serves every bar final the moment its minute ends
// (sim.Options.Instant), so what a source reads is the tape itself; when providers publish and
// revise is sources/sim's to test.
func Start(t testing.TB, c Config) (*sim.Server, sources.Source) {
	t.Helper()
	clock := func() time.Time { return c.Now }
	s := sim.New(sim.Options{Seed: c.Seed, Now: clock, Instant: true})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close) // runs first: releases held requests so the listener can close
	f, ok := sources.Lookup(c.Type)
	if !ok {
		t.Fatalf("%s is not registered", c.Type)
	}
	set := c.Settings
	set.Type = c.Type
	set.BaseURL = s.BaseURL(srv.URL, c.ProviderName())
	if set.Name == "" {
		set.Name = c.Type
	}
	if set.Key == "" {
		set.Key = sim.Key
	}
	if set.Secret == "" && f.NeedsSecret {
		set.Secret = sim.Secret
	}
	if set.Rate.IsZero() {
		set.Rate = Fast
	}
	src, err := f.New(set, sources.Deps{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return s, src
}

// Window is a span of time to ask a source for.
type Window struct {
	Name     string // for failure messages; "" names the window by its start
	Symbol   string // a tape symbol; "" asks for each of Case.Symbols
	From, To time.Time
}

func (w Window) label(symbol string) string {
	name := w.Name
	if name == "" {
		name = w.From.Format(time.RFC3339)
	}
	return symbol + " " + name
}

// Case is a round trip: windows a source is asked for, whose bars must be the tape's.
type Case struct {
	Config
	Symbols []string // the tape symbols a window without its own is asked for
	Windows []Window
	// EveryWindowTrades fails a window in which the tape has no bars, for windows all picked to
	// hold trades. Without it only the windows together must hold some: a weekend, or a session
	// the source does not cover, is then a window that must come back empty.
	EveryWindowTrades bool
	// SkipVolume leaves volume out of the comparison, for a provider whose volume is not the
	// tape's (pyth serves aggregate prices, with volume 0).
	SkipVolume bool
}

// RoundTrip starts a simulator, builds the case's source against it and compares (Compare).
func RoundTrip(t *testing.T, c Case) {
	t.Helper()
	s, src := Start(t, c.Config)
	Compare(t, s, src, c)
}

// Compare checks that src says it covers the sessions the simulator serves for its provider,
// then asks it for every window and checks that its bars are the tape's raw bars of the minutes
// in the window and in those sessions, minute for minute: start, close and volume. It returns
// how many bars it compared.
func Compare(t *testing.T, s *sim.Server, src sources.Source, c Case) int {
	t.Helper()
	provider := c.ProviderName()
	sessions := src.Coverage().Sessions
	if want := sim.Sessions(provider); !slices.Equal(sessions, want) {
		t.Fatalf("coverage sessions %v, the simulator serves %v", sessions, want)
	}
	total, asked := 0, 0
	for _, w := range c.Windows {
		symbols := c.Symbols
		if w.Symbol != "" {
			symbols = []string{w.Symbol}
		}
		for _, sym := range symbols {
			what := w.label(sym)
			got, err := src.Bars(context.Background(), sim.ProviderSymbol(provider, sym), w.From, w.To)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			want := TapeBars(s.Tape(), sym, w.From, w.To, sessions)
			if c.EveryWindowTrades && len(want) == 0 {
				t.Fatalf("%s: the tape has no bars there; pick a window with trades", what)
			}
			compareBars(t, what, got, want, !c.SkipVolume)
			total += len(want)
			asked++
		}
	}
	t.Logf("%d bars compared in %d windows", total, asked)
	if total == 0 {
		t.Fatal("no bars in any window: the comparison proved nothing")
	}
	return total
}

// TapeBars is what a source must return for [from, to): the tape's raw bars of the minutes
// that start in it and lie in the source's sessions.
func TapeBars(tape *sim.Tape, symbol string, from, to time.Time, sessions []market.Session) []sources.Bar {
	out := []sources.Bar{}
	for m := from.Truncate(time.Minute); m.Before(to); m = m.Add(time.Minute) {
		if m.Before(from) || !market.InSessions(m, sessions) {
			continue
		}
		if b, ok := tape.Bar(symbol, m); ok {
			out = append(out, b)
		}
	}
	return out
}

// SameBars checks that got is want, start, close and volume, where want must hold bars (a
// comparison of two empty lists proves nothing).
func SameBars(t testing.TB, what string, got, want []sources.Bar) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the tape has no bars there; pick a window with trades", what)
	}
	compareBars(t, what, got, want, true)
}

func compareBars(t testing.TB, what string, got, want []sources.Bar, volume bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bars, the tape has %d", what, len(got), len(want))
	}
	for i := range want {
		g, x := got[i], want[i]
		if !g.Start.Equal(x.Start) || g.Close != x.Close || (volume && g.Volume != x.Volume) {
			t.Fatalf("%s: bar %d = %+v, the tape has %+v", what, i, g, x)
		}
	}
}

// Fault is a failure the simulator injects and the kind of error the adapter must report.
type Fault struct {
	Fault sim.Fault
	Kind  error
}

// FaultCase asks a source for one window while the simulator injects each fault in turn.
type FaultCase struct {
	Config
	Window Window // its Symbol is the tape symbol asked for
	Faults []Fault
}

// Faults checks, for each fault on a fresh simulator, that the source reports an
// *sources.Error of the fault's kind carrying its name. Retries are off: a retry would hide
// the kind of the first answer.
func Faults(t *testing.T, c FaultCase) {
	t.Helper()
	for _, f := range c.Faults {
		t.Run(f.Fault.String(), func(t *testing.T) {
			cfg := c.Config
			cfg.Settings.Retries = -1
			switch {
			case f.Fault == sim.FaultTimeout:
				cfg.Settings.Timeout = HangTimeout
			case cfg.Settings.Timeout == 0:
				cfg.Settings.Timeout = PatientTimeout
			}
			s, src := Start(t, cfg)
			s.SetFault(cfg.ProviderName(), f.Fault)
			_, err := src.Bars(context.Background(), sim.ProviderSymbol(cfg.ProviderName(), c.Window.Symbol), c.Window.From, c.Window.To)
			if err := isError(err, f.Kind, src.Name()); err != nil {
				t.Errorf("%s: %v", f.Fault, err)
			}
		})
	}
}

// RateLimit lets the simulator serve the provider one request a minute: the first window must
// come back, the second must fail rate limited with the retry-after the provider sent.
func RateLimit(t *testing.T, c Config, first, second Window) {
	t.Helper()
	c.Settings.Retries = -1
	s, src := Start(t, c)
	s.SetRateLimit(c.ProviderName(), 1)
	ask := func(w Window) error {
		_, err := src.Bars(context.Background(), sim.ProviderSymbol(c.ProviderName(), w.Symbol), w.From, w.To)
		return err
	}
	if err := ask(first); err != nil {
		t.Fatalf("first request under the limit: %v", err)
	}
	err := ask(second)
	var e *sources.Error
	if check := isError(err, sources.ErrRateLimited, src.Name()); check != nil || !errors.As(err, &e) || e.RetryAfter <= 0 {
		t.Errorf("over the limit: %v, want rate limited with a retry-after", err)
	}
}

// isError says what is wrong with err if it is not an *sources.Error of kind from source.
func isError(err, kind error, source string) error {
	var e *sources.Error
	switch {
	case !errors.As(err, &e):
		return fmt.Errorf("error %v is not a *sources.Error of kind %v", err, kind)
	case !errors.Is(err, kind):
		return fmt.Errorf("error %v, want kind %v", err, kind)
	case e.Source != source:
		return fmt.Errorf("error %v names source %q, want %q", err, e.Source, source)
	}
	return nil
}
