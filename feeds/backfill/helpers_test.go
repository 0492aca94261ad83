package backfill

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/clock"
	"github.com/pricerig/pricerig/market"
	_ "github.com/pricerig/pricerig/sources/all"
	"github.com/pricerig/pricerig/sources/sim"
)

// fakeClock is the one clock of a test: the simulator, the sources and the backfill read it, and
// every wait advances it instead of sleeping.
type fakeClock = clock.Fake

func newClock(t time.Time) *fakeClock { return clock.NewFake(t) }

// env is a simulator on loopback and a clock.
type env struct {
	sim   *sim.Server
	srv   *httptest.Server
	clock *fakeClock
}

func newEnv(t *testing.T, now time.Time, o sim.Options) *env {
	t.Helper()
	clock := newClock(now)
	o.Now = clock.Now
	s := sim.New(o)
	srv := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		srv.Close()
	})
	return &env{sim: s, srv: srv, clock: clock}
}

// specYAML writes a sources.yaml with the given sources (by sim provider type, each named after
// its type) feeding NVDA, TSLA and SPY, at a rate that does not hold the tests back.
func specYAML(providers []string, rate string) string {
	var b strings.Builder
	b.WriteString("version: 1\nreconcile: {min_sources: 2, outlier_bps: 25, max_carry: 96h, sessions: [pre, regular, post]}\nsources:\n")
	for _, p := range providers {
		// The longest timeout a spec takes: no test here is about a request's wall-clock
		// timeout, and on a loaded machine a window's request outlasted the 10 s default, so
		// its retry made 13 requests of a planned 12.
		fmt.Fprintf(&b, "  %s: {type: %s, base_url: http://127.0.0.1:1/x, rate: %s, timeout: 10m", p, p, rate)
		switch p {
		case "alpaca":
			b.WriteString(", key_env: K, secret_env: S, feed: iex")
		case "yahoo":
		default:
			b.WriteString(", key_env: K")
		}
		if p == "massive" || p == "alphavantage" {
			b.WriteString(", delay: 0s")
		}
		b.WriteString("}\n")
	}
	b.WriteString("feeds:\n")
	for _, sym := range []string{"NVDA", "TSLA", "SPY"} {
		var parts []string
		for _, p := range providers {
			parts = append(parts, p+": "+sim.ProviderSymbol(p, sym))
		}
		fmt.Fprintf(&b, "  %s: {%s}\n", sym, strings.Join(parts, ", "))
	}
	b.WriteString("splits:\n  NVDA: [{date: 2024-06-10, ratio: 10}, {date: 2021-07-20, ratio: 4}]\n  TSLA: [{date: 2022-08-25, ratio: 3}, {date: 2020-08-31, ratio: 5}]\n")
	return b.String()
}

func (e *env) spec(t *testing.T, providers []string, rate string) *feeds.Spec {
	t.Helper()
	spec, err := feeds.Load([]byte(specYAML(providers, rate)), feeds.LoadOptions{
		Sim: &feeds.SimTarget{Root: e.srv.URL, Key: sim.Key, Secret: sim.Secret},
	})
	if err != nil {
		t.Fatalf("spec: %v", err)
	}
	return spec
}

