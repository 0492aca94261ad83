package all_test

import (
	"strings"
	"testing"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// TestQuotaTableMatchesFactories: sources/README.md's quota table has one row for every
// registered type, its free-tier quota is the factory's DefaultQuota (a quota the table writes
// in words is none), and a source built without quota: in sources.yaml is held to it.
func TestQuotaTableMatchesFactories(t *testing.T) {
	rows := table(t, "../README.md", "| type | free-tier quota |")
	seen := map[string]int{}
	for _, row := range rows {
		seen[row[0]]++
	}
	for _, typ := range sources.Types() {
		t.Run(typ, func(t *testing.T) {
			f, _ := sources.Lookup(typ)
			if seen[typ] != 1 {
				t.Fatalf("sources/README.md's quota table has %d rows for %s, want 1", seen[typ], typ)
			}
			var cell string
			for _, row := range rows {
				if row[0] == typ {
					cell = row[1]
				}
			}
			want := "none"
			if q, err := sources.ParseQuota(cell); err == nil {
				want = q.String()
			} else if !strings.HasPrefix(cell, "none") && !strings.HasPrefix(cell, "set in") {
				t.Errorf("the quota table says %q for %s: neither a quota nor none", cell, typ)
			}
			if got := f.DefaultQuota.String(); got != want {
				t.Errorf("sources/README.md says %s's free-tier quota is %q, its factory says %s", typ, cell, got)
			}
			set := sources.Settings{Name: typ, Type: typ, BaseURL: "http://127.0.0.1:1", Key: sim.Key, Secret: sim.Secret, Options: keyedOptions[typ]}
			if o, ok := simOptions[typ]; ok {
				set.Options = o
			}
			src, err := f.New(set, sources.Deps{})
			if err != nil {
				t.Fatal(err)
			}
			if got := src.Coverage().Quota.String(); got != want {
				t.Errorf("built without quota:, the source's coverage says %s, want the default %s", got, want)
			}
		})
	}
	for typ := range seen {
		if _, ok := sources.Lookup(typ); !ok {
			t.Errorf("the quota table has a row for %q, which no adapter registers", typ)
		}
	}
}
