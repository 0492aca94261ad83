package history

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/sqldb"
)

// Reading and writing the day blocks of bar_days and answer_days (see pack.go).

// dayRange is the first and last UTC day holding a minute of [from, to) (unix seconds).
func dayRange(from, to int64) (int64, int64) { return dayOf(from), dayOf(to - 1) }

// storedDays reads, inside a write transaction, the blocks of one key held in [first, last]:
// stmt selects day and data.
func storedDays(ctx context.Context, tx wtx, stmt string, args ...any) (map[int64][]byte, error) {
	out := map[int64][]byte{}
	err := tx.Query(ctx, stmt, args, func(r sqldb.Row) error {
		var day int64
		var data []byte
		if err := r.Scan(&day, &data); err != nil {
			return err
		}
		out[day] = slices.Clone(data)
		return nil
	})
	return out, err
}

// barDayRows packs one source's bars of one symbol into bar_days rows, merged over the blocks
// the store already holds for their days (a page's first and last days are usually shared
// with the page before and after): of two bars of one minute the one fetched later is kept, and
// a close it changed is a revision, as is a bar seen's fetch no longer returned (its day's block
// is written again without it) and one that appeared where an earlier fetch saw none (mergeBars).
func barDayRows(ctx context.Context, tx wtx, source, symbol string, bars []feeds.HeldBar, seen sight, earlier []sight) ([][]any, []revision, error) {
	bars = sortedBars(bars)
	var first, last int64
	switch {
	case len(bars) > 0 && !seen.fetched.IsZero():
		first, last = min(dayOf(bars[0].Start.Unix()), dayOf(seen.span.From.Unix())), max(dayOf(bars[len(bars)-1].Start.Unix()), dayOf(seen.span.To.Add(-time.Minute).Unix()))
	case len(bars) > 0:
		first, last = dayOf(bars[0].Start.Unix()), dayOf(bars[len(bars)-1].Start.Unix())
	case !seen.fetched.IsZero() && seen.span.To.After(seen.span.From):
		first, last = dayOf(seen.span.From.Unix()), dayOf(seen.span.To.Add(-time.Minute).Unix())
	default:
		return nil, nil, nil
	}
	held, err := storedDays(ctx, tx, `SELECT day, data FROM bar_days WHERE symbol = ? AND source = ? AND day >= ? AND day <= ?`,
		symbol, source, first, last)
	if err != nil {
		return nil, nil, err
	}
	days := make([]int64, 0, len(held)+1)
	for day := range held {
		days = append(days, day)
	}
	for _, b := range bars {
		days = append(days, dayOf(b.Start.Unix()))
	}
	slices.Sort(days)
	var rows [][]any
	var revised []revision
	for _, day := range slices.Compact(days) {
		n := 0
		for n < len(bars) && dayOf(bars[n].Start.Unix()) == day {
			n++
		}
		part := bars[:n]
		bars = bars[n:]
		var prev []feeds.HeldBar
		if old, ok := held[day]; ok {
			if prev, err = unpackBarDay(nil, day, old); err != nil {
				return nil, nil, fmt.Errorf("bars of %s %s on %s: %w", source, symbol, unix(day).Format(time.DateOnly), err)
			}
		}
		merged, r := mergeBars(prev, part, seen, earlier)
		if len(r) == 0 && len(part) == 0 {
			continue // a stored day the fetch left as it was
		}
		revised = append(revised, r...)
		rows = append(rows, []any{symbol, day, source, len(merged), packBarDay(day, merged)})
	}
	return rows, revised, nil
}

