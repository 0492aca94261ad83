package feeds

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// freeTier is each provider's free-tier request quota as the benchmark counts violations of it,
// written here apart from the adapters' defaults (which the ledger mode is held to): Alpha
// Vantage 25 a day, Twelve Data 800 a day, Tiingo 50 an hour and 1,000 a day, FMP 250 a day
// (research/quote-sources.md, each adapter's README). The providers' per-minute rates are
// paced by the clients' limiters on the wall clock, which a day on a fake clock does not
// exercise: the benchmark raises them, as every simulator benchmark does.
var freeTier = map[string][]sources.Rate{
	"alphavantage": {{N: 25, Per: 24 * time.Hour}},
	"twelvedata":   {{N: 800, Per: 24 * time.Hour}},
	"tiingo":       {{N: 50, Per: time.Hour}, {N: 1000, Per: 24 * time.Hour}},
	"fmp":          {{N: 250, Per: 24 * time.Hour}},
}

// requestLog records the simulator's requests by provider, at the clock's time.
type requestLog struct {
	next  http.RoundTripper
	clock *fakeClock
	mu    sync.Mutex
	at    map[string][]time.Time
}

func (l *requestLog) RoundTrip(r *http.Request) (*http.Response, error) {
	p, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	l.mu.Lock()
	l.at[p] = append(l.at[p], l.clock.Now())
	l.mu.Unlock()
	return l.next.RoundTrip(r)
}

// violations counts the requests of a provider that passed one of its free-tier limits: each
// request after which a span of Per ending then held more than N.
func (l *requestLog) violations(p string) int {
	l.mu.Lock()
	at := slices.Clone(l.at[p])
	l.mu.Unlock()
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	n := 0
	for i := range at {
		for _, lim := range freeTier[p] {
			first, _ := slices.BinarySearchFunc(at[:i+1], at[i].Add(-lim.Per), func(t, since time.Time) int {
				if t.After(since) {
					return 1
				}
				return -1
			})
			if i+1-first > lim.N {
				n++
				break
			}
		}
	}
	return n
}

func (l *requestLog) count(p string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.at[p])
}

// perTask is a ledger that forgets between tasks: pricerig before the ledger, which asked every
// source again for every task.
type perTask struct{ cur atomic.Pointer[MemoryLedger] }

func (p *perTask) reset() { p.cur.Store(NewMemoryLedger()) }
func (p *perTask) Held(ctx context.Context, s, sym string, from, to time.Time) (Held, error) {
	return p.cur.Load().Held(ctx, s, sym, from, to)
}
func (p *perTask) Keep(ctx context.Context, k Kept) error { return p.cur.Load().Keep(ctx, k) }

// noBudget sends every request: pricerig before quotas.
type noBudget struct{}

func (noBudget) Spend(context.Context, string, sources.Quota, time.Time) error { return nil }
func (noBudget) Trip(context.Context, string, sources.Breaker) (bool, error)   { return false, nil }

