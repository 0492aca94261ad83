package audit

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

func TestStatusOf(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	failedWith := func(k sources.ErrorKind) feeds.Quote { return feeds.Quote{Status: feeds.StatusError, Kind: k} }
	tests := []struct {
		name string
		q    feeds.Quote
		want Status
	}{
		{"ok", feeds.Quote{Status: feeds.StatusOK, BarTime: m}, StatusOK},
		{"carried a little", feeds.Quote{Status: feeds.StatusCarried, BarTime: m.Add(-3 * time.Minute)}, StatusOK},
		{"carried at the limit", feeds.Quote{Status: feeds.StatusCarried, BarTime: m.Add(-15 * time.Minute)}, StatusOK},
		{"carried past the limit", feeds.Quote{Status: feeds.StatusCarried, BarTime: m.Add(-16 * time.Minute)}, StatusStale},
		{"outlier", feeds.Quote{Status: feeds.StatusOutlier}, StatusOutlier},
		{"no data", feeds.Quote{Status: feeds.StatusNoData}, StatusNoData},
		{"no key", feeds.Quote{Status: feeds.StatusNoKey}, StatusNoKey},
		{"not covered", feeds.Quote{Status: feeds.StatusNotCovered}, StatusSkipped},
		{"not final yet", feeds.Quote{Status: feeds.StatusNotFinal, Kind: sources.KindNotFinal}, StatusSkipped},
		{"pending past the deadline", feeds.Quote{Status: feeds.StatusPending}, StatusDown},
		{"unauthorized", failedWith(sources.KindUnauthorized), StatusUnauthorized},
		{"rate limited", failedWith(sources.KindRateLimited), StatusRateLimited},
		{"unavailable", failedWith(sources.KindUnavailable), StatusDown},
		{"bad response", failedWith(sources.KindBadResponse), StatusDown},
		{"a body over its cap", failedWith(sources.KindBodyTooLarge), StatusDown},
		{"unknown symbol", failedWith(sources.KindUnknownSymbol), StatusDown},
		{"an error of no kind", failedWith(sources.KindOther), StatusDown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StatusOf(tc.q, m, DefaultStaleAfter); got != tc.want {
				t.Errorf("%s, want %s", got, tc.want)
			}
		})
	}
}

func TestNearRatio(t *testing.T) {
	ref := numeric.MustPrice("180.00")
	tests := []struct {
		price string
		r     Ratio
		want  bool
	}{
		{"90.00", Ratio{1, 2}, true},
		{"90.90", Ratio{1, 2}, true},  // 1 % off the ratio
		{"91.90", Ratio{1, 2}, false}, // 2.1 % off
		{"360.00", Ratio{2, 1}, true},
		{"18.00", Ratio{1, 10}, true},
		{"18.00", Ratio{1, 9}, false},
		{"120.00", Ratio{2, 3}, true},
		{"180.72", Ratio{1, 2}, false}, // a 40 bps drift is no split
	}
	for _, tc := range tests {
		if got := nearRatio(numeric.MustPrice(tc.price), ref, tc.r); got != tc.want {
			t.Errorf("%s vs %s at %s: %v, want %v", tc.price, ref, tc.r, got, tc.want)
		}
	}
	// no ratio of the table sits within the tolerance of another
	for i, a := range splitRatios {
		for j, b := range splitRatios {
			if i == j {
				continue
			}
			// price = ref·a; is it near b?
			p := numeric.Scaled(int64(ref) * a.Num / a.Den)
			if nearRatio(p, ref, b) {
				t.Errorf("ratio %s is within %d%% of %s", a, splitTolerancePct, b)
			}
		}
	}
}

// result reconciles hand-made quotes as the reconciler would.
func result(symbol string, m time.Time, qs ...feeds.Quote) feeds.Result {
	rules := feeds.DefaultRules()
	res := feeds.Reconcile(qs, rules)
	res.Symbol, res.Minute, res.Effective = symbol, m, m
	return res
}

func priced(src, price string, bar time.Time) feeds.Quote {
	st := feeds.StatusOK
	return feeds.Quote{Source: src, Symbol: "X", Status: st, Price: numeric.MustPrice(price), BarTime: bar, Carried: false}
}

