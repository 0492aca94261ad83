package all_test

import (
	"net/http/httptest"
	"slices"
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
