package history

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/pricerig/pricerig/internal/sqldb"
	"github.com/pricerig/pricerig/sources"
)

// The store as the sources' request budget (sources.Budget): every request a source sends is
// counted in quota_use against its quota, and a refused source's breaker is kept in breakers,
// so every process on one store (a rig's HA instances, `price` and the audit on a shared cache)
// spends from one count and backs off together. The counts survive a restart.

var _ sources.Budget = (*Store)(nil)

// quotaLock makes a PostgreSQL transaction the only one counting requests until it ends, as
// SQLite's IMMEDIATE transactions already are: of two processes at the quota's last request,
// the second reads the first's count.
const quotaLock = `SELECT pg_advisory_xact_lock(hashtext('pricerig history quota'))`

// Spend implements sources.Budget: it reads the source's breaker and its counts, and counts the
// request, in one transaction. A source with no quota is counted too (what was sent), and the
// counts are kept for the longest span any quota reads (Quota.KeepUses), not this quota's: a
// process with an hourly quota does not delete what another's daily one counts.
func (s *Store) Spend(ctx context.Context, source string, q sources.Quota, now time.Time) error {
	var refused error
	err := s.write(ctx, func(tx wtx) error {
		refused = nil
		if s.Postgres() {
			if err := tx.Exec(ctx, quotaLock); err != nil {
				return err
			}
		}
		b, ok, err := txBreaker(ctx, tx, source)
		if err != nil {
			return err
		}
		if ok && b.Open(now) {
			refused = b.Err(source, now)
			return nil
		}
		uses, err := s.uses(ctx, tx, source, now.Add(-q.Span()))
		if err != nil {
			return err
		}
		if ok, limit, free := q.Room(uses, now); !ok {
			refused = sources.OverQuota(source, limit, free, now)
			return nil
		}
		minute := now.Truncate(time.Minute).Unix()
		if err := tx.Exec(ctx, `INSERT INTO quota_use (source, minute, used) VALUES (?, ?, 1)
ON CONFLICT (source, minute) DO UPDATE SET used = quota_use.used + 1`, source, minute); err != nil {
			return err
		}
		// the counts no quota reaches any more
		return tx.Exec(ctx, `DELETE FROM quota_use WHERE source = ? AND minute < ?`, source, now.Add(-q.KeepUses()).Unix())
	})
	if err != nil {
		return err
	}
	return refused
}

// uses reads a source's counts since since.
func (s *Store) uses(ctx context.Context, tx wtx, source string, since time.Time) ([]sources.Use, error) {
	var out []sources.Use
	err := tx.Query(ctx, `SELECT minute, used FROM quota_use WHERE source = ? AND minute >= ? ORDER BY minute`,
		[]any{source, since.Truncate(time.Minute).Unix()}, func(r sqldb.Row) error {
			var m, n int64
			if err := r.Scan(&m, &n); err != nil {
				return err
			}
			out = append(out, sources.Use{Minute: unix(m), Count: int(n)})
			return nil
		})
	return out, err
}

// Trip implements sources.Budget.
func (s *Store) Trip(ctx context.Context, source string, b sources.Breaker) (bool, error) {
	opened := false
	err := s.write(ctx, func(tx wtx) error {
		old, had, err := txBreaker(ctx, tx, source)
		if err != nil {
			return err
		}
		opened = !had || !old.Open(b.Opened)
		if had && old.Until.After(b.Until) {
			b.Until = old.Until
		}
		return tx.Exec(ctx, `INSERT INTO breakers (source, opened, until, kind, why) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (source) DO UPDATE SET opened = excluded.opened, until = excluded.until, kind = excluded.kind, why = excluded.why`,
			source, b.Opened.Unix(), b.Until.Unix(), string(b.Kind), b.Why)
	})
	return opened, err
}

// CloseBreaker closes a source's breaker (`pricerig doctor`, once the source answered again):
// every process on the store asks it again at once.
func (s *Store) CloseBreaker(ctx context.Context, source string) error {
	return s.write(ctx, func(tx wtx) error {
		return tx.Exec(ctx, `DELETE FROM breakers WHERE source = ?`, source)
	})
}

func txBreaker(ctx context.Context, tx wtx, source string) (sources.Breaker, bool, error) {
	var b sources.Breaker
	var opened, until int64
	var kind string
	err := tx.QueryRow(ctx, `SELECT opened, until, kind, why FROM breakers WHERE source = ?`, source).Scan(&opened, &until, &kind, &b.Why)
	if errors.Is(err, sql.ErrNoRows) {
		return b, false, nil
	}
	b.Opened, b.Until, b.Kind = unix(opened), unix(until), sources.ErrorKind(kind)
	return b, err == nil, err
}

// breaker reads a source's breaker outside a write.
func (s *Store) breaker(ctx context.Context, q querier, source string) (sources.Breaker, bool, error) {
	rows, err := q.QueryContext(ctx, s.Q(`SELECT opened, until, kind, why FROM breakers WHERE source = ?`), source)
	if err != nil {
		return sources.Breaker{}, false, err
	}
	defer rows.Close()
	var b sources.Breaker
	if !rows.Next() {
		return b, false, rows.Err()
	}
	var opened, until int64
	var kind string
	if err := rows.Scan(&opened, &until, &kind, &b.Why); err != nil {
		return b, false, err
	}
	b.Opened, b.Until, b.Kind = unix(opened), unix(until), sources.ErrorKind(kind)
	return b, true, rows.Err()
}

// Standing is what the store's budget says of one source at an instant: for each limit of its
// quota the requests counted and the room left, and its breaker when open.
type Standing struct {
	Source  string
	Limits  []LimitStanding
	Breaker *sources.Breaker
}

// LimitStanding is one limit of a quota: the requests of the span ending now that it counts,
// and how many more it allows.
type LimitStanding struct {
	Limit      sources.Rate
	Used, Left int
}

// Standing reads a source's budget at now, for a report (doctor, the operator's page).
func (s *Store) Standing(ctx context.Context, source string, q sources.Quota, now time.Time) (Standing, error) {
	out := Standing{Source: source}
	b, ok, err := s.breaker(ctx, s.db.DB, source)
	if err != nil {
		return out, err
	}
	if ok && b.Open(now) {
		out.Breaker = &b
	}
	rows, err := s.db.QueryContext(ctx, s.Q(`SELECT minute, used FROM quota_use WHERE source = ? AND minute >= ?`),
		source, now.Add(-q.Span()).Truncate(time.Minute).Unix())
	if err != nil {
		return out, err
	}
	defer rows.Close()
	var uses []sources.Use
	for rows.Next() {
		var m, n int64
		if err := rows.Scan(&m, &n); err != nil {
			return out, err
		}
		uses = append(uses, sources.Use{Minute: unix(m), Count: int(n)})
	}
	for _, l := range q {
		used := sources.Used(uses, l, now)
		out.Limits = append(out.Limits, LimitStanding{Limit: l, Used: used, Left: max(l.N-used, 0)})
	}
	return out, rows.Err()
}
