package backfill

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// The reconcile writes its answers as day blocks, from a pipeline (one goroutine sweeps, another
// writes). This test holds it to the straightforward way it was written before: the same sweep,
// one symbol after another, each batch written as rows of a version-2 store through
// database/sql with plain multi-row INSERTs (referencePutAnswers, the former putAnswers). The
// blocks must unpack to the very same rows, value for value and type for type, on a tape that gives every status: drift makes
// outliers, a failed window makes errors and incomplete answers, weekends and a holiday carry.
func TestPipelinedReconcileWritesWhatTheSequentialOneWrote(t *testing.T) {
	ctx := context.Background()
	now := ny(2025, time.December, 10, 12, 0)
	from, to := ny(2025, time.November, 20, 0, 0), ny(2025, time.December, 3, 0, 0) // Thanksgiving inside
	e := newEnv(t, now, sim.Options{})
	e.sim.SetDriftBps("massive", 30) // beyond outlier_bps: massive is an outlier, two survive
	spec := e.spec(t, three, "1000/s")
	rec := &recorder{next: http.DefaultTransport, clock: e.clock}
	rec.fail = func(r *http.Request) *http.Response {
		q := r.URL.Query()
		if !strings.HasPrefix(r.URL.Path, "/alphavantage/") || q.Get("symbol") != "SPY" || q.Get("month") != "2025-12" {
			return nil
		}
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"Meta Data": {"2. Symbol": "SPY"}, "Time Series (1min)": {"2025-12-01 09:30:00": {"4. close": "6`)), Request: r}
	}
	opts := Options{Spec: spec, From: from, To: to, Deps: sources.Deps{Transport: rec}, Clock: e.clock}

	store := openStore(t, "new.db")
	b, err := New(store, opts)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := b.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || sum.Incomplete == 0 {
		t.Fatalf("the tape should hold a failed window and incomplete minutes: failed %d, incomplete %d", sum.Failed, sum.Incomplete)
	}

	// The reference: answers and quotes as rows, as pricerig wrote them before the day blocks,
	// in a store of schema version 2, from the same Backfill (its failures and coverage),
	// sequentially.
	refPath := filepath.Join(t.TempDir(), "ref.db")
	ref := openLegacy(t, refPath)
	copyTape(t, store, ref)
	rid, err := store.RulesetID(ctx, history.RulesText(spec, nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ref.Exec(`INSERT INTO rulesets (id, rules) VALUES (?, ?)`, rid, history.RulesText(spec, nil)); err != nil {
		t.Fatal(err)
	}
	refSum := &Summary{}
	end := market.Earlier(b.opts.To, b.now.Truncate(time.Minute))
	for _, sym := range b.symbols {
		if err := b.reconcileSymbol(ctx, sym, end, refSum, func(batch []history.AnswerRow) error {
			return referencePutAnswers(ctx, ref, rid, batch)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if refSum.Minutes != sum.Minutes || refSum.Incomplete != sum.Incomplete || refSum.NoAgreement != sum.NoAgreement {
		t.Errorf("summaries differ: pipelined %d/%d/%d, sequential %d/%d/%d", sum.Minutes, sum.Incomplete, sum.NoAgreement,
			refSum.Minutes, refSum.Incomplete, refSum.NoAgreement)
	}
	want := typedDump(t, ref)
	statuses := map[string]bool{}
	for _, row := range want["quotes"] {
		statuses[strings.Split(row, "|")[4]] = true
	}
	for _, st := range []string{"ok:text", "carried:text", "outlier:text", "error:text"} {
		if !statuses[st] {
			t.Errorf("the tape gave no %s quote (%v): the comparison would not cover it", st, statuses)
		}
	}
	sameTables(t, want, sortedDump(rowDump(t, store, true)), "answers", "quotes")

	// A second run replaces the incomplete minutes' answers and quotes in place (the window still
	// fails): the same rows again.
	again, err := New(store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.Run(ctx); err != nil {
		t.Fatal(err)
	}
	sameTables(t, want, sortedDump(rowDump(t, store, true)), "answers", "quotes")

	// Migration 3 packs the legacy rows into day blocks: the same rows come out of them, and the
	// same bars.
	ref.Close()
	migrated, err := history.Open(refPath)
	if err != nil {
		t.Fatal(err)
	}
	defer migrated.Close()
	if v, err := migrated.Version(ctx); err != nil || v != history.SchemaVersion {
		t.Fatalf("migrated version %d, %v", v, err)
	}
	sameTables(t, want, sortedDump(rowDump(t, migrated, true)), "answers", "quotes")
	sameTables(t, dump(t, store), dump(t, migrated), "bars", "coverage", "windows")
	var left int
	if err := migrated.DB().QueryRow(`SELECT count(*) FROM sqlite_master WHERE name IN ('bars', 'answers', 'quotes')`).Scan(&left); err != nil || left != 0 {
		t.Errorf("the row tables are left after the migration: %d, %v", left, err)
	}
}

// sortedDump sorts each table's lines, as typedDump's ORDER BY 1 does.
func sortedDump(d map[string][]string) map[string][]string {
	for _, rows := range d {
		slices.Sort(rows)
	}
	return d
}

// openLegacy makes a SQLite store of schema version 2, before the day blocks: bars, answers and
// quotes one row each. It is the reference the day blocks are held to, and migration 3's input.
func openLegacy(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	stmts := []string{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)`}
	for _, m := range history.Migrations(false)[:2] {
		stmts = append(stmts, m.SQL, fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, '%s', 'test')`, m.Version, m.Name))
	}
	stmts = append(stmts, `PRAGMA user_version = 2`)
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// typedDump is dump for answers and quotes with each value's SQLite type beside it, so an
// integer written as text (or the reverse) shows as a difference.
func typedDump(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, cols := range map[string][]string{
		"answers": {"symbol", "minute", "session", "agreed", "price", "median", "survivors", "complete", "reason", "ruleset"},
		"quotes":  {"symbol", "minute", "ord", "source", "status", "price", "bar", "centibps", "err"},
	} {
		var sel []string
		for _, c := range cols {
			sel = append(sel, fmt.Sprintf("quote(%s) || ':' || typeof(%s)", c, c))
		}
		rows, err := db.Query(`SELECT ` + strings.Join(sel, ` || '|' || `) + ` FROM ` + table + ` ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			out[table] = append(out[table], strings.ReplaceAll(line, "'", ""))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return out
}

// copyTape copies what a backfill fetched (bars, coverage, windows) from a store to a legacy
// one (bars as rows).
func copyTape(t *testing.T, from *history.Store, to *sql.DB) {
	t.Helper()
	ctx := context.Background()
	tx, err := to.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// prepared once: a statement prepared per bar was a quarter of the test's time under -race
	ins, err := tx.Prepare(`INSERT INTO bars VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	err = from.Bars(ctx, "", "", unix(0), unix(1<<40), func(b history.StoredBar) error {
		_, err := ins.Exec(b.Symbol, b.Start.Unix(), b.Source, int64(b.Close), b.Volume)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	conn, err := to.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		`ATTACH DATABASE '` + from.Path() + `' AS src`,
		`INSERT INTO coverage SELECT source, symbol, win_from, win_to, bars FROM src.coverage`,
		`INSERT INTO windows SELECT * FROM src.windows`,
		`DETACH DATABASE src`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// referencePutAnswers is putAnswers as it was before the bulk path: rows as [][]any through
// database/sql, 200 to a statement.
func referencePutAnswers(ctx context.Context, db *sql.DB, ruleset int64, rows []history.AnswerRow) error {
	ans := make([][]any, 0, len(rows))
	var quotes [][]any
	for _, r := range rows {
		ans = append(ans, []any{r.Symbol, r.Minute.Unix(), string(r.Session), boolInt(r.Result.Agreed), int64(r.Result.Price),
			int64(r.Result.Median), r.Result.Survivors, boolInt(r.Complete), r.Reason, ruleset})
		for i, q := range r.Result.Quotes {
			var bar int64
			if q.Status.Priced() {
				bar = q.BarTime.Unix()
			}
			quotes = append(quotes, []any{r.Symbol, r.Minute.Unix(), r.Ords[i], q.Source, string(q.Status), int64(q.Price), bar, q.DistanceCentiBps, q.Err})
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, part := range []struct {
		head  string
		width int
		rows  [][]any
	}{
		{`INSERT OR REPLACE INTO answers (symbol, minute, session, agreed, price, median, survivors, complete, reason, ruleset) VALUES`, 10, ans},
		{`INSERT OR REPLACE INTO quotes (symbol, minute, ord, source, status, price, bar, centibps, err) VALUES`, 9, quotes},
	} {
		one := "(" + strings.TrimSuffix(strings.Repeat("?,", part.width), ",") + ")"
		for rest := part.rows; len(rest) > 0; {
			n := min(len(rest), 200)
			var args []any
			for _, r := range rest[:n] {
				args = append(args, r...)
			}
			if _, err := tx.ExecContext(ctx, part.head+" "+strings.TrimSuffix(strings.Repeat(one+",", n), ","), args...); err != nil {
				return err
			}
			rest = rest[n:]
		}
	}
	return tx.Commit()
}
