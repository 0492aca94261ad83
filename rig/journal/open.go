package journal

import (
	"errors"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/internal/sqldb"
)

// config is the journal's database as internal/sqldb opens it: on SQLite every commit durable
// (synchronous FULL: an answer and its salt are on disk before anything is sent) and one
// connection (one writer; SQLite serialises anyway and this keeps transactions simple); on
// PostgreSQL a pool the instances' runners, followers and leases share.
var config = sqldb.Config{
	What: "journal", Component: "journal", Missing: NoJournalAt, Migrations: journalMigrations,
	SQLite:   sqldb.SQLiteConfig{BusyTimeout: 5 * time.Second, Synchronous: "FULL", MaxOpenConns: 1},
	Postgres: sqldb.PostgresConfig{MaxOpenConns: 8, MaxIdleTime: time.Minute},
}

// journalMigrations is the journal's migrations as internal/sqldb runs them: migrations[v] takes
// SQLite from version v to v+1, postgresMigrations[v] PostgreSQL to v.
func journalMigrations(postgres bool) []sqldb.Migration {
	var out []sqldb.Migration
	if postgres {
		for v := 1; v < len(postgresMigrations); v++ {
			out = append(out, sqldb.Migration{Version: v, SQL: postgresMigrations[v]})
		}
		return out
	}
	for v, stmt := range migrations {
		out = append(out, sqldb.Migration{Version: v + 1, SQL: stmt})
	}
	return out
}

// open opens the journal at target through internal/sqldb (see OpenJournal and
// OpenExistingJournal), refusing a newer schema in the journal's words.
func open(target string, create bool) (*DBJournal, error) {
	db, err := sqldb.Open(target, create, config)
	if ne, ok := errors.AsType[*sqldb.NewerSchemaError](err); ok {
		return nil, fmt.Errorf("journal %s: %w", RedactURL(target), newerJournal(ne.Version, ne.Newest))
	}
	if err != nil {
		return nil, err
	}
	return &DBJournal{db: db, postgres: db.Postgres(), target: db.Target(), now: time.Now}, nil
}
