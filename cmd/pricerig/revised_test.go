package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
)

// revisedJSON is a revised finding of `audit --json`.
type revisedJSON struct {
	Name, Source, Symbol, Severity, Value, Limit string
	BarTime                                      time.Time `json:"bar_time"`
	Seen                                         time.Time `json:"seen"`
	First                                        time.Time `json:"first"`
	OldClose                                     string    `json:"old_close"`
	NewClose                                     string    `json:"new_close"`
	Answer                                       string    `json:"answer"`
	Rederived                                    string    `json:"rederived"`
}

// TestAuditFindsTheBarsAPriceWasRevisedFrom is issue 24's revisions end to end: `pricerig price`
// answers a minute 2 s after it closes against the late world, where some providers serve a
// provisional close until 3 minutes after the minute, past their final_after (alpaca's 35 s, the
// others' 60 s), so price takes it final; the simulator revises those bars; the audit over the
// same ledger rereads its window, sees the new closes, and reports `revised` for each, naming the
// minute, the source, the old and the new close, the answer price gave and the answer the final
// bars give now (what `price` answers from them afresh), a warning within the tolerance.
func TestAuditFindsTheBarsAPriceWasRevisedFrom(t *testing.T) {
	for _, tc := range []struct {
		name string
		late []string
	}{
		{"one source", []string{"alpaca"}},
		{"every source", []string{"alpaca", "twelvedata", "tiingo", "pyth", "finnhub", "fmp", "yahoo"}},
	} {
		t.Run(tc.name, func(t *testing.T) { revisedAfterPrice(t, tc.late) })
	}
}

func revisedAfterPrice(t *testing.T, late []string) {
	noEnv(t)
	m, final, _, provisional := lateMinute(t)
	srv, clock, url := startLateSim(t, m.Add(time.Minute+2*time.Second))
	for _, p := range late {
		pub := srv.Publication(p)
		pub.Revise = 3 * time.Minute
		srv.SetPublication(p, pub)
	}
	conf, db := lateSpec(t), filepath.Join(t.TempDir(), "ledger.db")

	code, out, stderr := runCLI(t, "price", "--json", "--config", conf, "--sim", url, "--db", db, "NVDA", m.Format(time.RFC3339))
	if code != exitOK {
		t.Fatalf("price: exit %d: %s", code, stderr)
	}
	answered := decodePrice(t, out)
	used := map[string]bool{}
	for _, q := range answered.Sources {
		if q.Price == nil {
			continue
		}
		if want := final; slices.Contains(late, q.Name) {
			if *q.Price != provisional.String() {
				t.Fatalf("%s's quote %s, want its provisional close %s taken final", q.Name, *q.Price, provisional)
			}
			used[q.Name] = true
		} else if *q.Price != want.String() {
			t.Fatalf("%s's quote %s, want its final close %s", q.Name, *q.Price, want)
		}
	}

	if err := clock.Until(context.Background(), m.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "audit", "--json", "--config", conf, "--sim", url, "--db", db, "--since", "15m", "--symbols", "NVDA")
	if code != exitFailure {
		t.Fatalf("audit: exit %d, want 1 (findings)\n%s\n%s", code, out, stderr)
	}
	var rep struct {
		Findings []revisedJSON `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// the fresh answer from the final bars, with no ledger: what the revisions make the answer now
	code, out, stderr = runCLI(t, "price", "--json", "--no-cache", "--config", conf, "--sim", url, "NVDA", m.Format(time.RFC3339))
	if code != exitOK {
		t.Fatalf("price now: exit %d: %s", code, stderr)
	}
	now := decodePrice(t, out).Price
	a, _ := numeric.ParsePrice(answered.Price)
	n, _ := numeric.ParsePrice(now)
	dist := numeric.DistanceCentiBps(n, a)
	wantSeverity, wantValue := "warn", feeds.FormatCentiBps(dist)
	if dist > 5000 { // the built-in spec's 50 bps tolerance
		wantSeverity = "alert"
	}
	found := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Name != "revised" || !f.BarTime.Equal(m) {
			continue
		}
		found[f.Source] = true
		if f.Symbol != "NVDA" || !f.First.Equal(m) || f.OldClose != provisional.String() || f.NewClose != final.String() ||
			f.Answer != answered.Price || f.Rederived != now || !f.Seen.After(m.Add(4*time.Minute)) {
			t.Errorf("revised %+v: want NVDA at %s, old %s new %s, answer %s re-derived %s, seen after the revision",
				f, m.Format(time.RFC3339), provisional, final, answered.Price, now)
		}
		if f.Severity != wantSeverity || f.Limit != "50.00" || f.Value != wantValue {
			t.Errorf("%s: severity %s value %q limit %s, want %s %q for %d centi-bps against 50 bps", f.Source, f.Severity, f.Value, f.Limit, wantSeverity, wantValue, dist)
		}
	}
	for _, p := range late {
		if used[p] != found[p] {
			t.Errorf("%s: price used its bar %v, revised finding %v", p, used[p], found[p])
		}
	}
	if len(found) == 0 {
		t.Fatalf("no revised finding for the %s bars: %+v", m.Format(time.RFC3339), rep.Findings)
	}
	t.Logf("answer %s, now %s (%d centi-bps): %v revised", answered.Price, now, dist, found)
}
