package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/sqldb"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// The store as the bar ledger (feeds.Ledger): every bar a source returned to `price`, the rig,
// the audit or the backfill, kept in the day blocks with its fetch time and finality, the
// windows known final in coverage, and the closes a later fetch changed in bar_revisions. One
// store is the ledger of every process on it: a window one fetched costs the others nothing.

var _ feeds.Ledger = (*Store)(nil)

// Held reads what the store holds of a source's symbol over [from, to): its bars and the
// windows fetched that reach into it. Both are read at one instant (Keep writes them in one
// transaction), so a window is never read without its bars.
func (s *Store) Held(ctx context.Context, source, symbol string, from, to time.Time) (feeds.Held, error) {
	var out feeds.Held
	a, b := ceilUnix(from), ceilUnix(to)
	if a >= b {
		return out, nil
	}
	err := s.db.ReadSnapshot(ctx, func(tx *sql.Tx) error {
		out = feeds.Held{}
		rows, err := tx.QueryContext(ctx, s.Q(`SELECT win_from, win_to, seen_to, fetched FROM coverage
WHERE source = ? AND symbol = ? AND win_from < ? AND seen_to > ? ORDER BY win_from`), source, symbol, b, a)
		if err != nil {
			return err
		}
		for rows.Next() {
			var f, t, seen, fetched int64
			if err := rows.Scan(&f, &t, &seen, &fetched); err != nil {
				rows.Close()
				return err
			}
			out.Windows = append(out.Windows, feeds.HeldWindow{Span: market.Span{From: unix(f), To: unix(max(seen, t))}, FinalTo: unix(t), Fetched: fetchedTime(fetched)})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		c, err := s.openBarsOn(ctx, tx, symbol, source, a, b)
		if err != nil {
			return err
		}
		defer c.Close()
		for {
			bar, ok := c.Next()
			if !ok {
				return c.Err()
			}
			out.Bars = append(out.Bars, bar.HeldBar)
		}
	})
	return out, err
}

// Keep writes one request's answer in one transaction: its bars merged into their day blocks
// (the later fetch of a minute wins, a changed close is kept in bar_revisions) and its window,
// one a start: a window whose final part reaches less far than the one stored from the same
// start leaves it (HeldWindow.Replaces), so a window known final is never narrowed.
func (s *Store) Keep(ctx context.Context, k feeds.Kept) error {
	w := feeds.WindowOf(k)
	final := w.Final()
	n := 0
	for _, b := range k.Bars {
		if b.Start.Before(final.To) {
			n++
		}
	}
	return s.write(ctx, func(tx wtx) error {
		if len(k.Bars) > 0 {
			if err := tx.serialize(ctx); err != nil {
				return err
			}
		}
		earlier, err := earlierSights(ctx, tx, k)
		if err != nil {
			return err
		}
		bars := map[string][]feeds.HeldBar{k.Symbol: feeds.HeldOf(k.Bars, k.Fetched, k.FinalTo)}
		if err := putBars(ctx, tx, k.Source, []string{k.Symbol}, bars, sight{span: k.Span, fetched: k.Fetched, finalTo: w.FinalTo}, earlier); err != nil {
			return err
		}
		var to, seen, fetched int64
		err = tx.QueryRow(ctx, `SELECT win_to, seen_to, fetched FROM coverage WHERE source = ? AND symbol = ? AND win_from = ?`,
			k.Source, k.Symbol, final.From.Unix()).Scan(&to, &seen, &fetched)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("reading coverage: %w", err)
		case !w.Replaces(feeds.HeldWindow{Span: market.Span{From: final.From, To: unix(max(seen, to))}, FinalTo: unix(to), Fetched: fetchedTime(fetched)}):
			return nil
		}
		row := []any{k.Source, k.Symbol, final.From.Unix(), final.To.Unix(), n, fetchedUnix(k.Fetched), k.Span.To.Unix()}
		if err := tx.upsert(ctx, coverageTable, [][]any{row}); err != nil {
			return fmt.Errorf("writing coverage: %w", err)
		}
		return nil
	})
}

