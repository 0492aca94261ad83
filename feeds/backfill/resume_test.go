package backfill

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

var allTables = []string{"bars", "coverage", "windows", "answers", "quotes"}

func TestInterruptAndResumeGiveTheSameStore(t *testing.T) {
	eachBackend(t, testInterruptAndResumeGiveTheSameStore)
}

func testInterruptAndResumeGiveTheSameStore(t *testing.T, be storeBackend) {
	now := ny(2025, time.November, 20, 12, 0)
	// across a month end, so Alpha Vantage has two windows a symbol
	from, to := ny(2025, time.October, 29, 0, 0), ny(2025, time.November, 4, 0, 0)
	symbols := []string{"NVDA", "TSLA"}

	e := newEnv(t, now, sim.Options{})
	spec := e.spec(t, three, "1000/s")
	whole := be.open(t, "whole.db")
	ref := e.run(t, context.Background(), whole, Options{Spec: spec, From: from, To: to, Symbols: symbols})
	want := dump(t, whole)
	if ref.Windows < 6 {
		t.Fatalf("only %d windows: the test needs more to interrupt", ref.Windows)
	}

	for _, stopAfter := range []int{1, 3, ref.Windows - 1, ref.Windows} {
		t.Run("", func(t *testing.T) {
			e := newEnv(t, now, sim.Options{})
			spec := e.spec(t, three, "1000/s")
			store := be.open(t, "resumed.db")
			ctx, cancel := context.WithCancel(context.Background())
			committed, committedRequests := 0, 0
			first := e.run(t, ctx, store, Options{Spec: spec, From: from, To: to, Symbols: symbols, OnWindow: func(w WindowDone) {
				committed++
				committedRequests += w.Requests
				if committed == stopAfter {
					cancel()
				}
			}})
			cancel()
			if !first.Interrupted {
				j, _ := json.Marshal(first)
				t.Fatalf("stopped after %d windows: not reported as interrupted (%d committed, summary %s)", stopAfter, committed, j)
			}
			if first.Windows != committed || committed < stopAfter {
				t.Fatalf("summary says %d windows, %d were committed (stop after %d)", first.Windows, committed, stopAfter)
			}
			if first.Minutes != 0 {
				t.Errorf("an interrupted fetch reconciled %d minutes", first.Minutes)
			}
			e.sim.ResetCounts()
			second := e.run(t, context.Background(), store, Options{Spec: spec, From: from, To: to, Symbols: symbols})
			if second.Interrupted || second.Failed != 0 {
				t.Fatalf("re-run: interrupted %v, failed %d", second.Interrupted, second.Failed)
			}
			if first.Windows+second.Windows != ref.Windows {
				t.Errorf("%d windows before the stop and %d after, an uninterrupted run fetched %d", first.Windows, second.Windows, ref.Windows)
			}
			if second.Requests != ref.Requests-committedRequests {
				t.Errorf("re-run: %d requests; the whole run took %d, and %d went into the windows stored before the stop",
					second.Requests, ref.Requests, committedRequests)
			}
			// The simulator may count, late, a request the stop aborted (one per source at most).
			sent := 0
			for _, p := range three {
				sent += e.sim.Requests(p)
			}
			if sent < second.Requests || sent > second.Requests+len(three) {
				t.Errorf("re-run: the simulator saw %d requests, the summary says %d", sent, second.Requests)
			}
			sameTables(t, want, dump(t, store), allTables...)

			// and once more: everything is there, nothing is fetched, nothing changes
			e.sim.ResetCounts()
			third := e.run(t, context.Background(), store, Options{Spec: spec, From: from, To: to, Symbols: symbols})
			if third.Requests != 0 || third.Windows != 0 || third.Minutes != 0 || third.Kept != ref.Minutes {
				t.Errorf("a run over a complete store made %d requests for %d windows, reconciled %d minutes and kept %d of %d",
					third.Requests, third.Windows, third.Minutes, third.Kept, ref.Minutes)
			}
			sameTables(t, want, dump(t, store), allTables...)
		})
	}
}

