package sqldb

import (
	"context"
	"errors"
	"fmt"

	"github.com/pricerig/pricerig/internal/dburl"
)

// Inspection is a look at an owner's database that makes nothing, migrates nothing and leaves
// nothing behind (pricerig doctor): where it is, the schema version it holds against the one
// this pricerig writes, and whether a write would be taken.
type Inspection struct {
	Target   string // the path, or the URL without its password
	Postgres bool
	Version  int // the schema version the database holds
	Newest   int // the version this pricerig's migrations reach
	// Writable is nil when a write transaction began, made a table and rolled back: nobody ever
	// sees the table. Otherwise it says why not (a read-only file or replica, a missing
	// privilege, a lock another writer held past the busy timeout).
	Writable error
}

// Older reports whether the database's schema is older than this pricerig's: an Open that may
// write (or a reader) migrates it.
func (i Inspection) Older() bool { return i.Version < i.Newest }

// Newer reports whether the database's schema is newer than this pricerig's: every Open refuses
// it.
func (i Inspection) Newer() bool { return i.Version > i.Newest }

// writeProbe is the write Inspect makes and takes back: a table no owner has, made inside a
// transaction that is rolled back. DDL is transactional on both databases, so it proves the
// lock (SQLite) or the privilege to make tables, which migrations need (PostgreSQL), and a
// read-only file or a hot standby refuses it.
const writeProbe = `CREATE TABLE pricerig_doctor_probe (x INTEGER)`

// Inspect opens the owner's database at target as a reader does (nothing is made: a target
// holding none of it is cfg.Missing's error, one that cannot be reached the driver's), reads its
// version and tries a write it rolls back; it migrates nothing, whatever the version. The handle
// it returns (one connection) lets the owner read more of what it holds; the caller closes it.
func Inspect(ctx context.Context, target string, cfg Config) (*DB, Inspection, error) {
	if err := refuseKeyValue(target, cfg); err != nil {
		return nil, Inspection{}, err
	}
	var d *DB
	var err error
	if dburl.IsPostgres(target) {
		d, _, err = postgresHandle(ctx, target, false, cfg)
	} else {
		cfg.SQLite.MaxOpenConns = 1
		d, err = sqliteHandle(ctx, target, false, cfg)
	}
	if err != nil {
		return nil, Inspection{}, err
	}
	in := Inspection{Target: d.target, Postgres: d.postgres}
	if steps := cfg.Migrations(d.postgres); len(steps) > 0 {
		in.Newest = steps[len(steps)-1].Version
	}
	if in.Version, err = d.Version(ctx); err != nil {
		d.Close()
		return nil, in, fmt.Errorf("%s %s: reading the schema version: %w", cfg.What, d.target, err)
	}
	in.Writable = d.tryWrite(ctx)
	return d, in, nil
}

// tryWrite makes writeProbe in a transaction and rolls it back.
func (d *DB) tryWrite(ctx context.Context) error {
	tx, err := d.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, writeProbe)
	return errors.Join(err, tx.Rollback())
}