// answerDayRows packs one symbol's reconciled minutes (sorted) into answer_days rows, over
// the blocks the store holds for their days: a stored answer of a minute given is replaced
// with its quotes whole, the day's other minutes are kept.
func answerDayRows(ctx context.Context, tx wtx, ruleset int64, rows []AnswerRow) ([][]any, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	sym := rows[0].Symbol
	first, last := dayOf(rows[0].Minute.Unix()), dayOf(rows[len(rows)-1].Minute.Unix())
	held, err := storedDays(ctx, tx, `SELECT day, data FROM answer_days WHERE symbol = ? AND day >= ? AND day <= ?`, sym, first, last)
	if err != nil {
		return nil, err
	}
	var out [][]any
	var answers []dayAnswer
	for len(rows) > 0 {
		day := dayOf(rows[0].Minute.Unix())
		answers = answers[:0]
		n := 0
		for n < len(rows) && dayOf(rows[n].Minute.Unix()) == day {
			if rows[n].Symbol != sym {
				return nil, fmt.Errorf("answers of %s and %s in one write", sym, rows[n].Symbol)
			}
			answers = append(answers, dayAnswerOf(&rows[n], ruleset))
			n++
		}
		rows = rows[n:]
		if old, ok := held[day]; ok {
			var prev []dayAnswer
			if err := unpackAnswerDay(day, old, func(a dayAnswer) error { prev = append(prev, a); return nil }); err != nil {
				return nil, fmt.Errorf("answers of %s on %s: %w", sym, unix(day).Format(time.DateOnly), err)
			}
			answers = mergeAnswerDays(prev, answers)
		}
		out = append(out, []any{sym, day, len(answers), packAnswerDay(day, answers)})
	}
	return out, nil
}

