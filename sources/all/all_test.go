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
			t.Errorf("%s is registered but the simulator does not speak it: emulate it in its folder (emulation.go, sim.Register) or say here why it is generic", typ)
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

// ownParse are the adapters with a decoder of their own that read a bar's close and volume
// themselves instead of with sources.ParseBar, RowBar or KeepRow, and why.
var ownParse = map[string]string{
	"yahoo": "a close is a float32 printed as a float64 (numeric.CanonicalFloat32 recovers it), and a volume it leaves out is not 0",
	"json":  "sources.yaml names the paths of its values, which it reads with gjson",
}

// TestEveryTypeIsComplete is sources/README.md's "adding a provider" checklist as a test: every
// registered type has, in its own folder, its one Factory in the one shape (a Type constant, a
// DefaultBaseURL for a provider's API, DefaultRate), a simulator emulation that registers itself
// (or a line in generic saying why not), a README with a YAML block naming the type, recorded
// real bodies in testdata that its tests read, the shared checks of adaptertest, a stream
// decoder proven on a huge body that reads bars with the shared helpers (or a line in ownParse),
// and the coverage facts the reconciler and the backfill planner read; and both READMEs' tables
// list it: its key variables in README.md, its coverage row in sources/README.md.
func TestEveryTypeIsComplete(t *testing.T) {
	keyRows := table(t, "../../README.md", "| variable | source |")
	coverageRows := table(t, "../README.md", "| type | sessions |")
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
			dir := packageDir(f)
			fo := readFolder(t, dir)
			checkFactoryShape(t, f, fo)
			_, isGeneric := generic[typ]
			if !isGeneric && (!slices.Contains(sim.Providers(), typ) || !fo.calls["sim.Register"]) {
				t.Errorf("no simulator emulation in sources/%s that registers itself (sim.Register from its init), or a line in generic saying why it has none", dir)
			}
			readme, err := os.ReadFile(filepath.Join("..", dir, "README.md"))
			if err != nil {
				t.Errorf("no README: %v", err)
			} else if !strings.Contains(string(readme), "```yaml") || !strings.Contains(string(readme), "type: "+typ) {
				t.Errorf("sources/%s/README.md has no YAML block with type: %s", dir, typ)
			} else if !strings.Contains(string(readme), "`final_after`") {
				t.Errorf("sources/%s/README.md does not say when a bar is final (`final_after`) and where that comes from", dir)
			}
			checkTestdata(t, dir, fo)
			checkSharedTests(t, f, fo, isGeneric)
			checkDecoder(t, typ, fo)
			checkKeyRow(t, f, keyRows)

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
			if c.FinalAfter != f.FinalAfter || f.FinalAfter <= 0 {
				t.Errorf("coverage final_after %v, want the type's default %v (which must not be 0: no provider's bar is final the instant its minute ends)", c.FinalAfter, f.FinalAfter)
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
			checkCoverageRow(t, f, c, coverageRows)
		})
	}
	// and the other way: a table row naming no registered type is stale
	for _, row := range coverageRows {
		if _, ok := sources.Lookup(row[0]); !ok {
			t.Errorf("sources/README.md's coverage table has a row for %q, which no adapter registers", row[0])
		}
	}
}

