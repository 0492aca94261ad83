package journal

import (
	"context"
	"time"

	"github.com/pricerig/pricerig/internal/sqldb"
)

// What `pricerig doctor` keeps in and reads of a journal: its reports, for the operator's page,
// and a look at the journal that changes nothing (Inspect), with the leases instances take
// turns by.

// doctorKeep is how many doctor reports the journal keeps: a preflight runs by hand or at each
// start, so a hundred is months of them.
const doctorKeep = 100

// migrationDoctorReports makes the table of doctor reports (SQLite's migration 5 → 6,
// PostgreSQL's 7). Unlike the audit's, it is a migration: a journal says by its version whether it
// can keep one, and a doctor that finds an older journal keeps nothing rather than migrate a
// database other instances (of an older pricerig) may be running on.
func migrationDoctorReports(postgres bool) string {
	return reportTable("doctor_reports", postgres) + ";"
}

// RecordDoctor keeps the report of one doctor run (the JSON `pricerig doctor --json` prints);
// only the newest doctorKeep are kept.
func (j *DBJournal) RecordDoctor(ctx context.Context, at time.Time, report []byte) error {
	return j.keepReport(ctx, "doctor_reports", doctorKeep, at, report, "")
}

// LastDoctor returns the newest report RecordDoctor kept; ok is false when there is none.
func (j *DBJournal) LastDoctor(ctx context.Context) (at time.Time, report []byte, ok bool, err error) {
	return j.lastReport(ctx, "doctor_reports")
}

// Inspection is a look at a journal that makes, migrates and changes nothing: the database's
// (sqldb.Inspection) and, on PostgreSQL, the leases instances sharing it take turns by.
type Inspection struct {
	sqldb.Inspection
	Leases []LeaseState
}

// LeaseState is a lease as its row stands, by the database's clock.
type LeaseState struct {
	Name   string
	Holder string // "" when nobody ever held it
	Epoch  int64
	Live   bool          // not expired: its holder leads
	Age    time.Duration // since the holder last renewed it
	TTL    time.Duration // how long each renewal lasts (its expiry less its renewal)
	// Expired is how long ago it expired (0 while live).
	Expired time.Duration
}

// Inspect looks at the journal at target (pricerig doctor): a path or database that holds none
// is an error wrapping ErrNoJournal, with nothing made; one of another version is reported, not
// migrated. On PostgreSQL it lists the leases (the table comes with version 3).
func Inspect(ctx context.Context, target string) (Inspection, error) {
	d, in, err := sqldb.Inspect(ctx, target, config)
	if err != nil {
		return Inspection{Inspection: in}, err
	}
	defer d.Close()
	out := Inspection{Inspection: in}
	if !in.Postgres || in.Version < 3 || in.Newer() {
		return out, nil
	}
	rows, err := d.QueryContext(ctx, `SELECT name, holder, epoch, expires_at > now(),
		EXTRACT(EPOCH FROM (now() - renewed_at)) * 1000, EXTRACT(EPOCH FROM (expires_at - renewed_at)) * 1000,
		GREATEST(EXTRACT(EPOCH FROM (now() - expires_at)) * 1000, 0) FROM leases ORDER BY name`)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var l LeaseState
		var age, ttl, expired float64
		if err := rows.Scan(&l.Name, &l.Holder, &l.Epoch, &l.Live, &age, &ttl, &expired); err != nil {
			return out, err
		}
		l.Age, l.TTL = time.Duration(age)*time.Millisecond, time.Duration(ttl)*time.Millisecond
		if !l.Live {
			l.Expired = time.Duration(expired) * time.Millisecond
		}
		out.Leases = append(out.Leases, l)
	}
	return out, rows.Err()
}