func carried(src, price string, bar time.Time) feeds.Quote {
	q := priced(src, price, bar)
	q.Status, q.Carried = feeds.StatusCarried, true
	return q
}

func failed(src string, st feeds.Status, err string) feeds.Quote {
	return feeds.Quote{Source: src, Symbol: "X", Status: st, Err: err}
}

// failedKind is a request that failed with an error of a kind.
func failedKind(src string, k sources.ErrorKind, err string) feeds.Quote {
	return feeds.Quote{Source: src, Symbol: "X", Status: feeds.StatusError, Err: err, Kind: k}
}

func TestCheckSources(t *testing.T) {
	m0 := mustTime("2026-11-24T15:30:00Z")
	at := func(i int) time.Time { return m0.Add(time.Duration(i) * time.Minute) }
	th := Thresholds{}.WithDefaults(25)
	tests := []struct {
		name    string
		samples func() []Sample
		want    map[string][]string
		sev     map[string]Severity
	}{
		{
			name: "agreeing sources",
			samples: func() []Sample {
				var out []Sample
				for i := range 3 {
					out = append(out, Sample{Result: result("NVDA", at(i), priced("a", "100", at(i)), priced("b", "100", at(i)), priced("c", "100.01", at(i)))})
				}
				return out
			},
			want: map[string][]string{},
		},
		{
			name: "a drift inside the outlier cut is a warning",
			samples: func() []Sample {
				var out []Sample
				for i := range 3 {
					out = append(out, Sample{Result: result("NVDA", at(i), priced("a", "100", at(i)), priced("b", "100", at(i)), priced("c", "100.15", at(i)))})
				}
				return out
			},
			want: map[string][]string{SourceDrift: {"c"}},
			sev:  map[string]Severity{SourceDrift: Warn},
		},
		{
			name: "below the drift threshold",
			samples: func() []Sample {
				var out []Sample
				for i := range 3 {
					out = append(out, Sample{Result: result("NVDA", at(i), priced("a", "100", at(i)), priced("b", "100", at(i)), priced("c", "100.12", at(i)))})
				}
				return out
			},
			want: map[string][]string{},
		},
		{
			name: "one stray minute is not a drift",
			samples: func() []Sample {
				var out []Sample
				for i := range 3 {
					c := "100"
					if i == 1 {
						c = "100.40"
					}
					out = append(out, Sample{Result: result("NVDA", at(i), priced("a", "100", at(i)), priced("b", "100", at(i)), priced("c", c, at(i)))})
				}
				return out
			},
			want: map[string][]string{},
		},
		{
			name: "a stale carried bar",
			samples: func() []Sample {
				return []Sample{{Result: result("NVDA", at(0), priced("a", "100", at(0)), priced("b", "100", at(0)), carried("c", "100", at(-20)))}}
			},
			want: map[string][]string{SourceStale: {"c"}},
		},
		{
			name: "no bar, and no answer with too few prices",
			samples: func() []Sample {
				return []Sample{{Result: result("NVDA", at(0), priced("a", "100", at(0)), failed("b", feeds.StatusNoData, "no bar"), failed("c", feeds.StatusNoData, "no bar"))}}
			},
			want: map[string][]string{SourceNoData: {"b", "c"}, NoAnswer: {"NVDA"}},
			sev:  map[string]Severity{NoAnswer: Alert, SourceNoData: Warn},
		},
		{
			name: "failures by kind, one finding per source across symbols",
			samples: func() []Sample {
				var out []Sample
				for _, sym := range []string{"NVDA", "TSLA"} {
					out = append(out, Sample{
						Result: result(sym, at(0), priced("a", "100", at(0)), priced("b", "100", at(0)),
							failedKind("c", sources.KindUnauthorized, "c: unauthorized"), failedKind("d", sources.KindRateLimited, "d: rate limited"),
							failed("e", feeds.StatusPending, "no answer within the 20s deadline"), failed("f", feeds.StatusNoKey, "F_KEY is not set"),
							failed("g", feeds.StatusNotCovered, "covers regular, not the pre session"),
							failed("h", feeds.StatusOverQuota, "h: over quota: not sent: its quota of 25/day is used up until 2026-03-03T00:01:00Z")),
					})
				}
				return out
			},
			want: map[string][]string{SourceUnauthorized: {"c"}, SourceRateLimited: {"d"}, SourceDown: {"e"}, MissingKey: {"f"}, SourceOverQuota: {"h"}},
			sev:  map[string]Severity{MissingKey: Warn, SourceDown: Alert},
		},
		{
			name: "a split mismatch, not a drift",
			samples: func() []Sample {
				var out []Sample
				for i := range 3 {
					out = append(out, Sample{Result: result("NVDA", at(i), priced("a", "180", at(i)), priced("b", "180", at(i)), priced("c", "60.01", at(i)))})
				}
				return out
			},
			want: map[string][]string{ProbableSplit: {"c"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := CheckSources(tc.samples(), th)
			if got := names(rep.Findings); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
				for _, f := range rep.Findings {
					t.Logf("  %s", f.Message)
				}
			}
			for _, f := range rep.Findings {
				if want, ok := tc.sev[f.Name]; ok && f.Severity != want {
					t.Errorf("%s: severity %s, want %s", f.Name, f.Severity, want)
				}
				if f.Check != CheckSourcesName || f.Message == "" {
					t.Errorf("finding %+v lacks its check or message", f)
				}
			}
		})
	}
}

