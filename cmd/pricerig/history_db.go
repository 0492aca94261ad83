package main

import (
	"errors"
	"io/fs"
	"os"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/dburl"
	rigjournal "github.com/pricerig/pricerig/rig/journal"
)

// readDB is a database a command only reads (the --db of price, export, audit and rig, the
// --journal of audit and operator status): its flag, and how its owner opens what exists and
// names a target that holds none.
type readDB[T any] struct {
	flag   string
	open   func(target string) (T, error) // opens what exists; makes nothing
	noneAt func(target string) error      // the owner's "no … at <target>"
	none   error                          // what the owner's errors for a target holding none wrap
}

var (
	historyDB = readDB[*history.Store]{"--db", history.OpenExisting, history.NoStoreAt, history.ErrNoStore}
	journalDB = readDB[*rigjournal.DBJournal]{"--journal", rigjournal.OpenExistingJournal, rigjournal.NoJournalAt, rigjournal.ErrNoJournal}
)

// mustExist checks the target before the command does anything else: a SQLite file must already
// exist, since a reader never makes one; a PostgreSQL database (postgres://…) is checked when it
// opens. From here on the URL's password is kept out of every output.
func (d readDB[T]) mustExist(target string) error {
	registerDBSecrets(target)
	if dburl.IsPostgres(target) {
		return nil
	}
	if dburl.IsKeyValue(target) {
		return badInput("%s %q: a PostgreSQL database is named by a postgres:// URL, not by libpq's key/value settings", d.flag, dburl.Shown(target))
	}
	if _, err := os.Stat(target); errors.Is(err, fs.ErrNotExist) {
		return badInput("%s: %v", d.flag, d.noneAt(target))
	}
	return mustExist(d.flag, target)
}

// openToRead opens the target. It makes nothing: a path or a database that holds none is bad
// input (exit 2), named without its password; any other failure to open is fail's.
func (d readDB[T]) openToRead(target string, fail func(format string, args ...any) error) (T, error) {
	var zero T
	if err := d.mustExist(target); err != nil {
		return zero, err
	}
	v, err := d.open(target)
	switch {
	case errors.Is(err, d.none):
		return zero, badInput("%s: %v", d.flag, err)
	case err != nil:
		return zero, fail("%s: %v", d.flag, err)
	}
	return v, nil
}

// historyMustExist checks the --db of a command that reads the price history (readDB.mustExist).
func historyMustExist(db string) error { return historyDB.mustExist(db) }

// openHistory opens the --db of a command that only reads the price history.
func openHistory(db string, fail func(format string, args ...any) error) (*history.Store, error) {
	return historyDB.openToRead(db, fail)
}

// journalMustExist checks the --journal of a command that only reads it.
func journalMustExist(journal string) error { return journalDB.mustExist(journal) }

// openJournalToRead opens the --journal of a command that only reads it.
func openJournalToRead(journal string, fail func(format string, args ...any) error) (*rigjournal.DBJournal, error) {
	return journalDB.openToRead(journal, fail)
}
