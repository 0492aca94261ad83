package main

import (
	"github.com/pricerig/pricerig/internal/dburl"
)

// historyMustExist checks the --db of a command that reads the price history (price, export,
// audit, rig): a SQLite file must already exist, since a reader never makes one; a PostgreSQL
// database (postgres://…) is checked when it is opened. From here on the URL's password is kept
// out of every output.
func historyMustExist(db string) error {
	registerDBSecrets(db)
	if dburl.IsPostgres(db) {
		return nil
	}
	return mustExist("--db", db)
}
