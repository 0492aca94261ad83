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
// PostgreSQL a pool the instances' runners, followers and leases share, whose transactions are
// ended by the server when they sit idle for idleInTransaction.
var config = sqldb.Config{
	What: "journal", Component: "journal", Missing: NoJournalAt, Migrations: journalMigrations,
	SQLite:   sqldb.SQLiteConfig{BusyTimeout: 5 * time.Second, Synchronous: "FULL", MaxOpenConns: 1},
	Postgres: sqldb.PostgresConfig{MaxOpenConns: 8, MaxIdleTime: time.Minute, IdleInTransaction: idleInTransaction},
}

// idleInTransaction is how long the server lets a journal transaction wait for its next
// statement before it ends the session. A fenced write share-locks the lease row (checkFenceTx)
// and a renewal locks it for update, so a leader frozen (SIGSTOP, a paused VM, a stalled
// machine) in the middle of one would hold the row for as long as its connection lives, and no
// follower could take the lease: the stop-30 CI run of TestFailoverFrozenLeaderSendsNothingWhenItWakes
// froze the leader there and the follower waited eight minutes. No journal transaction waits on
// anything but the database between its statements (nothing is sent or fetched inside one), so
// two idle seconds is a process that has stopped; its transaction is rolled back, its write
// fails when it wakes, and it sends nothing that write guarded.
const idleInTransaction = 2 * time.Second

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
