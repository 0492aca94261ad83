package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/sqldb"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// Evidence (issue 25): for every answer a rig commits, the ledger keeps the bars its derivation
// read for as long as the evidence row is kept, so `pricerig explain --task` derives the answer
// again offline months later. Prune drops what no evidence pins once it is older than the
// ledger's retention, and evidence older than its own (by default never: the journal keeps every
// task).

// Evidence is one answer's claim on the ledger: the task, what it answered and when, and the
// span of the symbol's ledger its derivation read (feeds.Rederivation.Span, or the bars the
// answer used up to its effective minute).
type Evidence struct {
	Task     uint64
	Symbol   string
	Minute   time.Time
	Answered time.Time
	Price    numeric.Scaled
	Span     market.Span
	// Counted names the sources whose prices the answer was reconciled from
	// (feeds.Result.Counted), in spec order; empty for evidence kept before schema version 6.
	Counted []string
}

// day is the UTC midnight of t, unix seconds: the key of t's day block.
func day(t time.Time) int64 { return t.UTC().Truncate(24 * time.Hour).Unix() }

// KeepEvidence pins an answer's days of the ledger. A task's first evidence stays (its rigs
// answer alike, and the first is the answer committed).
func (s *Store) KeepEvidence(ctx context.Context, e Evidence) error {
	last := e.Span.To.Add(-time.Nanosecond)
	if !e.Span.To.After(e.Span.From) {
		last = e.Span.From
	}
	return s.write(ctx, func(tx wtx) error {
		return tx.Exec(ctx, `INSERT INTO evidence (task, symbol, minute, answered, price, read_from, read_to, day_from, day_to, counted)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (task) DO NOTHING`,
			int64(e.Task), e.Symbol, e.Minute.Unix(), e.Answered.Unix(), int64(e.Price), e.Span.From.Unix(), ceilUnix(e.Span.To), day(e.Span.From), day(last),
			strings.Join(e.Counted, ","))
	})
}

// EvidenceOf reads a task's evidence; ok is false when none is kept.
func (s *Store) EvidenceOf(ctx context.Context, task uint64) (e Evidence, ok bool, err error) {
	var minute, answered, price, from, to int64
	var counted string
	err = s.db.QueryRowContext(ctx, s.Q(`SELECT symbol, minute, answered, price, read_from, read_to, counted FROM evidence WHERE task = ?`), int64(task)).
		Scan(&e.Symbol, &minute, &answered, &price, &from, &to, &counted)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, nil
	}
	if err != nil {
		return e, false, err
	}
	e.Task, e.Minute, e.Answered, e.Price = task, unix(minute), unix(answered), numeric.Scaled(price)
	e.Span, e.Counted = market.Span{From: unix(from), To: unix(to)}, countedOf(counted)
	return e, true, nil
}

// Evidences lists the evidence kept, by task.
func (s *Store) Evidences(ctx context.Context) ([]Evidence, error) {
	var out []Evidence
	rows, err := s.db.QueryContext(ctx, s.Q(`SELECT task, symbol, minute, answered, price, read_from, read_to, counted FROM evidence ORDER BY task`))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var e Evidence
		var task, minute, answered, price, from, to int64
		var counted string
		if err := rows.Scan(&task, &e.Symbol, &minute, &answered, &price, &from, &to, &counted); err != nil {
			return nil, err
		}
		e.Task, e.Minute, e.Answered, e.Price = uint64(task), unix(minute), unix(answered), numeric.Scaled(price)
		e.Span, e.Counted = market.Span{From: unix(from), To: unix(to)}, countedOf(counted)
		out = append(out, e)
	}
	return out, rows.Err()
}

// Retention says how long a ledger keeps what it holds: Bars, the bars, windows and revisions
// no evidence pins (by the day they are of); Evidence, the evidence itself (by when it was
// answered). Zero keeps forever.
type Retention struct {
	Bars, Evidence time.Duration
}

// DefaultRetention keeps the bars no answer used for 30 days (longer than any carry or a rig's
// re-look at a task, and a refetch is cheap next to a quota) and the evidence as long as the
// journal keeps its task: for ever.
var DefaultRetention = Retention{Bars: 30 * 24 * time.Hour}

// Pruned counts what Prune dropped.
type Pruned struct {
	Evidence, BarDays, Windows, Revisions int
}

// unpinned is the condition that no evidence holds the row's symbol and day (a column expression).
func unpinned(dayExpr string) string {
	return ` AND NOT EXISTS (SELECT 1 FROM evidence e WHERE e.symbol = t.symbol AND ` + dayExpr + ` BETWEEN e.day_from AND e.day_to)`
}

