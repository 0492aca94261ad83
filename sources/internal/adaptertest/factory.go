package adaptertest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pricerig/pricerig/sources"
)

// OptionCase is a set of a source type's options and what building a source with it gives.
type OptionCase struct {
	Options map[string]string
	Bad     string           // when set, the options are refused with an error naming this key
	Want    sources.Coverage // otherwise, the coverage the source reports, every field of it
}

// Coverages builds a source of typ through the registry from settings with each case's options
// and checks that it is refused naming the bad key, or reports exactly the case's coverage. It
// returns the sources built (nil where refused) for checks of the caller's own.
func Coverages(t testing.TB, typ string, settings sources.Settings, cases []OptionCase) []sources.Source {
	t.Helper()
	f, ok := sources.Lookup(typ)
	if !ok {
		t.Fatalf("%s is not registered", typ)
	}
	out := make([]sources.Source, len(cases))
	for i, tc := range cases {
		s := settings
		s.Options = tc.Options
		src, err := f.New(s, sources.Deps{})
		if tc.Bad != "" {
			var oe *sources.OptionError
			if !errors.As(err, &oe) || oe.Key != tc.Bad || !strings.Contains(err.Error(), tc.Bad) {
				t.Errorf("%v: error %v, want an *sources.OptionError naming %q", tc.Options, err, tc.Bad)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.Options, err)
		}
		if c := src.Coverage(); !sameCoverage(c, tc.Want) {
			t.Errorf("%v: coverage %+v, want %+v", tc.Options, c, tc.Want)
		}
		out[i] = src
	}
	return out
}

// RateReachesCoverage builds a source of typ from settings, whose Rate is not the type's
// default, and checks that its coverage reports that rate: the one the client paces at.
func RateReachesCoverage(t testing.TB, typ string, settings sources.Settings) {
	t.Helper()
	f, ok := sources.Lookup(typ)
	if !ok {
		t.Fatalf("%s is not registered", typ)
	}
	if settings.Rate == f.DefaultRate {
		t.Fatalf("rate %v is the default: the check would prove nothing", settings.Rate)
	}
	src, err := f.New(settings, sources.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if got := src.Coverage().Rate; got != settings.Rate {
		t.Errorf("rate setting %v not in coverage: %v", settings.Rate, got)
	}
}

func sameCoverage(a, b sources.Coverage) bool {
	return slices.Equal(a.Sessions, b.Sessions) && a.Lookback == b.Lookback && a.MaxWindow == b.MaxWindow &&
		a.Adjustment == b.Adjustment && a.Delay == b.Delay && a.Rate == b.Rate
}