// earlierSights are the fetches the store holds of k's source and symbol over k's window,
// sent before it: a bar k holds at a minute one of them saw empty appeared since.
func earlierSights(ctx context.Context, tx wtx, k feeds.Kept) ([]sight, error) {
	var out []sight
	err := tx.Query(ctx, `SELECT win_from, win_to, fetched, seen_to FROM coverage WHERE source = ? AND symbol = ? AND win_from < ? AND seen_to > ? AND fetched > 0 AND fetched < ?`,
		[]any{k.Source, k.Symbol, k.Span.To.Unix(), k.Span.From.Unix(), k.Fetched.Unix()}, func(r sqldb.Row) error {
			var from, to, fetched, seenTo int64
			if err := r.Scan(&from, &to, &fetched, &seenTo); err != nil {
				return err
			}
			out = append(out, sight{span: market.Span{From: unix(from), To: unix(max(to, seenTo))}, fetched: unix(fetched), finalTo: unix(to)})
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("reading coverage: %w", err)
	}
	return out, nil
}

// Revision is a stored bar whose close a later fetch changed.
type Revision struct {
	Source, Symbol string
	Minute         time.Time
	// Old is 0 for a bar that appeared at a minute an earlier fetch saw without one (an answer
	// then carried an earlier bar over it), New 0 for a bar a later fetch no longer holds.
	Old, New numeric.Scaled
	// OldFetched and Seen are when the old and the new close were fetched (zero: unknown);
	// OldFinal says the old close was final when fetched (its provider changed a finished bar).
	OldFetched, Seen time.Time
	OldFinal         bool
}

// revisedBar is a revision of one symbol's bar as a write found it.
type revisedBar struct {
	symbol string
	r      revision
}

// putRevisions keeps the revisions a write found: one per pair of fetches compared, so one
// already kept (another process wrote the same two fetches) is kept once.
func putRevisions(ctx context.Context, tx wtx, source string, revised []revisedBar) error {
	for _, x := range revised {
		o, n := x.r.old, x.r.new
		err := tx.Exec(ctx, `INSERT INTO bar_revisions (source, symbol, minute, seen, old_close, new_close, old_fetched, old_final)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source, symbol, minute, seen, old_fetched) DO NOTHING`,
			source, x.symbol, n.Start.Unix(), fetchedUnix(n.Fetched), int64(o.Close), int64(n.Close), fetchedUnix(o.Fetched), boolInt(o.Final))
		if err != nil {
			return err
		}
	}
	return nil
}

// Revisions lists the revised bars of symbol ("" every symbol) from source ("" every source)
// that start in [from, to), by symbol, source, minute and when seen.
func (s *Store) Revisions(ctx context.Context, source, symbol string, from, to time.Time) ([]Revision, error) {
	stmt := `SELECT source, symbol, minute, seen, old_close, new_close, old_fetched, old_final FROM bar_revisions WHERE minute >= ? AND minute < ?`
	args := []any{ceilUnix(from), ceilUnix(to)}
	if source != "" {
		stmt, args = stmt+` AND source = ?`, append(args, source)
	}
	if symbol != "" {
		stmt, args = stmt+` AND symbol = ?`, append(args, symbol)
	}
	rows, err := s.db.QueryContext(ctx, s.Q(stmt+` ORDER BY symbol, source, minute, seen`), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Revision
	for rows.Next() {
		var r Revision
		var m, seen, oldC, newC, oldF, oldFinal int64
		if err := rows.Scan(&r.Source, &r.Symbol, &m, &seen, &oldC, &newC, &oldF, &oldFinal); err != nil {
			return nil, err
		}
		r.Minute, r.Seen, r.OldFetched = unix(m), fetchedTime(seen), fetchedTime(oldF)
		r.Old, r.New, r.OldFinal = numeric.Scaled(oldC), numeric.Scaled(newC), oldFinal == 1
		out = append(out, r)
	}
	return out, rows.Err()
}