// notBackfilled is the condition that no backfill's window (a row of windows, which only
// PutWindow writes: a ledger's Keep never does) of the row's source overlaps [from, to) (column
// expressions in unix seconds): what a backfill wrote is history, never the ledger's to prune,
// whatever URL the rig and the backfill were each given for the store they share.
func notBackfilled(from, to string) string {
	return ` AND NOT EXISTS (SELECT 1 FROM windows w WHERE w.source = t.source AND w.win_from < ` + to + ` AND w.win_to > ` + from + `)`
}

// Prune drops, at now, the evidence older than r.Evidence and then the bar blocks, windows and
// revisions of days older than r.Bars that no evidence left pins and no backfill wrote
// (notBackfilled): a rig's ledger in the store a backfill fills prunes only its own bars.
func (s *Store) Prune(ctx context.Context, r Retention, now time.Time) (Pruned, error) {
	var p Pruned
	err := s.write(ctx, func(tx wtx) error {
		p = Pruned{}
		if err := tx.serialize(ctx); err != nil {
			return err
		}
		if r.Evidence > 0 {
			n, err := deleted(ctx, tx, `evidence t WHERE answered < ?`, now.Add(-r.Evidence).Unix())
			if err != nil {
				return err
			}
			p.Evidence = n
		}
		if r.Bars <= 0 {
			return nil
		}
		before := day(now.Add(-r.Bars))
		var err error
		if p.BarDays, err = deleted(ctx, tx, `bar_days t WHERE day < ?`+unpinned("t.day")+notBackfilled("t.day", "t.day + 86400"), before); err != nil {
			return err
		}
		// a window (a day, a run of dates, a month) goes when it ended before the cut and no
		// evidence's days overlap its own
		if p.Windows, err = deleted(ctx, tx, `coverage t WHERE seen_to <= ? AND win_to <= ? AND NOT EXISTS (SELECT 1 FROM evidence e
WHERE e.symbol = t.symbol AND e.day_from <= t.seen_to - 1 AND e.day_to + 86400 > t.win_from)`+notBackfilled("t.win_from", "t.seen_to"), before, before); err != nil {
			return err
		}
		p.Revisions, err = deleted(ctx, tx, `bar_revisions t WHERE minute < ?`+unpinned("(t.minute - t.minute % 86400)")+notBackfilled("t.minute", "t.minute + 60"), before)
		return err
	})
	return p, err
}