func TestRateLimitAnswersAreHonoured(t *testing.T) {
	now := ny(2025, time.November, 20, 12, 0)
	from, to := ny(2025, time.October, 30, 0, 0), ny(2025, time.November, 4, 0, 0)
	symbols := []string{"NVDA", "TSLA"}

	ref := newEnv(t, now, sim.Options{})
	refStore := openStore(t, "ref.db")
	ref.run(t, context.Background(), refStore, Options{Spec: ref.spec(t, three, "1000/s"), From: from, To: to, Symbols: symbols})

	// The providers allow 2 requests a minute; the spec claims far more, so only their 429s
	// (with Retry-After) hold the backfill back.
	const perMinute = 2
	e := newEnv(t, now.Truncate(time.Minute), sim.Options{RateLimit: perMinute})
	rec := &recorder{next: http.DefaultTransport, clock: e.clock}
	store := openStore(t, "limited.db")
	sum := e.run(t, context.Background(), store, Options{Spec: e.spec(t, three, "1000/s"), From: from, To: to, Symbols: symbols, Deps: sources.Deps{Transport: rec}})

	if sum.Failed != 0 || sum.RateLimited == 0 {
		t.Fatalf("failed %d, rate limited %d: the test needs 429s and no failure", sum.Failed, sum.RateLimited)
	}
	type key struct {
		provider string
		minute   time.Time
	}
	served, refused := map[key]int{}, map[key]int{}
	for _, r := range rec.records() {
		k := key{strings.Split(strings.TrimPrefix(r.path, "/"), "/")[0], r.at.Truncate(time.Minute)}
		switch r.status {
		case http.StatusOK:
			if refused[k] > 0 {
				t.Errorf("%s: a request at %s after a 429 in the same minute", k.provider, r.at.Format(time.TimeOnly))
			}
			served[k]++
		case http.StatusTooManyRequests:
			refused[k]++
			if refused[k] > 1 {
				t.Errorf("%s: %d 429s in the minute %s: the first one's Retry-After was not honoured", k.provider, refused[k], k.minute.Format(time.TimeOnly))
			}
		default:
			t.Errorf("%s: status %d", k.provider, r.status)
		}
	}
	for k, n := range served {
		if n > perMinute {
			t.Errorf("%s: %d requests served in the minute %s, the limit is %d", k.provider, n, k.minute.Format(time.TimeOnly), perMinute)
		}
	}
	totalRefused := 0
	for _, n := range refused {
		totalRefused += n
	}
	if totalRefused != sum.RateLimited {
		t.Errorf("the simulator refused %d requests, the summary counts %d", totalRefused, sum.RateLimited)
	}
	sameTables(t, dump(t, refStore), dump(t, store), "bars", "coverage", "answers", "quotes")
}

