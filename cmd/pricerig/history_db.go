package main

import (
	"errors"
	"io/fs"
	"os"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/dburl"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
)

// historyMustExist checks the --db of a command that reads the price history (price, export,
// audit, rig) before it does anything else: a SQLite file must already exist, since a reader
// never makes one; a PostgreSQL database (postgres://…) is checked when openHistory opens it.
// From here on the URL's password is kept out of every output.
func historyMustExist(db string) error {
	registerDBSecrets(db)
	if dburl.IsPostgres(db) {
		return nil
	}
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		return badInput("--db: %v", history.NoStoreAt(db))
	}
	return mustExist("--db", db)
}

// openHistory opens the --db of a command that only reads the price history. It makes nothing:
// a path or a database that holds no store is bad input (exit 2), named without its password;
// any other failure to open is fail's.
func openHistory(db string, fail func(format string, args ...any) error) (*history.Store, error) {
	if err := historyMustExist(db); err != nil {
		return nil, err
	}
	st, err := history.OpenExisting(db)
	switch {
	case errors.Is(err, history.ErrNoStore):
		return nil, badInput("--db: %v", err)
	case err != nil:
		return nil, fail("--db: %v", err)
	}
	return st, nil
}

// journalMustExist is historyMustExist for the --journal a command only reads (audit, operator
// status): a SQLite journal must already exist.
func journalMustExist(journal string) error {
	registerDBSecrets(journal)
	if rigjournal.IsPostgresURL(journal) {
		return nil
	}
	if _, err := os.Stat(journal); errors.Is(err, fs.ErrNotExist) {
		return badInput("--journal: %v", rigjournal.NoJournalAt(journal))
	}
	return mustExist("--journal", journal)
}

// openJournalToRead is openHistory for a --journal the command only reads.
func openJournalToRead(journal string, fail func(format string, args ...any) error) (*rigjournal.DBJournal, error) {
	if err := journalMustExist(journal); err != nil {
		return nil, err
	}
	j, err := rigjournal.OpenExistingJournal(journal)
	switch {
	case errors.Is(err, rigjournal.ErrNoJournal):
		return nil, badInput("--journal: %v", err)
	case err != nil:
		return nil, fail("--journal: %v", err)
	}
	return j, nil
}
