package backfill

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// The shipped sources.yaml, as a new user runs it against `pricerig sim`: every source at its
// shipped rate and quota (massive and alphavantage 5/min, twelvedata 8/min, tiingo 50/h, fmp
// 250/day, …), a week of the three symbols. Every window is fetched (the 5/min rate's waits were
// inside the 10 s request timeout: issue 32 failed 12 windows of this week), every source at its
// provider's floor, and every request counted once against its quota (its rate's allowance
// included), no request that was not sent. Each source, fetched alone so that the fake clock
// (which moves on by every wait, of whichever source) is its own, takes at least the floor its
// per-minute rate sets — (requests − 1) × interval — and at most 1.25 times it: no wait beyond
// its rate, none for an hourly or daily allowance. (The wall time of all at once, against the
// slowest source's floor, is scripts/bench-backfill's shipped-limits row.)
func TestBackfillAtTheShippedLimits(t *testing.T) {
	text, err := os.ReadFile("../../sources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, time.December, 7, 12, 0, 0, 0, time.UTC)
	// the week of the issue, Monday to Friday: alphavantage asks for November and December
	from, to := ny(2026, time.November, 30, 0, 0), ny(2026, time.December, 5, 0, 0)
	shipped := func(e *env) *feeds.Spec {
		spec, err := feeds.Load(text, feeds.LoadOptions{Sim: &feeds.SimTarget{Root: e.srv.URL, Key: sim.Key, Secret: sim.Secret}})
		if err != nil {
			t.Fatalf("the shipped sources.yaml: %v", err)
		}
		return spec
	}
	e := newEnv(t, now, sim.Options{})
	spec := shipped(e)
	store := openStore(t, "shipped.db")
	sum := e.run(t, context.Background(), store, Options{Spec: spec, From: from, To: to, Deps: sources.Deps{Budget: store}})
	if sum.Failed != 0 || sum.Interrupted || sum.Requests != sum.MinRequests {
		t.Fatalf("%d windows failed (interrupted %v), %d requests of a floor of %d", sum.Failed, sum.Interrupted, sum.Requests, sum.MinRequests)
	}
	var slowest time.Duration
	for _, ss := range spec.Sources {
		src := sourceSummary(t, sum, ss.Name)
		if src.Requests < 1 || src.Requests != src.MinRequests || src.Failed != 0 || src.RateLimited != 0 {
			t.Errorf("%s: %d requests (floor %d), %d failed, %d 429s", ss.Name, src.Requests, src.MinRequests, src.Failed, src.RateLimited)
		}
		if q := ss.Quota.With(ss.Rate.Allowance()); len(q) > 0 {
			account := sources.AccountOf(ss.Name, ss.Settings.BaseURL, ss.Settings.Key, ss.Settings.Secret)
			st, err := store.Standing(context.Background(), account, q, e.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Limits[len(st.Limits)-1].Used; got != src.Requests {
				t.Errorf("%s: the quota counts %d requests, %d were sent", ss.Name, got, src.Requests)
			}
		}
		t.Run(ss.Name, func(t *testing.T) {
			e := newEnv(t, now, sim.Options{})
			start := e.clock.Now()
			one := e.run(t, context.Background(), openStore(t, "one.db"), Options{Spec: shipped(e), From: from, To: to, Sources: []string{ss.Name}})
			took := e.clock.Now().Sub(start)
			floor := time.Duration(one.Requests-1) * ss.Rate.Pace().Interval()
			slowest = max(slowest, floor)
			if one.Failed != 0 || one.Requests != src.Requests {
				t.Fatalf("alone: %d failed, %d requests (%d with the others)", one.Failed, one.Requests, src.Requests)
			}
			if took < floor || took > floor*5/4 {
				t.Errorf("%d requests at %s took %s on the backfill's clock, the rate's floor is %s (want within 1.25×)", one.Requests, ss.Rate, took, floor)
			}
			t.Logf("%d requests at %s: %s on the backfill's clock, floor %s", one.Requests, ss.Rate, took, floor)
		})
	}
	if slowest < time.Minute {
		t.Errorf("the slowest paced source's floor is %s: the case needs several paced requests", slowest)
	}
}