// deleted deletes the rows of "table t WHERE …" and counts them.
func deleted(ctx context.Context, tx sqldb.Tx, from string, args ...any) (int, error) {
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM `+from, args...).Scan(&n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	// DELETE takes no alias on SQLite: the rows are named by the subquery's alias instead
	table, where, _ := strings.Cut(from, " t WHERE ")
	return n, tx.Exec(ctx, `DELETE FROM `+table+` WHERE EXISTS (SELECT 1 FROM `+table+` t WHERE `+where+` AND `+sameRow(table)+`)`, args...)
}

// sameRow matches the subquery's row t to the outer row of table by its primary key.
func sameRow(table string) string {
	keys := map[string][]string{
		"evidence":      {"task"},
		"bar_days":      {"symbol", "day", "source"},
		"coverage":      {"source", "symbol", "win_from"},
		"bar_revisions": {"source", "symbol", "minute", "seen", "old_fetched"},
	}[table]
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += " AND "
		}
		out += "t." + k + " = " + table + "." + k
	}
	return out
}

// countedOf reads the counted column: nil for ”.
func countedOf(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// EvidenceFor is the evidence of task answered res at at: the days res was derived from and the
// sources it counted.
func EvidenceFor(task uint64, res feeds.Result, at time.Time) Evidence {
	return Evidence{Task: task, Symbol: res.Symbol, Minute: res.Minute, Answered: at, Price: res.Price, Span: res.Read(), Counted: res.Counted()}
}

// Evidencer keeps a rig's answers' evidence in the store (rig.EvidenceKeeper).
type Evidencer struct {
	Store *Store
	// Backfill, when set, is the backfill store the rig answers from first (rig --db,
	// StoreFirst under Spec). An answer it gave was derived from its bars, which Store (the
	// rig's ledger) may lack: they are copied into Store with the evidence, so explain --task
	// derives the answer again from the ledger alone.
	Backfill *Store
	Spec     *feeds.Spec
}

// KeepEvidence keeps the evidence of task answered res at at, with the backfill's bars it was
// derived from when the answer is the backfill store's. The evidence is kept even when the copy
// fails (both errors are returned): it still names the answer and pins its days.
func (e Evidencer) KeepEvidence(ctx context.Context, task uint64, res feeds.Result, at time.Time) error {
	ev := EvidenceFor(task, res, at)
	copied := e.copyBackfill(ctx, res, ev.Span)
	return errors.Join(copied, e.Store.KeepEvidence(ctx, ev))
}

// copyBackfill copies into the ledger the backfill's bars over span when res is the backfill
// store's answer. StoreFirst answered from the store exactly when the store answers the minute
// under the spec's rules; the same price here is that answer (or, had a backfill written the
// minute since, one its bars derive alike).
func (e Evidencer) copyBackfill(ctx context.Context, res feeds.Result, span market.Span) error {
	if e.Backfill == nil || e.Backfill == e.Store {
		return nil
	}
	stored, ok, _, err := e.Backfill.Price(ctx, e.Spec, res.Symbol, res.Minute)
	if err != nil {
		return fmt.Errorf("reading the backfill store's answer: %w", err)
	}
	if !ok || stored.Price != res.Price {
		return nil
	}
	if err := e.Store.CopyHeld(ctx, e.Backfill, res.Symbol, quotedSources(res), span); err != nil {
		return fmt.Errorf("copying the backfill's bars into the ledger: %w", err)
	}
	return nil
}

// quotedSources names the sources res quotes, in its order.
func quotedSources(res feeds.Result) []string {
	out := make([]string, 0, len(res.Quotes))
	for _, q := range res.Quotes {
		out = append(out, q.Source)
	}
	return out
}

// CopyHeld copies what from holds of symbol for each source over span into s: the bars, with
// their fetch times and finality, and the windows fetched, cut to span (a window copied whole
// would claim minutes whose bars were not copied were final without a trade). A window s
// already holds from the same start stays; a bar s holds fetched later stays (the later fetch
// of a minute wins, as in Keep). A source s holds exactly as from does is left alone.
func (s *Store) CopyHeld(ctx context.Context, from *Store, symbol string, srcs []string, span market.Span) error {
	for _, source := range srcs {
		held, err := from.Held(ctx, source, symbol, span.From, span.To)
		if err != nil {
			return err
		}
		if len(held.Bars) == 0 && len(held.Windows) == 0 {
			continue
		}
		// the rig's ledger may be the backfill's own database (under another URL): it holds
		// the same already, and a copy would only add cut windows beside the backfill's
		if mine, err := s.Held(ctx, source, symbol, span.From, span.To); err != nil {
			return err
		} else if reflect.DeepEqual(mine, held) {
			continue
		}
		err = s.write(ctx, func(tx wtx) error {
			if len(held.Bars) > 0 {
				if err := tx.serialize(ctx); err != nil {
					return err
				}
			}
			// no sight: like a backfill page, a copy says nothing of the minutes it lacks
			if err := putBars(ctx, tx, source, []string{symbol}, map[string][]feeds.HeldBar{symbol: held.Bars}, sight{}, nil); err != nil {
				return err
			}
			for _, w := range held.Windows {
				winFrom, finalTo, seenTo := market.Later(w.Span.From, span.From), market.Earlier(w.FinalTo, span.To), market.Earlier(w.Span.To, span.To)
				if !winFrom.Before(seenTo) {
					continue
				}
				finalTo = market.Later(finalTo, winFrom)
				n := 0
				for _, b := range held.Bars {
					if !b.Start.Before(winFrom) && b.Start.Before(finalTo) {
						n++
					}
				}
				if err := tx.Exec(ctx, `INSERT INTO coverage (source, symbol, win_from, win_to, bars, fetched, seen_to) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (source, symbol, win_from) DO NOTHING`, source, symbol, winFrom.Unix(), finalTo.Unix(), n, fetchedUnix(w.Fetched), seenTo.Unix()); err != nil {
					return fmt.Errorf("writing coverage: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// PruneEvery prunes the store by r now and then every period until ctx ends, logging what it
// dropped (a failure is logged and tried again next time).
func (s *Store) PruneEvery(ctx context.Context, r Retention, period time.Duration, now func() time.Time, log *slog.Logger) {
	for {
		p, err := s.Prune(ctx, r, now())
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("pruning the bar ledger", "error", err)
		case p != (Pruned{}):
			log.Info("pruned the bar ledger", "bar_days", p.BarDays, "windows", p.Windows, "revisions", p.Revisions, "evidence", p.Evidence)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(period):
		}
	}
}
