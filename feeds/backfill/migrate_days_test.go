package backfill

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/sqldb"
	"github.com/pricerig/pricerig/sources/sim"
)

// Migration 3 on each database: a store of schema version 2 holding bars, answers and quotes as
// rows (those of a real backfill, every status among them) opens at version 3 with the same
// rows coming out of its day blocks, and without the row tables.
func TestMigrationPacksTheRowTables(t *testing.T) { eachBackend(t, testMigrationPacksTheRowTables) }

func testMigrationPacksTheRowTables(t *testing.T, be storeBackend) {
	ctx := context.Background()
	e := newEnv(t, ny(2025, time.November, 20, 12, 0), sim.Options{})
	e.sim.SetDriftBps("massive", 30) // outliers among the quotes
	spec := e.spec(t, three, "1000/s")
	src := sqliteStore.open(t, "source.db")
	e.run(t, ctx, src, Options{Spec: spec, From: ny(2025, time.November, 6, 0, 0), To: ny(2025, time.November, 11, 0, 0)})
	want := rowDump(t, src, false)
	if len(want["bars"]) == 0 || len(want["answers"]) == 0 || len(want["quotes"]) == 0 {
		t.Fatalf("the backfill stored nothing to migrate: %d bars, %d answers, %d quotes", len(want["bars"]), len(want["answers"]), len(want["quotes"]))
	}

	target := be.target(t, "legacy.db")
	driver, q := "sqlite", func(s string) string { return s }
	if be == postgresStore {
		driver, q = "pgx", sqldb.Dollar
	}
	db, err := sql.Open(driver, target)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)`}
	for _, m := range history.Migrations(be == postgresStore)[:2] {
		stmts = append(stmts, m.SQL, fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, '%s', 'test')`, m.Version, m.Name))
	}
	if be == postgresStore {
		stmts = append(stmts, `CREATE TABLE pricerig_schema (component TEXT PRIMARY KEY, version INT NOT NULL)`,
			`INSERT INTO pricerig_schema VALUES ('history', 2)`)
	} else {
		stmts = append(stmts, `PRAGMA user_version = 2`)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	// the source store's content, written as version 2 wrote it
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]int64{} // each ruleset's id by its text
	rows, err := src.DB().Query(`SELECT id, rules FROM rulesets`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			t.Fatal(err)
		}
		rules[text] = id
	}
	rows.Close()
	for text, id := range rules {
		if _, err := tx.Exec(q(`INSERT INTO rulesets (id, rules) VALUES (?, ?)`), id, text); err != nil {
			t.Fatal(err)
		}
	}
	// One statement each, prepared once: a statement prepared per row was most of this test's
	// time under -race.
	prepare := func(query string) *sql.Stmt {
		st, err := tx.Prepare(q(query))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	insBar := prepare(`INSERT INTO bars (symbol, minute, source, close, volume) VALUES (?, ?, ?, ?, ?)`)
	insAnswer := prepare(`INSERT INTO answers (symbol, minute, session, agreed, price, median, survivors, complete, reason, ruleset) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	insQuote := prepare(`INSERT INTO quotes (symbol, minute, ord, source, status, price, bar, centibps, err) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	err = src.Bars(ctx, "", "", unix(0), unix(1<<40), func(b history.StoredBar) error {
		_, err := insBar.Exec(b.Symbol, b.Start.Unix(), b.Source, int64(b.Close), b.Volume)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = src.Answers(ctx, history.Query{}, func(a history.Answer) error {
		minute := a.Minute.Unix()
		if _, err := insAnswer.Exec(a.Symbol, minute, string(a.Session), boolInt(a.Agreed), int64(a.Price), int64(a.Median), a.Survivors, boolInt(a.Complete), a.Reason, rules[a.Rules]); err != nil {
			return err
		}
		for _, qu := range a.Quotes {
			var bar int64
			if !qu.BarTime.IsZero() {
				bar = qu.BarTime.Unix()
			}
			if _, err := insQuote.Exec(a.Symbol, minute, qu.Ord, qu.Source, string(qu.Status), int64(qu.Price), bar, qu.DistanceCentiBps, qu.Err); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	migrated, err := history.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer migrated.Close()
	if v, err := migrated.Version(ctx); err != nil || v != history.SchemaVersion {
		t.Fatalf("version %d (%v), want %d", v, err, history.SchemaVersion)
	}
	sameTables(t, want, rowDump(t, migrated, false), "bars", "answers", "quotes")
	for _, table := range []string{"bars", "answers", "quotes"} {
		if _, err := migrated.DB().Exec(`SELECT 1 FROM ` + table); err == nil {
			t.Errorf("table %s is left after the migration", table)
		}
	}
}
