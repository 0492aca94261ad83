package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/internal/dburl"
	"github.com/pricerig/pricerig/internal/sqldb"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/journal"
)

// Problems of the journal's and the store's checks.
const (
	NoJournal    = "no_journal"    // nothing at --journal yet: pricerig rig makes it
	NoStore      = "no_store"      // nothing at --db: pricerig backfill makes it
	DBFailed     = "unreachable"   // the database could not be opened
	SchemaOlder  = "schema_older"  // an older schema: the next pricerig rig or backfill migrates it
	SchemaNewer  = "schema_newer"  // a newer schema: this pricerig refuses it
	NotWritable  = "not_writable"  // a write would not be taken
	LeaseExpired = "lease_expired" // no instance leads the keys of this lease
	LeaseLate    = "lease_late"    // the leader renews later than its TTL allows for
)

// checkJournal looks at the rig's journal without changing it: there, reachable, its schema
// current, writable; on PostgreSQL, each lease instances share and who holds it.
func checkJournal(ctx context.Context, target string) []Check {
	in, err := journal.Inspect(ctx, target)
	line := Check{Check: "journal", Subject: journal.RedactURL(target)}
	if errors.Is(err, journal.ErrNoJournal) {
		line.Verdict, line.Problem = Warn, NoJournal
		line.Detail = fmt.Sprintf("no journal at %s yet", line.Subject)
		line.Fix = fmt.Sprintf("pricerig rig --journal %s makes it at its first start", line.Subject)
		if !dburl.IsPostgres(target) {
			if st, err := os.Stat(filepath.Dir(target)); err != nil || !st.IsDir() {
				line.Verdict = Fail
				line.Detail += ", and its folder does not exist"
				line.Fix = fmt.Sprintf("make the folder %s, or give --journal a path in one", filepath.Dir(target))
			}
		}
		return []Check{line}
	}
	out := []Check{database(line, in.Inspection, err, "pricerig rig")}
	if err != nil || !in.Postgres || in.Version < 3 {
		return out
	}
	if len(in.Leases) == 0 {
		return append(out, Check{Check: "lease", Subject: line.Subject, Verdict: OK,
			Detail: "no instance has taken a lease yet: the first pricerig rig on this journal will"})
	}
	for _, l := range in.Leases {
		out = append(out, leaseLine(l))
	}
	return out
}

// checkStore looks at the price history the rig answers stored minutes from (--db).
func checkStore(ctx context.Context, target string) Check {
	in, err := history.Inspect(ctx, target)
	line := Check{Check: "store", Subject: dburl.Shown(target)}
	if errors.Is(err, history.ErrNoStore) {
		line.Verdict, line.Problem = Fail, NoStore
		line.Detail = redact.String(err.Error())
		line.Fix = fmt.Sprintf("pricerig backfill --db %s makes it; or leave --db out of the rig", line.Subject)
		return line
	}
	return database(line, in, err, "pricerig backfill")
}

// database judges what a look at a journal or a store found.
func database(line Check, in sqldb.Inspection, err error, migrator string) Check {
	kind := "SQLite"
	if in.Postgres {
		kind = "PostgreSQL"
	}
	switch {
	case err != nil:
		line.Verdict, line.Problem = Fail, DBFailed
		line.Detail = redact.String(err.Error())
		line.Fix = "check the path or URL, the server and the credentials"
	case in.Newer():
		line.Verdict, line.Problem = Fail, SchemaNewer
		line.Detail = fmt.Sprintf("%s, schema %d: newer than this pricerig's %d, which refuses it", kind, in.Version, in.Newest)
		line.Fix = "run the pricerig that wrote it (or a newer one)"
	case in.Writable != nil:
		line.Verdict, line.Problem = Fail, NotWritable
		line.Detail = fmt.Sprintf("%s, schema %d: a write was refused: %s", kind, in.Version, redact.String(in.Writable.Error()))
		line.Fix = "give this machine's user write access (a file's folder and mode; a role's privileges on a primary, not a replica)"
	case in.Older():
		line.Verdict, line.Problem = Warn, SchemaOlder
		line.Detail = fmt.Sprintf("%s, schema %d, writable: older than this pricerig's %d; it will migrate at the next %s", kind, in.Version, in.Newest, migrator)
		line.Fix = "back it up before the migration; every instance sharing it must then run this pricerig or newer"
	default:
		line.Verdict = OK
		line.Detail = fmt.Sprintf("%s, schema %d (current), writable", kind, in.Version)
	}
	return line
}

// leaseLine judges one lease: a live one is renewed every third of its TTL, so one renewed more
// than two thirds of it ago is late (the leader is slow to reach the database); an expired one
// means no instance leads those keys.
func leaseLine(l journal.LeaseState) Check {
	line := Check{Check: "lease", Subject: l.Name, Verdict: OK}
	held := fmt.Sprintf("held by %s in epoch %d", l.Holder, l.Epoch)
	switch {
	case !l.Live:
		line.Verdict, line.Problem = Warn, LeaseExpired
		line.Detail = fmt.Sprintf("expired %s ago (last %s): no instance leads these keys", l.Expired.Round(time.Second), held)
		line.Fix = "start pricerig rig with these keys on this journal (an instance that stopped cleanly releases its lease)"
	case l.Age > l.TTL*2/3:
		line.Verdict, line.Problem = Warn, LeaseLate
		line.Detail = fmt.Sprintf("%s, renewed %s ago of a %s TTL: renewals are late", held, l.Age.Round(time.Millisecond), l.TTL)
		line.Fix = "check the leader's link to the database, or raise --lease-ttl"
	default:
		line.Detail = fmt.Sprintf("%s, renewed %s ago (TTL %s)", held, l.Age.Round(time.Millisecond), l.TTL)
	}
	return line
}

// keep records the report in the journal, as the audit's are, for the operator's page: only in
// a journal that is there, current and writable (a doctor that migrated a journal would change
// the database under instances of an older pricerig sharing it). It says where, or why not.
func keep(ctx context.Context, target string, checks []Check, rep Report) string {
	if len(checks) == 0 || checks[0].Verdict != OK {
		why := "the journal is not current"
		if len(checks) > 0 && checks[0].Problem != "" {
			why = "the journal check found " + checks[0].Problem
		}
		return "not kept in the journal: " + why
	}
	b, err := json.Marshal(rep)
	if err == nil {
		var j *journal.DBJournal
		if j, err = journal.OpenExistingJournal(target); err == nil {
			err = j.RecordDoctor(ctx, rep.At, b)
			j.Close()
		}
	}
	if err != nil {
		return "not kept in the journal: " + redact.String(err.Error())
	}
	return "kept in the journal " + checks[0].Subject + " for the operator's page"
}