// checkFactoryShape holds the factory to the one shape: `const Type = "<type>"`, `var factory =
// sources.Adapter(sources.Factory{Type: Type, …}, build)`, BaseURL: DefaultBaseURL (a constant)
// when the provider has an API of its own, DefaultRate: DefaultRate when it has a default rate.
func checkFactoryShape(t *testing.T, f sources.Factory, fo *folder) {
	t.Helper()
	if fo.factory == nil {
		t.Errorf("sources/%s declares no `var factory = sources.Adapter(sources.Factory{…}, build)`", fo.dir)
		return
	}
	if fo.consts["Type"] != f.Type || !isIdent(fo.factory["Type"], "Type") {
		t.Errorf("sources/%s: want `const Type = %q` and Factory{Type: Type}", fo.dir, f.Type)
	}
	if f.BaseURL != "" && (fo.consts["DefaultBaseURL"] != f.BaseURL || !isIdent(fo.factory["BaseURL"], "DefaultBaseURL")) {
		t.Errorf("sources/%s: want `const DefaultBaseURL = %q` and Factory{BaseURL: DefaultBaseURL}", fo.dir, f.BaseURL)
	}
	if !f.DefaultRate.IsZero() && !isIdent(fo.factory["DefaultRate"], "DefaultRate") {
		t.Errorf("sources/%s: want `var DefaultRate = sources.Rate{…}` and Factory{DefaultRate: DefaultRate}", fo.dir)
	}
	if !fo.constNames["DefaultFinalAfter"] || !isIdent(fo.factory["FinalAfter"], "DefaultFinalAfter") {
		t.Errorf("sources/%s: want `const DefaultFinalAfter = …` (citing where it comes from) and Factory{FinalAfter: DefaultFinalAfter}", fo.dir)
	}
}

// checkTestdata wants a recorded real body in testdata (a hand-made one, *.handmade.*, shows a
// shape and does not count) and every body there named by a test beside the adapter, so none
// sits unread.
func checkTestdata(t *testing.T, dir string, fo *folder) {
	t.Helper()
	bodies, _ := os.ReadDir(filepath.Join("..", dir, "testdata"))
	recorded := 0
	for _, b := range bodies {
		if info, err := b.Info(); err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
			continue
		}
		if !strings.Contains(b.Name(), ".handmade.") {
			recorded++
		}
		if !slices.ContainsFunc(fo.literals, func(l string) bool { return strings.Contains(l, b.Name()) }) {
			t.Errorf("sources/%s/testdata/%s is read by no test in the folder", dir, b.Name())
		}
	}
	if recorded == 0 {
		t.Errorf("no recorded real body in sources/%s/testdata (hand-made ones do not count)", dir)
	}
}

// checkSharedTests wants the shared checks of sources/internal/adaptertest called by the folder's
// tests: faults for every type; for one the simulator speaks, its rate limit and a round trip
// against the tape (adaptertest.Compare for yahoo, whose bars are split-adjusted); for one that
// needs a key, that the key never leaks.
func checkSharedTests(t *testing.T, f sources.Factory, fo *folder, isGeneric bool) {
	t.Helper()
	want := []string{"adaptertest.Faults"}
	if !isGeneric {
		want = append(want, "adaptertest.RateLimit")
		if !fo.tests["adaptertest.Compare"] {
			want = append(want, "adaptertest.RoundTrip")
		}
	}
	if f.NeedsKey {
		want = append(want, "adaptertest.KeyNeverLeaks")
	}
	for _, w := range want {
		if !fo.tests[w] {
			t.Errorf("the tests in sources/%s do not call %s", fo.dir, w)
		}
	}
}

// checkDecoder wants a folder that fetches (sources.Fetch) to prove its stream decoder on
// adaptertest.HugeBody and to read a bar's close and volume with the shared helpers (or say in
// ownParse why not); a folder that does not fetch builds on an adapter that does (pyth and
// finnhub speak udf's format).
func checkDecoder(t *testing.T, typ string, fo *folder) {
	t.Helper()
	if !fo.calls["sources.Fetch"] {
		for p := range fo.imports {
			if dir, ok := strings.CutPrefix(p, module); ok && readFolder(t, dir).calls["sources.Fetch"] {
				return
			}
		}
		t.Errorf("sources/%s neither fetches with sources.Fetch nor builds on an adapter that does", fo.dir)
		return
	}
	if !fo.tests["adaptertest.HugeBody"] {
		t.Errorf("the tests in sources/%s do not prove the decoder on adaptertest.HugeBody", fo.dir)
	}
	_, own := ownParse[typ]
	shared := fo.calls["sources.ParseBar"] || fo.calls["sources.RowBar"] || fo.calls["sources.KeepRow"]
	if !shared && !own {
		t.Errorf("sources/%s reads bars without sources.ParseBar, RowBar or KeepRow: use them, or say in ownParse why not", fo.dir)
	}
	if shared && own {
		t.Errorf("sources/%s uses the shared bar helpers: drop its line in ownParse", fo.dir)
	}
}

