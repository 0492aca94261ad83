package all_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	_ "github.com/pricerig/pricerig/sources/all"
	"github.com/pricerig/pricerig/sources/sim"
)

// generic are the registered types with no provider of their own in the simulator: what they
// cover is whatever sources.yaml says, so there is nothing for them to agree with.
var generic = map[string]string{
	"json": "a spec in sources.yaml describes any JSON API (jsonsrc's own tests read the simulator's fmp and tiingo through it)",
}

// simOptions are the options a type needs to read the simulator as sources.yaml would set them.
// udf is a generic endpoint whose coverage is configuration (its default is the regular session
// only); the simulator's udf serves pre, regular and post.
var simOptions = map[string]map[string]string{
	"udf": {"sessions": "pre,regular,post"},
}

// TestCoverageMatchesSimulator is the check sources/README.md promises: every registered type
// the simulator speaks, built through the registry against an in-process simulator, says it
// covers exactly the sessions the simulator serves for that provider. A session one side has and
// the other lacks would be bars the reconciler waits for in vain, or bars it never asks for.
func TestCoverageMatchesSimulator(t *testing.T) {
	now := time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := sim.New(sim.Options{Seed: 1, Now: clock})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close) // runs first: releases held requests so the listener can close

	simulated := sim.Providers()
	for _, p := range simulated {
		if _, ok := sources.Lookup(p); !ok {
			t.Errorf("the simulator speaks %s, which no adapter registers", p)
		}
	}
	checked := 0
	for _, typ := range sources.Types() {
		if why, ok := generic[typ]; ok {
			t.Logf("%s: not compared: %s", typ, why)
			continue
		}
		if !slices.Contains(simulated, typ) {
			t.Errorf("%s is registered but the simulator does not speak it: emulate it in sources/sim or say here why it is generic", typ)
			continue
		}
		checked++
		t.Run(typ, func(t *testing.T) {
			f, _ := sources.Lookup(typ)
			set := sources.Settings{Name: typ, Type: typ, BaseURL: s.BaseURL(srv.URL, typ), Key: sim.Key, Options: simOptions[typ]}
			if f.NeedsSecret {
				set.Secret = sim.Secret
			}
			src, err := f.New(set, sources.Deps{Now: clock})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := src.Coverage().Sessions, sim.Sessions(typ); len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("coverage sessions %v, the simulator serves %v", got, want)
			}
		})
	}
	if checked != len(simulated) {
		t.Errorf("compared %d types, the simulator speaks %d providers", checked, len(simulated))
	}
}

// TestEveryTypeIsComplete is sources/README.md's "adding a provider" checklist as a test: every
// registered type has its one Factory (Type set to its name, key variables declared when it needs
// a key), a simulator emulation (or a line in generic saying why not), a README with a YAML block
// naming the type, a recorded real body in testdata, and the coverage facts the reconciler and the
// backfill planner read.
func TestEveryTypeIsComplete(t *testing.T) {
	for _, typ := range sources.Types() {
		t.Run(typ, func(t *testing.T) {
			f, _ := sources.Lookup(typ)
			if f.Type != typ {
				t.Errorf("registered as %s, its Factory says %s", typ, f.Type)
			}
			if f.New == nil || f.Build == nil {
				t.Fatal("not registered through sources.Adapter: the Factory lacks New or Build, so it may skip the shared prologue")
			}
			if f.NeedsKey && f.KeyEnv == "" || f.NeedsSecret && f.SecretEnv == "" {
				t.Errorf("needs a key or secret but declares no variable for it (KeyEnv, SecretEnv)")
			}
			if _, ok := generic[typ]; !ok && !slices.Contains(sim.Providers(), typ) {
				t.Errorf("no simulator emulation: add sources/sim/%s.go (or say in generic why it has none)", typ)
			}
			dir := filepath.Join("..", packageDir(f))
			readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Errorf("no README: %v", err)
			} else if !strings.Contains(string(readme), "```yaml") || !strings.Contains(string(readme), "type: "+typ) {
				t.Errorf("%s/README.md has no YAML block with type: %s", dir, typ)
			}
			bodies, _ := os.ReadDir(filepath.Join(dir, "testdata"))
			recorded := 0
			for _, b := range bodies {
				// a body written by hand (*.handmade.*) shows a shape, not the provider's answer
				if info, err := b.Info(); err == nil && info.Mode().IsRegular() && info.Size() > 0 && !strings.Contains(b.Name(), ".handmade.") {
					recorded++
				}
			}
			if recorded == 0 {
				t.Errorf("no recorded real body in %s/testdata (hand-made ones do not count)", dir)
			}
			set := sources.Settings{Name: typ, Type: typ, BaseURL: "http://127.0.0.1:1", Key: sim.Key, Secret: sim.Secret, Options: keyedOptions[typ]}
			if o, ok := simOptions[typ]; ok {
				set.Options = o
			}
			src, err := f.New(set, sources.Deps{})
			if err != nil {
				t.Fatalf("built with its simulator settings: %v", err)
			}
			c := src.Coverage()
			if len(c.Sessions) == 0 || c.MaxWindow <= 0 || c.Adjustment == "" {
				t.Errorf("coverage %+v lacks sessions, a max window or an adjustment", c)
			}
			if c.Rate != f.DefaultRate {
				t.Errorf("coverage rate %v, want the type's default %v when sources.yaml sets none", c.Rate, f.DefaultRate)
			}
			// the backfill plans by these facts alone: they must agree with what the source is
			if _, pager := src.(sources.Pager); c.Paged != pager {
				t.Errorf("coverage says paged %v, but the source is a sources.Pager: %v", c.Paged, pager)
			}
			if c.Paged && c.Page <= 0 {
				t.Errorf("a paged source declares no page size (Coverage.Page)")
			}
			if (c.Cut == sources.CutDates) != (c.Dates > 0) {
				t.Errorf("coverage cut %v with %d dates a request: CutDates and Dates go together", c.Cut, c.Dates)
			}
		})
	}
}

// packageDir is the directory under sources/ of the package whose constructor a Factory holds.
func packageDir(f sources.Factory) string {
	name := runtime.FuncForPC(reflect.ValueOf(f.Build).Pointer()).Name() // …/sources/jsonsrc.build
	pkg := name[:strings.LastIndex(name, ".")]
	return pkg[strings.LastIndex(pkg, "/")+1:]
}
