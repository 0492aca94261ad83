package history

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

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
		driver, q = "pgx", dollarPlaceholders
	}
	db, err := sql.Open(driver, target)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)`}
	for _, m := range migrations[:2] {
		sql := m.sqlite
		if be == postgresStore {
			sql = m.postgres
		}
		stmts = append(stmts, sql, fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, '%s', 'test')`, m.version, m.name))
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
	rules, err := src.rulesets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for id, text := range rules {
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
	err = src.Bars(ctx, "", "", unix(0), unix(1<<40), func(b StoredBar) error {
		_, err := insBar.Exec(b.Symbol, b.Start.Unix(), b.Source, int64(b.Close), b.Volume)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = src.answerDays(ctx, Query{}, func(sym string, a *dayAnswer) error {
		if _, err := insAnswer.Exec(sym, a.minute, string(a.session), boolInt(a.agreed), int64(a.price), int64(a.median), a.survivors, boolInt(a.complete), a.reason, a.ruleset); err != nil {
			return err
		}
		for _, qu := range a.quotes {
			if _, err := insQuote.Exec(sym, a.minute, qu.ord, qu.source, string(qu.status), int64(qu.price), qu.bar, qu.centibps, qu.err); err != nil {
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

	migrated, err := Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer migrated.Close()
	if v, err := migrated.Version(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("version %d (%v), want %d", v, err, SchemaVersion)
	}
	sameTables(t, want, rowDump(t, migrated, false), "bars", "answers", "quotes")
	for _, table := range []string{"bars", "answers", "quotes"} {
		if _, err := migrated.DB().Exec(`SELECT 1 FROM ` + table); err == nil {
			t.Errorf("table %s is left after the migration", table)
		}
	}
}
