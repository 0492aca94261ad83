package history_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/backfill"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/clock"
	"github.com/pricerig/pricerig/internal/pgtest"
	"github.com/pricerig/pricerig/market"
	_ "github.com/pricerig/pricerig/sources/all"
	"github.com/pricerig/pricerig/sources/sim"
)

// Issue 26's coverage race, as it happened: two backfills of one range on one store, the second
// planning while the first commits the first page of a paged window. TestTwoBackfillProcesses-
// OnOneStore once found the shared store's coverage row of alpaca NVDA at 4044 bars where a lone
// run records 12636. Here the second backfill's plan reads the store across the first's page (a
// hook holds it between its read of the cursors and its read of the coverage until the page is
// committed), then both run to the end: the store must hold the coverage and the windows a lone
// run records. A plan that reads the cursors and the coverage apart sees the page's coverage
// without its cursor, plans the rest of the window as windows of another batch, and writes their
// coverage rows beside the page's.
func TestTwoBackfillsPlanningAcrossOnePage(t *testing.T) {
	for _, be := range []string{"sqlite", "postgres"} {
		t.Run(be, func(t *testing.T) {
			target := func(name string) string {
				if be == "postgres" {
					return pgtest.Shared(t).NewDatabase(t)
				}
				return filepath.Join(t.TempDir(), name)
			}
			testTwoBackfillsPlanningAcrossOnePage(t, target)
		})
	}
}

func testTwoBackfillsPlanningAcrossOnePage(t *testing.T, target func(name string) string) {
	ctx := context.Background()
	clk := clock.NewFake(nyTime(2026, time.October, 20, 12, 0))
	srv := sim.New(sim.Options{Now: clk.Now})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	spec, err := feeds.Load([]byte(alpacaSpec), feeds.LoadOptions{Sim: &feeds.SimTarget{Root: hs.URL, Key: sim.Key, Secret: sim.Secret}})
	if err != nil {
		t.Fatal(err)
	}
	opts := backfill.Options{Spec: spec, From: nyTime(2026, time.October, 5, 0, 0), To: nyTime(2026, time.October, 17, 0, 0), Clock: clk}

	shared := openStore(t, target("shared.db"))
	// The first backfill stops before its second request until the second backfill has planned.
	pageOne, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	first := opts
	first.Deps.Transport = &gate{next: http.DefaultTransport, hold: 2, release: release}
	first.OnWindow = func(w backfill.WindowDone) {
		if w.Page && w.More {
			once.Do(func() { close(pageOne) })
		}
	}
	a, err := backfill.New(shared, first)
	if err != nil {
		t.Fatal(err)
	}
	var aErr error
	aDone := make(chan struct{})
	go func() { defer close(aDone); _, aErr = a.Run(ctx) }()
	var held sync.Once
	restore := history.SetBeforeCoverageRead(func() { held.Do(func() { <-pageOne }) })
	b, err := backfill.New(shared, opts)
	restore()
	close(release)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Run(ctx); err != nil {
		t.Fatal(err)
	}
	<-aDone
	if aErr != nil {
		t.Fatal(aErr)
	}

	lone := openStore(t, target("lone.db"))
	alone, err := backfill.New(lone, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alone.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want, got := fetchRows(t, lone), fetchRows(t, shared)
	if len(want) < 3 {
		t.Fatalf("the lone run recorded %d coverage and window rows: the window was not paged", len(want))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the shared store's coverage and windows differ from a lone run's:\n got %q\nwant %q", got, want)
	}
}

// alpacaSpec is one paged provider, at a rate that does not hold the test back.
const alpacaSpec = `version: 1
reconcile: {min_sources: 1, outlier_bps: 25, max_carry: 96h, sessions: [pre, regular, post]}
sources:
  alpaca: {type: alpaca, base_url: http://127.0.0.1:1/x, key_env: K, secret_env: S, feed: iex, rate: 1000/s, timeout: 10m}
feeds:
  NVDA: {alpaca: NVDA}
  TSLA: {alpaca: TSLA}
  SPY: {alpaca: SPY}
`

func openStore(t *testing.T, target string) *history.Store {
	t.Helper()
	s, err := history.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fetchRows is a store's coverage and windows rows, as text, in key order.
func fetchRows(t *testing.T, s *history.Store) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT 'coverage', source, symbol, win_from, win_to, bars, 0, 0 FROM coverage ORDER BY source, symbol, win_from`,
		`SELECT 'windows', source, symbols, win_from, win_to, bars, requests, lead_in FROM windows ORDER BY source, symbols, win_from`,
	} {
		rows, err := s.DB().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var table, source, symbols string
			var from, to, bars, requests, leadIn int64
			if err := rows.Scan(&table, &source, &symbols, &from, &to, &bars, &requests, &leadIn); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %s %s %d-%d bars %d requests %d lead-in %d", table, source, symbols, from, to, bars, requests, leadIn))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return out
}

// gate holds the hold-th request it sees until release is closed.
type gate struct {
	next    http.RoundTripper
	hold    int
	release chan struct{}
	mu      sync.Mutex
	n       int
}

func (g *gate) RoundTrip(r *http.Request) (*http.Response, error) {
	g.mu.Lock()
	g.n++
	n := g.n
	g.mu.Unlock()
	if n == g.hold {
		<-g.release
	}
	return g.next.RoundTrip(r)
}

func nyTime(y int, m time.Month, d, hh, mm int) time.Time {
	return time.Date(y, m, d, hh, mm, 0, 0, market.NewYork).UTC()
}