// mergeAnswerDays is old with the minutes of add put over it, sorted by minute; of answers
// sharing a minute the last wins.
func mergeAnswerDays(old, add []dayAnswer) []dayAnswer {
	all := make([]dayAnswer, 0, len(old)+len(add))
	all = append(all, old...)
	all = append(all, add...)
	slices.SortStableFunc(all, func(a, b dayAnswer) int { return cmpInt(a.minute, b.minute) })
	out := all[:0]
	for i, a := range all {
		if i+1 < len(all) && all[i+1].minute == a.minute {
			continue
		}
		out = append(out, a)
	}
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// BarCursor streams stored bars in (symbol, minute, source) order out of their day blocks: the
// blocks of one symbol and day (one per source, read in source order) are unpacked together and
// merged by minute.
type BarCursor struct {
	rows     *sql.Rows
	from, to int64 // [from, to) unix seconds
	// the next block, read ahead
	nSym, nSrc string
	nDay       int64
	nData      []byte
	more       bool
	// the merged bars of the current symbol and day
	buf   []StoredBar
	pos   int
	err   error
	tmp   []feeds.HeldBar
	spare []StoredBar // the other buffer of mergeRuns
}

// openBars starts a cursor over the bars of symbol ("" every symbol) and source ("" every
// source) starting in [from, to) (unix seconds).
func (s *Store) openBars(ctx context.Context, symbol, source string, from, to int64) (*BarCursor, error) {
	return s.openBarsOn(ctx, s.db, symbol, source, from, to)
}

// openBarsOn is openBars reading through q: the store, or a read snapshot of it.
func (s *Store) openBarsOn(ctx context.Context, q querier, symbol, source string, from, to int64) (*BarCursor, error) {
	c := &BarCursor{from: from, to: to}
	if from >= to {
		return c, nil
	}
	first, last := dayRange(from, to)
	where, args := []string{"day >= ?", "day <= ?"}, []any{first, last}
	if symbol != "" {
		where, args = append(where, "symbol = ?"), append(args, symbol)
	}
	if source != "" {
		where, args = append(where, "source = ?"), append(args, source)
	}
	rows, err := q.QueryContext(ctx, s.Q(`SELECT symbol, day, source, data FROM bar_days WHERE `+strings.Join(where, " AND ")+` ORDER BY symbol, day, source`), args...)
	if err != nil {
		return nil, err
	}
	c.rows = rows
	c.advance()
	return c, nil
}

// advance reads the next block into the read-ahead.
func (c *BarCursor) advance() {
	c.more = c.rows.Next()
	if !c.more {
		c.err = c.rows.Err()
		return
	}
	var data sql.RawBytes
	if c.err = c.rows.Scan(&c.nSym, &c.nDay, &c.nSrc, &data); c.err != nil {
		c.more = false
		return
	}
	c.nData = append(c.nData[:0], data...)
}

// Next returns the next bar; ok is false at the end or on an error (see Err).
func (c *BarCursor) Next() (StoredBar, bool) {
	for c.pos >= len(c.buf) {
		if !c.fill() {
			return StoredBar{}, false
		}
	}
	b := c.buf[c.pos]
	c.pos++
	return b, true
}

// fill unpacks the blocks of the next symbol and day into buf.
func (c *BarCursor) fill() bool {
	c.buf, c.pos = c.buf[:0], 0
	if !c.more || c.err != nil {
		return false
	}
	sym, day := c.nSym, c.nDay
	// one sorted run per source, concatenated; each run's start in runs
	var runs []int
	for c.more && c.nSym == sym && c.nDay == day {
		var err error
		c.tmp, err = unpackBarDay(c.tmp[:0], day, c.nData)
		if err != nil {
			c.err = fmt.Errorf("bars of %s %s on %s: %w", c.nSrc, sym, unix(day).Format(time.DateOnly), err)
			return false
		}
		runs = append(runs, len(c.buf))
		for _, b := range c.tmp {
			if t := b.Start.Unix(); t >= c.from && t < c.to {
				c.buf = append(c.buf, StoredBar{Symbol: sym, Source: c.nSrc, HeldBar: b})
			}
		}
		c.advance()
		if c.err != nil {
			return false
		}
	}
	if len(runs) > 1 {
		c.mergeRuns(runs)
	}
	return true
}

// mergeRuns merges buf's runs (one per source, in source order, each sorted by minute) by
// minute, sources of one minute in name order: at each step the earliest head, the first run's
// on a tie.
func (c *BarCursor) mergeRuns(runs []int) {
	heads := slices.Clone(runs)
	ends := append(slices.Clone(runs[1:]), len(c.buf))
	out := c.spare[:0]
	for {
		best := -1
		for r := range heads {
			if heads[r] < ends[r] && (best < 0 || c.buf[heads[r]].Start.Before(c.buf[heads[best]].Start)) {
				best = r
			}
		}
		if best < 0 {
			break
		}
		out = append(out, c.buf[heads[best]])
		heads[best]++
	}
	c.buf, c.spare = out, c.buf
}

// Err is the error that ended the cursor, if any.
func (c *BarCursor) Err() error { return c.err }

// Close ends the cursor's query.
func (c *BarCursor) Close() {
	if c.rows != nil {
		c.rows.Close()
	}
}

// answerDays calls fn for each stored day answer of the query, by symbol then minute, with the
// ruleset texts by id.
func (s *Store) answerDays(ctx context.Context, q Query, fn func(symbol string, a *dayAnswer) error) error {
	var where []string
	var args []any
	if len(q.Symbols) > 0 {
		syms := slices.Clone(q.Symbols)
		slices.Sort(syms)
		syms = slices.Compact(syms)
		where = append(where, "symbol IN ("+strings.TrimSuffix(strings.Repeat("?,", len(syms)), ",")+")")
		for _, sym := range syms {
			args = append(args, sym)
		}
	}
	var from, to int64 = -1 << 62, 1 << 62
	if !q.From.IsZero() {
		from = ceilUnix(q.From)
	}
	if !q.To.IsZero() {
		to = ceilUnix(q.To)
	}
	if from >= to {
		return nil
	}
	if !q.From.IsZero() {
		where, args = append(where, "day >= ?"), append(args, dayOf(from))
	}
	if !q.To.IsZero() {
		where, args = append(where, "day <= ?"), append(args, dayOf(to-1))
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := s.db.QueryContext(ctx, s.Q(`SELECT symbol, day, data FROM answer_days`+cond+` ORDER BY symbol, day`), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		sym  string
		day  int64
		data sql.RawBytes
	)
	for rows.Next() {
		if err := rows.Scan(&sym, &day, &data); err != nil {
			return err
		}
		err := unpackAnswerDay(day, data, func(a dayAnswer) error {
			if a.minute < from || a.minute >= to {
				return nil
			}
			return fn(sym, &a)
		})
		if err != nil {
			return fmt.Errorf("answers of %s on %s: %w", sym, unix(day).Format(time.DateOnly), err)
		}
	}
	return rows.Err()
}

// rulesets reads every ruleset's text by id.
func (s *Store) rulesets(ctx context.Context) (map[int64]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, rules FROM rulesets`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var rules string
		if err := rows.Scan(&id, &rules); err != nil {
			return nil, err
		}
		out[id] = rules
	}
	return out, rows.Err()
}