// checkKeyRow wants README.md's key table to list the type's key variables, in one row, exactly
// when it declares any.
func checkKeyRow(t *testing.T, f sources.Factory, rows [][]string) {
	t.Helper()
	var want []string
	for _, v := range []string{f.KeyEnv, f.SecretEnv} {
		if v != "" {
			want = append(want, v)
		}
	}
	var got [][]string
	for _, row := range rows {
		if len(row) >= 2 && row[1] == f.Type {
			got = append(got, backticked(row[0]))
		}
	}
	switch {
	case len(want) == 0 && len(got) > 0:
		t.Errorf("README.md's key table lists %v for %s, whose factory declares no key variable", got, f.Type)
	case len(want) > 0 && (len(got) != 1 || !slices.Equal(got[0], want)):
		t.Errorf("README.md's key table lists %v for %s, want one row with %v (its KeyEnv, SecretEnv)", got, f.Type, want)
	}
}

// checkCoverageRow wants sources/README.md's coverage table to have one row for the type and,
// for a provider (a type with an API of its own), its sessions and default rate as the source
// declares them.
func checkCoverageRow(t *testing.T, f sources.Factory, c sources.Coverage, rows [][]string) {
	t.Helper()
	var row []string
	n := 0
	for _, r := range rows {
		if r[0] == f.Type {
			row, n = r, n+1
		}
	}
	if n != 1 {
		t.Errorf("sources/README.md's coverage table has %d rows for %s, want 1", n, f.Type)
		return
	}
	if d, err := time.ParseDuration(strings.Fields(row[len(row)-1] + " ")[0]); err != nil || d != f.FinalAfter {
		t.Errorf("sources/README.md says %s is final %q after its minute, its factory says %v", f.Type, row[len(row)-1], f.FinalAfter)
	}
	if f.BaseURL == "" || len(row) < 7 {
		return // a generic type's coverage is whatever sources.yaml sets
	}
	var want []string
	for _, s := range c.Sessions {
		want = append(want, string(s))
	}
	got := strings.Split(row[1], ", ")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("sources/README.md says %s serves sessions %q, its coverage says %v", f.Type, row[1], c.Sessions)
	}
	if r, err := sources.ParseRate(row[5]); err != nil || r != f.DefaultRate {
		t.Errorf("sources/README.md says %s's default rate is %q, its factory says %v", f.Type, row[5], f.DefaultRate)
	}
}

// packageDir is the directory under sources/ of the package whose constructor a Factory holds.
func packageDir(f sources.Factory) string {
	name := runtime.FuncForPC(reflect.ValueOf(f.Build).Pointer()).Name() // …/sources/jsonsrc.build
	return strings.TrimPrefix(name[:strings.LastIndex(name, ".")], module)
}

// TestFinalAfterReachesCoverage: sources.yaml's final_after is what every type's coverage says
// (the reconciler reads it there), FinalAtClose (final_after: 0) is 0, and an unset one is the
// type's default.
func TestFinalAfterReachesCoverage(t *testing.T) {
	for _, typ := range sources.Types() {
		t.Run(typ, func(t *testing.T) {
			f, _ := sources.Lookup(typ)
			for _, tc := range []struct {
				set, want time.Duration
			}{{0, f.FinalAfter}, {sources.FinalAtClose, 0}, {90 * time.Second, 90 * time.Second}} {
				set := sources.Settings{Name: typ, Type: typ, BaseURL: "http://127.0.0.1:1", Key: sim.Key, Secret: sim.Secret,
					Options: keyedOptions[typ], FinalAfter: tc.set}
				if o, ok := simOptions[typ]; ok {
					set.Options = o
				}
				src, err := f.New(set, sources.Deps{})
				if err != nil {
					t.Fatal(err)
				}
				if got := src.Coverage().FinalAfter; got != tc.want {
					t.Errorf("final_after %v: coverage says %v, want %v", tc.set, got, tc.want)
				}
			}
		})
	}
}