func TestRequestsArePacedAtTheSourceRate(t *testing.T) {
	now := ny(2025, time.November, 20, 12, 0)
	from, to := ny(2025, time.October, 30, 0, 0), ny(2025, time.November, 4, 0, 0)
	// 2 a minute, which the simulator enforces too: not one 429 may come back
	e := newEnv(t, now, sim.Options{RateLimit: 2})
	rec := &recorder{next: http.DefaultTransport, clock: e.clock}
	store := openStore(t, "paced.db")
	b, err := New(store, Options{Spec: e.spec(t, three, "2/min"), From: from, To: to, Symbols: []string{"NVDA", "SPY"}, Clock: e.clock, Deps: sources.Deps{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range b.Progress().Sources {
		if want := time.Duration(p.Windows) * 30 * time.Second; p.ETA != want {
			t.Errorf("%s: ETA %s before the start, want %d windows × 30s = %s", p.Source, p.ETA, p.Windows, want)
		}
	}
	sum, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.RateLimited != 0 || sum.Failed != 0 {
		t.Errorf("%d 429s and %d failures at a paced rate", sum.RateLimited, sum.Failed)
	}
	last := map[string]time.Time{}
	for _, r := range rec.records() {
		p := strings.Split(strings.TrimPrefix(r.path, "/"), "/")[0]
		if prev, ok := last[p]; ok && r.at.Sub(prev) < 30*time.Second {
			t.Errorf("%s: requests %s apart, the rate allows one per 30s", p, r.at.Sub(prev))
		}
		last[p] = r.at
	}
}

func TestAProviderWithGaps(t *testing.T) {
	now := ny(2025, time.November, 20, 12, 0)
	from, to := ny(2025, time.October, 29, 0, 0), ny(2025, time.November, 4, 0, 0)
	symbols := []string{"NVDA", "TSLA"}
	clean := newEnv(t, now, sim.Options{})
	cleanStore := openStore(t, "clean.db")
	clean.run(t, context.Background(), cleanStore, Options{Spec: clean.spec(t, three, "1000/s"), From: from, To: to, Symbols: symbols})

	e := newEnv(t, now, sim.Options{})
	spec := e.spec(t, three, "1000/s")
	// Alpha Vantage's November of TSLA comes back cut off: a broken body, not worth a retry
	rec := &recorder{next: http.DefaultTransport, clock: e.clock}
	rec.fail = func(r *http.Request) *http.Response {
		q := r.URL.Query()
		if !strings.HasPrefix(r.URL.Path, "/alphavantage/") || q.Get("symbol") != "TSLA" || q.Get("month") != "2025-11" {
			return nil
		}
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"Meta Data": {"2. Symbol": "TSLA"}, "Time Series (1min)": {"2025-11-03 09:30:00": {"4. close": "4`)), Request: r}
	}
	store := openStore(t, "gaps.db")
	sum := e.run(t, context.Background(), store, Options{Spec: spec, From: from, To: to, Symbols: symbols, Deps: sources.Deps{Transport: rec}})
	if sum.Failed != 1 {
		t.Fatalf("%d failed windows, want 1", sum.Failed)
	}
	av := sourceSummary(t, sum, "alphavantage")
	var gap Gap
	for _, g := range av.Gaps {
		if strings.HasPrefix(g.Reason, "failed: ") {
			gap = g
		}
	}
	if gap.Symbol != "TSLA" || gap.From != ny(2025, time.November, 3, 4, 0) || gap.Kind != sources.KindBadResponse {
		t.Fatalf("alphavantage's gaps %+v: want TSLA's November", av.Gaps)
	}
	// inside the gap the two other sources still agree, but the answer says it lacks a source
	inGap, outside := 0, 0
	err := store.Answers(context.Background(), history.Query{Symbols: []string{"TSLA"}}, func(a history.Answer) error {
		q := a.Quotes[2]
		if q.Source != "alphavantage" {
			t.Fatalf("quote 2 is %s", q.Source)
		}
		if !a.Minute.Before(gap.From) && a.Minute.Before(gap.To) {
			inGap++
			if a.Complete || !a.Agreed || q.Status != feeds.StatusError || !strings.Contains(a.Reason, "alphavantage: fetch failed") {
				t.Fatalf("%s in the gap: complete %v agreed %v alphavantage %s (%s)", a.Minute, a.Complete, a.Agreed, q.Status, a.Reason)
			}
		} else {
			outside++
			if !a.Complete || !q.Status.Priced() {
				t.Fatalf("%s outside the gap: complete %v alphavantage %s", a.Minute, a.Complete, q.Status)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if inGap == 0 || outside == 0 || sum.Incomplete != inGap {
		t.Fatalf("%d minutes in the gap, %d outside, %d incomplete", inGap, outside, sum.Incomplete)
	}
	// what price --db and the rig may take from the store: a complete answer under the same rules
	ctx := context.Background()
	outMinute, gapMinute := ny(2025, time.October, 31, 10, 0), ny(2025, time.November, 3, 10, 0)
	if res, ok, why, err := store.Price(ctx, spec, "TSLA", outMinute); err != nil || !ok || !res.Agreed || len(res.Quotes) != 3 {
		t.Errorf("outside the gap: ok %v (%s), %v", ok, why, err)
	}
	if _, ok, why, _ := store.Price(ctx, spec, "TSLA", gapMinute); ok || !strings.Contains(why, "incomplete") {
		t.Errorf("in the gap: ok %v, %q", ok, why)
	}
	other := *spec
	other.Rules.OutlierBps = 10
	if _, ok, why, _ := store.Price(ctx, &other, "TSLA", outMinute); ok || !strings.Contains(why, "other rules") {
		t.Errorf("under other rules: ok %v, %q", ok, why)
	}
	if _, ok, why, _ := store.Price(ctx, spec, "TSLA", ny(2025, time.November, 1, 10, 0)); ok || why != "" {
		t.Errorf("a Saturday: ok %v, %q", ok, why)
	}

	// the provider recovers: a re-run asks for that window alone and the store is whole
	rec.fail = nil
	e.sim.ResetCounts()
	again := e.run(t, context.Background(), store, Options{Spec: spec, From: from, To: to, Symbols: symbols, Deps: sources.Deps{Transport: rec}})
	if again.Windows != 1 || e.sim.Requests("alphavantage") != 1 || e.sim.Requests("alpaca")+e.sim.Requests("massive") != 0 {
		t.Errorf("the re-run fetched %d windows (alphavantage %d requests, others %d)", again.Windows, e.sim.Requests("alphavantage"), e.sim.Requests("alpaca")+e.sim.Requests("massive"))
	}
	if again.Incomplete != 0 {
		t.Errorf("%d minutes still incomplete", again.Incomplete)
	}
	sameTables(t, dump(t, cleanStore), dump(t, store), allTables...)
}

func TestLookbackIsAGapNotAFailure(t *testing.T) {
	now := ny(2025, time.November, 20, 12, 0)
	from, to := ny(2025, time.October, 20, 0, 0), ny(2025, time.October, 24, 0, 0)
	e := newEnv(t, now, sim.Options{})
	providers := []string{"yahoo", "alpaca", "massive"}
	store := openStore(t, "lookback.db")
	sum := e.run(t, context.Background(), store, Options{Spec: e.spec(t, providers, "1000/s"), From: from, To: to, Symbols: []string{"NVDA"}})
	if sum.Failed != 0 {
		t.Fatalf("%d failed windows", sum.Failed)
	}
	ys := sourceSummary(t, sum, "yahoo")
	edge := ceilMinute(now.Add(-29*24*time.Hour + lookbackMargin))
	live := ceilMinute(now.Add(-29 * 24 * time.Hour))
	if len(ys.Gaps) != 1 {
		t.Fatalf("yahoo gaps %+v: want one", ys.Gaps)
	}
	for _, g := range ys.Gaps {
		if g.From != ny(2025, time.October, 20, 4, 0) || g.To.After(edge) || !strings.Contains(g.Reason, "before its 1-minute history") {
			t.Errorf("yahoo gap %+v, history from %s", g, edge)
		}
	}
	check := func(live, edge time.Time) {
		t.Helper()
		err := store.Answers(context.Background(), history.Query{Symbols: []string{"NVDA"}}, func(a history.Answer) error {
			q := a.Quotes[0]
			switch {
			case a.Minute.Before(live):
				if q.Status != feeds.StatusNotCovered || !a.Complete {
					t.Fatalf("%s before yahoo's history: %s, complete %v", a.Minute, q.Status, a.Complete)
				}
			case a.Minute.Before(edge):
				if a.Complete {
					t.Fatalf("%s at the edge of yahoo's history, not fetched, but complete", a.Minute)
				}
			default:
				if !q.Status.Priced() || !a.Complete {
					t.Fatalf("%s inside yahoo's history: %s (%s), complete %v", a.Minute, q.Status, q.Err, a.Complete)
				}
			}
			if !a.Agreed {
				t.Fatalf("%s: no agreement: %s", a.Minute, a.Reason)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check(live, edge)

	// Ten days on, Yahoo's history starts later, but what the store holds of it still counts;
	// the minutes at the old edge, never fetched, are now plainly out of its reach.
	e.clock.Sleep(context.Background(), 10*24*time.Hour)
	again := e.run(t, context.Background(), store, Options{Spec: e.spec(t, providers, "1000/s"), From: from, To: to, Symbols: []string{"NVDA"}})
	if again.Requests != 0 || again.Incomplete != 0 {
		t.Errorf("ten days on: %d requests, %d incomplete minutes", again.Requests, again.Incomplete)
	}
	check(edge, edge)
}

func TestSourcesChoosesWhomToAskNotWhomToBelieve(t *testing.T) {
	now := ny(2025, time.November, 20, 12, 0)
	from, to := ny(2025, time.October, 30, 0, 0), ny(2025, time.November, 4, 0, 0)
	symbols := []string{"TSLA"}
	ref := newEnv(t, now, sim.Options{})
	refStore := openStore(t, "ref.db")
	ref.run(t, context.Background(), refStore, Options{Spec: ref.spec(t, three, "1000/s"), From: from, To: to, Symbols: symbols})

	e := newEnv(t, now, sim.Options{})
	spec := e.spec(t, three, "1000/s")
	store := openStore(t, "split.db")
	first := e.run(t, context.Background(), store, Options{Spec: spec, From: from, To: to, Symbols: symbols, Sources: []string{"massive", "alphavantage"}})
	if first.Incomplete != first.Minutes || e.sim.Requests("alpaca") != 0 {
		t.Fatalf("without alpaca: %d of %d minutes incomplete, alpaca asked %d times", first.Incomplete, first.Minutes, e.sim.Requests("alpaca"))
	}
	second := e.run(t, context.Background(), store, Options{Spec: spec, From: from, To: to, Symbols: symbols, Sources: []string{"alpaca"}})
	if second.Incomplete != 0 || e.sim.Requests("massive")+e.sim.Requests("alphavantage") != first.Requests {
		t.Fatalf("alpaca alone after the others: %d incomplete, %d requests to the others", second.Incomplete, e.sim.Requests("massive")+e.sim.Requests("alphavantage"))
	}
	// the answers are those of asking all three at once
	sameTables(t, dump(t, refStore), dump(t, store), "bars", "coverage", "answers", "quotes")
}

func TestASourceThatIsDownIsGivenUp(t *testing.T) {
	now := ny(2025, time.November, 20, 12, 0)
	from, to := ny(2025, time.September, 22, 0, 0), ny(2025, time.October, 28, 0, 0)
	e := newEnv(t, now, sim.Options{})
	rec := &recorder{next: http.DefaultTransport, clock: e.clock}
	rec.fail = func(r *http.Request) *http.Response {
		// a 503 asking for more patience than the HTTP client waits: it fails at once
		return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"120"}},
			Body: io.NopCloser(strings.NewReader("503 Service Unavailable")), Request: r}
	}
	store := openStore(t, "down.db")
	sum := e.run(t, context.Background(), store, Options{Spec: e.spec(t, three, "1000/s"), From: from, To: to,
		Symbols: []string{"NVDA", "TSLA"}, Sources: []string{"alphavantage"}, Deps: sources.Deps{Transport: rec}})
	ms := sourceSummary(t, sum, "alphavantage")
	if ms.Failed != 4 || ms.Windows != 0 {
		t.Fatalf("alphavantage: %d windows failed, %d stored; want its 4 failed (two months, two symbols)", ms.Failed, ms.Windows)
	}
	// three windows tried (each once more after the client gave up), the fourth not at all
	if want := maxDownWindows * (1 + maxUnavailRetries); len(rec.records()) != want {
		t.Errorf("%d requests to a source that is down, want %d", len(rec.records()), want)
	}
	// one gap per symbol: the windows that failed alike read as one
	if len(ms.Gaps) != 2 || !strings.Contains(ms.Gaps[1].Reason, "not asked again") || strings.Contains(ms.Gaps[0].Reason, "http://") ||
		ms.Gaps[0].Kind != sources.KindUnavailable || ms.Gaps[1].Kind != sources.KindUnavailable {
		t.Errorf("gaps %+v", ms.Gaps)
	}
}