// BenchmarkQuotaDay is issue 26's day: 10,000 job-2 tasks (PRICERIG_QUOTA_TASKS overrides)
// ordered evenly over 2026-11-25, a Wednesday, each for a random closed session minute of the
// last five trading days (2026-11-19 … 25; the day's own minutes grow as it goes) and a random
// symbol, priced as the rig prices (WaitFinal to its commit deadline less the margin,
// LastResort) by one process over the shipped spec's nine sources on the simulator. Finnhub's
// and FMP's free keys are refused intraday bars (403, 402), as the real ones are. Two modes in
// the same run, task by task: the ledger, every provider held to its free-tier quota; and
// pricerig before the ledger, one request (a 31-minute window) per source per task, no quota.
// For each: tasks answered (min_sources met), requests per source, its floor (each symbol's
// distinct provider windows, and a refresh of a growing window for each task that asked past
// its last final minute) and the requests past the free tier.
func BenchmarkQuotaDay(b *testing.B) {
	tasks := 10000
	if v, err := strconv.Atoi(os.Getenv("PRICERIG_QUOTA_TASKS")); err == nil && v > 0 {
		tasks = v
	}
	day := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: day}
	srv := sim.New(sim.Options{Seed: 7, Now: clock.Now, Instant: true})
	refused := map[string]bool{"finnhub": true, "fmp": true}
	for p := range refused {
		srv.SetFault(p, sim.FaultUnauthorized)
	}
	hs := httptest.NewServer(srv)
	b.Cleanup(func() { srv.Close(); hs.Close() })
	load := func(quota bool) *Spec {
		spec, err := Load(pricerig.DefaultSpec, LoadOptions{Getenv: func(string) string { return "" }, Sim: &SimTarget{Root: hs.URL, Key: sim.Key, Secret: sim.Secret, Instant: true}})
		if err != nil {
			b.Fatal(err)
		}
		for i := range spec.Sources {
			spec.Sources[i].Rate = sources.Rate{N: 1 << 30, Per: time.Second}
			spec.Sources[i].Retries = -1
			if !quota {
				spec.Sources[i].Quota = sources.NoQuota
			}
		}
		return spec
	}
	wait := func(_ context.Context, until time.Time) error { set(clock, latest(clock.Now(), until)); return nil }
	ledgerLog := &requestLog{next: http.DefaultTransport, clock: clock, at: map[string][]time.Time{}}
	beforeLog := &requestLog{next: http.DefaultTransport, clock: clock, at: map[string][]time.Time{}}
	withLedger, err := New(load(true), Deps{Deps: sources.Deps{Now: clock.Now, Transport: ledgerLog, Budget: sources.NewMemoryBudget()}, Wait: wait})
	if err != nil {
		b.Fatal(err)
	}
	forget := &perTask{}
	forget.reset()
	before, err := New(load(false), Deps{Deps: sources.Deps{Now: clock.Now, Transport: beforeLog, Budget: noBudget{}}, Wait: wait, Ledger: forget})
	if err != nil {
		b.Fatal(err)
	}
	before.unit = func(_ sources.Coverage, t time.Time) market.Span {
		return market.Span{From: t.Add(-before.cfg.Rules.Window), To: t.Add(time.Minute)}
	}

	var minutes []time.Time // the five trading days' session minutes, in order
	for _, d := range []int{19, 20, 23, 24, 25} {
		market.WalkSessions(time.Date(2026, 11, d, 0, 0, 0, 0, market.NewYork), time.Date(2026, 11, d+1, 0, 0, 0, 0, market.NewYork),
			before.cfg.Rules.Sessions, func(s market.SessionSpan) bool {
				for m := s.From; m.Before(s.To); m = m.Add(time.Minute) {
					minutes = append(minutes, m.UTC())
				}
				return true
			})
	}
	symbols := []string{"NVDA", "TSLA", "SPY"}
	floor := newFloor(withLedger)
	for b.Loop() {
		rng := rand.New(rand.NewPCG(26, 1))
		var answered, answeredBefore, same int
		for i := range tasks {
			arrival := day.Add(time.Duration(i) * 24 * time.Hour / time.Duration(tasks))
			closed, _ := slices.BinarySearchFunc(minutes, arrival.Add(-time.Minute), func(m, t time.Time) int {
				if m.After(t) {
					return 1
				}
				return -1
			})
			m, symbol := minutes[rng.IntN(closed)], symbols[rng.IntN(len(symbols))]
			floor.add(symbol, m, arrival)

			set(clock, arrival)
			forget.reset()
			old, _ := before.Price(context.Background(), symbol, m, WaitFinal(arrival.Add(freshBudget)), LastResort())
			set(clock, arrival)
			res, _ := withLedger.Price(context.Background(), symbol, m, WaitFinal(arrival.Add(freshBudget)), LastResort())
			if res.Agreed {
				answered++
			}
			if old.Agreed {
				answeredBefore++
			}
			if res.Agreed && old.Agreed && res.Price == old.Price {
				same++
			}
		}
		withLedger.Drain()
		before.Drain()
		b.ReportMetric(float64(answered)/float64(tasks), "ledger-answered/tasks")
		b.ReportMetric(float64(answeredBefore)/float64(tasks), "before-answered/tasks")
		b.Logf("%d tasks: answered with min_sources met: ledger %d, before %d; both answered the same price: %d", tasks, answered, answeredBefore, same)
		b.Logf("%-13s %9s %7s %7s %10s %9s %10s", "source", "requests", "floor", "ratio", "violations", "before", "violations")
		totalL, totalB, totalV := 0, 0, 0
		for _, s := range withLedger.cfg.Members {
			n, f := ledgerLog.count(s.Name), floor.of(s.Name)
			if refused[s.Name] {
				f = int(24 * time.Hour / sources.RefusalBackoff)
			}
			ratio := "-"
			if f > 0 {
				ratio = fmt.Sprintf("%.2f", float64(n)/float64(f))
			}
			v, vb := ledgerLog.violations(s.Name), beforeLog.violations(s.Name)
			b.Logf("%-13s %9d %7d %7s %10d %9d %10d", s.Name, n, f, ratio, v, beforeLog.count(s.Name), vb)
			b.ReportMetric(float64(v), s.Name+"-violations")
			totalL, totalB, totalV = totalL+n, totalB+beforeLog.count(s.Name), totalV+v
			if v > 0 {
				b.Errorf("%s: %d requests past its free tier with the ledger", s.Name, v)
			}
		}
		b.ReportMetric(float64(totalL), "ledger-requests")
		b.ReportMetric(float64(totalB), "before-requests")
		b.Logf("all sources: %d requests with the ledger, %d before; %d past a free tier with the ledger", totalL, totalB, totalV)
	}
}

// floorCount is the fewest requests a source needs for the tasks, each request answering the
// provider's whole window (Unit) as far as it has closed: a task's minute costs a request unless
// an earlier one of the same symbol holds it final — its window had closed, or the minute lies
// before where that request's answer was final (a day still growing is asked again for each
// task past it: the refreshes). A source its provider refuses is asked only when its breaker
// closes, whatever the tasks: its floor is one request a RefusalBackoff.
type floorCount struct {
	r     *Reconciler
	known map[string][]market.Span // by source and symbol: the final part of each request counted
	n     map[string]int
}

func newFloor(r *Reconciler) *floorCount {
	return &floorCount{r: r, known: map[string][]market.Span{}, n: map[string]int{}}
}

func (f *floorCount) add(symbol string, m, arrival time.Time) {
	feed, _ := f.r.Feed(symbol)
	session, _ := market.SessionAt(m)
	for _, mb := range f.r.cfg.Members {
		if _, in := feed.ProviderSymbol(mb.Name); !in || mb.Source == nil {
			continue
		}
		cov := mb.Source.Coverage()
		if !cov.Covers(session) || m.Add(time.Minute+cov.Delay).After(arrival) {
			continue
		}
		k := mb.Name + " " + symbol
		if slices.ContainsFunc(f.known[k], func(s market.Span) bool { return !m.Before(s.From) && m.Before(s.To) }) {
			continue
		}
		u := Unit(cov, m)
		u.To = minTime(u.To, FinalTo(cov.FinalAfter, arrival.Add(-cov.Delay)))
		f.known[k] = append(f.known[k], u)
		f.n[mb.Name]++
	}
}

func (f *floorCount) of(source string) int { return f.n[source] }