func TestCheckSourcesSummaries(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	samples := []Sample{
		{Result: result("NVDA", m, priced("a", "100", m), priced("b", "100.05", m), failed("c", feeds.StatusError, "boom"), failed("d", feeds.StatusNotCovered, "delay"))},
		{Result: result("NVDA", m.Add(time.Minute), priced("a", "100", m), priced("b", "100.10", m), priced("c", "100", m), failed("d", feeds.StatusNotCovered, "delay"))},
	}
	rep := CheckSources(samples, Thresholds{}.WithDefaults(25))
	got := map[string]Summary{}
	for _, s := range rep.Summaries {
		got[s.Source] = s
	}
	if s := got["b"]; s.Status != StatusOK || s.MaxDistanceCentiBps != 1000 || s.MedianDistanceCentiBps != 500 {
		// b is 5 then 10 bps above answers of 100 (the lower medians); the lower median of those is 5
		t.Errorf("b: %+v", s)
	}
	if s := got["c"]; s.Status != StatusDown || s.Statuses[StatusDown] != 1 || s.Statuses[StatusOK] != 1 {
		t.Errorf("c: %+v", s)
	}
	if up, ok := got["c"].Up(); !ok || up {
		t.Errorf("c up %v (asked %v), want down", up, ok)
	}
	if up, ok := got["a"].Up(); !ok || !up {
		t.Errorf("a up %v (asked %v)", up, ok)
	}
	if _, ok := got["d"].Up(); ok || got["d"].Status != StatusSkipped {
		t.Errorf("d was never asked: %+v", got["d"])
	}
	if len(rep.Observations) != 8 {
		t.Errorf("%d observations, want 8", len(rep.Observations))
	}
	if !strings.Contains(rep.Findings[0].Message, "boom") {
		t.Errorf("the down finding should quote the error: %q", rep.Findings[0].Message)
	}
}

// TestANotFinalMinuteIsNoFinding: a minute the sources had not said their last word on when the
// audit asked (it had just closed) is no verdict: no no_answer, and the sources are skipped; a
// minute the final sources could not answer still is one.
func TestANotFinalMinuteIsNoFinding(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	notFinal := func(src string) feeds.Quote {
		return feeds.Quote{Source: src, Symbol: "X", Status: feeds.StatusNotFinal, Kind: sources.KindNotFinal, Err: "provisional"}
	}
	rep := CheckSources([]Sample{
		{Result: result("NVDA", m, priced("a", "100", m), notFinal("b"), notFinal("c"))},
		{Result: result("TSLA", m, priced("a", "100", m), failed("b", feeds.StatusNoData, "none"), failed("c", feeds.StatusNoData, "none"))},
	}, Thresholds{}.WithDefaults(25))
	got := names(rep.Findings)
	if !slices.Equal(got[NoAnswer], []string{"TSLA"}) {
		t.Errorf("no_answer for %v, want TSLA only (NVDA was not final yet): %v", got[NoAnswer], got)
	}
}