func openStore(t *testing.T, name string) *history.Store {
	t.Helper()
	s, err := history.Open(filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// run plans and runs a backfill, failing the test on an error.
func (e *env) run(t *testing.T, ctx context.Context, store *history.Store, o Options) *Summary {
	t.Helper()
	o.Clock = e.clock
	b, err := New(store, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	sum, err := b.Run(ctx)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum
}

func ny(y int, m time.Month, d, hh, mm int) time.Time {
	return time.Date(y, m, d, hh, mm, 0, 0, market.NewYork).UTC()
}

// dump reads every row of the tables a backfill must leave identical, as text: bars, answers
// and quotes as the rows of the former row tables (from the day blocks), coverage and windows
// as stored.
func dump(t *testing.T, s *history.Store) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, q := range map[string]string{
		"coverage": `SELECT source, symbol, win_from, win_to, bars FROM coverage ORDER BY 1, 2, 3`,
		"windows":  `SELECT source, symbols, win_from, win_to, lead_in, requests, bars FROM windows ORDER BY 1, 2, 3`,
	} {
		rows, err := s.DB().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.RawBytes, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			parts := make([]string, len(vals))
			for i, v := range vals {
				parts[i] = string(v)
			}
			out[table] = append(out[table], strings.Join(parts, "|"))
		}
		rows.Close()
	}
	for table, rows := range rowDump(t, s, false) {
		out[table] = rows
	}
	return out
}

// rowDump is the content of bar_days and answer_days as the rows of the tables they replaced
// (bars, answers with their ruleset's text, quotes with their place in the spec), each value
// as text; typed puts each value's SQLite type beside it as typedDump's SQL does.
func rowDump(t *testing.T, s *history.Store, typed bool) map[string][]string {
	t.Helper()
	ctx := context.Background()
	val := func(v any) string {
		switch x := v.(type) {
		case string:
			if typed {
				return x + ":text"
			}
			return x
		default:
			if typed {
				return fmt.Sprint(x) + ":integer"
			}
			return fmt.Sprint(x)
		}
	}
	line := func(vals ...any) string {
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = val(v)
		}
		return strings.ReplaceAll(strings.Join(parts, "|"), "'", "")
	}
	out := map[string][]string{}
	err := s.Bars(ctx, "", "", unix(-1<<40), unix(1<<40), func(b history.StoredBar) error {
		out["bars"] = append(out["bars"], line(b.Symbol, b.Start.Unix(), b.Source, int64(b.Close), b.Volume))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{} // each ruleset's id by its text
	if typed {
		rows, err := s.DB().Query(`SELECT id, rules FROM rulesets`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var rules string
			if err := rows.Scan(&id, &rules); err != nil {
				t.Fatal(err)
			}
			ids[rules] = id
		}
		rows.Close()
	}
	err = s.Answers(ctx, history.Query{}, func(a history.Answer) error {
		rs, minute := a.Rules, a.Minute.Unix()
		if typed {
			rs = fmt.Sprint(ids[a.Rules])
		}
		out["answers"] = append(out["answers"], line(a.Symbol, minute, string(a.Session), int64(boolInt(a.Agreed)), int64(a.Price),
			int64(a.Median), int64(a.Survivors), int64(boolInt(a.Complete)), a.Reason, rawText(rs, typed)))
		for _, q := range a.Quotes {
			var bar int64
			if !q.BarTime.IsZero() {
				bar = q.BarTime.Unix()
			}
			out["quotes"] = append(out["quotes"], line(a.Symbol, minute, int64(q.Ord), q.Source, string(q.Status), int64(q.Price), bar, q.DistanceCentiBps, q.Err))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// editAnswer changes one stored answer, as a hand edit of the store would: the answer read,
// edited and written back in its day block, the day's other answers as they were.
func editAnswer(t *testing.T, s *history.Store, symbol string, minute time.Time, edit func(*history.Answer)) {
	t.Helper()
	ctx := context.Background()
	a, found, err := s.Lookup(ctx, symbol, minute)
	if err != nil || !found {
		t.Fatalf("editAnswer %s %s: found %v, %v", symbol, minute, found, err)
	}
	edit(&a)
	rid, err := s.RulesetID(ctx, a.Rules)
	if err != nil {
		t.Fatal(err)
	}
	row := history.AnswerRow{Symbol: a.Symbol, Minute: a.Minute, Session: a.Session, Complete: a.Complete, Reason: a.Reason,
		Result: feeds.Result{Agreed: a.Agreed, Price: a.Price, Median: a.Median, Survivors: a.Survivors}}
	for _, q := range a.Quotes {
		row.Result.Quotes = append(row.Result.Quotes, feeds.Quote{Source: q.Source, Status: q.Status, Price: q.Price, BarTime: q.BarTime,
			DistanceCentiBps: q.DistanceCentiBps, Err: q.Err, Kind: q.Kind})
		row.Ords = append(row.Ords, q.Ord)
	}
	if err := s.PutAnswers(ctx, rid, []history.AnswerRow{row}); err != nil {
		t.Fatal(err)
	}
}

func unix(s int64) time.Time { return time.Unix(s, 0).UTC() }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rawText is a ruleset column: its id (an integer) when typed, its text otherwise.
func rawText(rs string, typed bool) any {
	if typed {
		var id int64
		fmt.Sscan(rs, &id)
		return id
	}
	return rs
}

// sameTables fails the test where two dumps differ, naming the first differing row.
func sameTables(t *testing.T, want, got map[string][]string, tables ...string) {
	t.Helper()
	for _, table := range tables {
		w, g := want[table], got[table]
		if slices.Equal(w, g) {
			continue
		}
		for i := 0; i < max(len(w), len(g)); i++ {
			var wr, gr string
			if i < len(w) {
				wr = w[i]
			}
			if i < len(g) {
				gr = g[i]
			}
			if wr != gr {
				t.Errorf("table %s differs at row %d (of %d vs %d):\n want %q\n  got %q", table, i, len(w), len(g), wr, gr)
				break
			}
		}
	}
}

// recorder is a transport that notes each request's path, the clock's minute and the status,
// and can turn chosen requests into failures.
type recorder struct {
	next  http.RoundTripper
	clock *fakeClock
	mu    sync.Mutex
	log   []record
	// fail, if set, answers a request itself (non-nil response) instead of the simulator.
	fail func(*http.Request) *http.Response
}

type record struct {
	at     time.Time
	path   string
	query  string
	status int
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	at := r.clock.Now()
	var resp *http.Response
	var err error
	if r.fail != nil {
		resp = r.fail(req)
	}
	if resp == nil {
		resp, err = r.next.RoundTrip(req)
	}
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	r.mu.Lock()
	r.log = append(r.log, record{at: at, path: req.URL.Path, query: req.URL.RawQuery, status: status})
	r.mu.Unlock()
	return resp, err
}

func (r *recorder) records() []record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}
