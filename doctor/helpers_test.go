package doctor

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/sources"
	_ "github.com/pricerig/pricerig/sources/all"
	"github.com/pricerig/pricerig/sources/sim"
)

// tuesday is mid-morning of a regular session: every simulated source serves the minutes
// before it (massive's default delay is set to 0 below, as a paid plan's).
var tuesday = time.Date(2026, 11, 24, 15, 35, 30, 0, time.UTC)

// simEnv is a provider simulator whose clock, and the doctor's, stand at now.
type simEnv struct {
	sim *sim.Server
	url string
	now time.Time
}

func newSimEnv(t *testing.T, now time.Time) *simEnv {
	t.Helper()
	s := sim.New(sim.Options{Now: func() time.Time { return now }})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close)
	return &simEnv{sim: s, url: srv.URL, now: now}
}

// spec is a sources.yaml of the given simulated providers, every key set but those unset.
func (e *simEnv) spec(t *testing.T, providers []string, unset ...string) *feeds.Spec {
	t.Helper()
	var b strings.Builder
	b.WriteString("version: 1\nspec_uri: ipfs://job2\nsources:\n")
	feed := map[string]string{}
	for _, p := range providers {
		f, _ := sources.Lookup(p)
		fmt.Fprintf(&b, "  %s: {type: %s, base_url: %s", p, p, e.sim.BaseURL(e.url, p))
		if f.NeedsKey {
			fmt.Fprintf(&b, ", key_env: %s", f.KeyEnv)
		}
		if f.NeedsSecret {
			fmt.Fprintf(&b, ", secret_env: %s", f.SecretEnv)
		}
		if p == "massive" {
			b.WriteString(", delay: 0s")
		}
		b.WriteString("}\n")
		feed[p] = sim.ProviderSymbol(p, "NVDA")
	}
	b.WriteString("feeds:\n  NVDA: {")
	for i, p := range providers {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %q", p, feed[p])
	}
	b.WriteString("}\n")
	spec, err := feeds.Load([]byte(b.String()), feeds.LoadOptions{File: "s.yaml", Getenv: func(name string) string {
		for _, u := range unset {
			if u == name {
				return ""
			}
		}
		if strings.Contains(name, "SECRET") {
			return sim.Secret
		}
		return sim.Key
	}})
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// run runs the doctor on the simulated world at e.now.
func (e *simEnv) run(t *testing.T, o Options) Report {
	t.Helper()
	o.Deps = sources.Deps{Now: func() time.Time { return e.now }}
	return Run(context.Background(), o)
}

// find returns the checks named check (and subject, when given).
func find(r Report, check, subject string) []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Check == check && (subject == "" || c.Subject == subject) {
			out = append(out, c)
		}
	}
	return out
}

// one returns the one check named check and subject, failing the test otherwise.
func one(t *testing.T, r Report, check, subject string) Check {
	t.Helper()
	cs := find(r, check, subject)
	if len(cs) != 1 {
		t.Fatalf("%d checks %s %s in %+v", len(cs), check, subject, r.Checks)
	}
	return cs[0]
}

// verdicts maps each check (and subject) to its verdict and problem, for comparing whole reports.
func verdicts(r Report) map[string]string {
	out := map[string]string{}
	for _, c := range r.Checks {
		key := c.Check
		if c.Subject != "" {
			key += " " + c.Subject
		}
		out[key] = string(c.Verdict) + " " + c.Problem
	}
	return out
}
