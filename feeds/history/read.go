package history

import (
	"context"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// The store's readers: the coverage of a source (Coverage, Gaps), its bars (Bars, ReadBars,
// HasBar) and the stored answers (Answers, Lookup, CompleteAnswers); Price (price.go) and Export
// (export.go, parquet.go) are built on them.

// Coverage lists the windows fetched for a source and symbol, sorted, as stored (not merged).
func (s *Store) Coverage(ctx context.Context, source, symbol string) ([]Span, error) {
	cov, err := s.coverage(ctx, s.db, source, symbol)
	return cov[symbol], err
}

// coverage reads a source's coverage of symbol ("" every symbol), by symbol, each sorted.
func (s *Store) coverage(ctx context.Context, q querier, source, symbol string) (map[string][]Span, error) {
	// a row with no final part is a request of minutes not final yet: nothing is covered
	stmt, args := `SELECT symbol, win_from, win_to FROM coverage WHERE source = ? AND win_to > win_from`, []any{source}
	if symbol != "" {
		stmt, args = stmt+` AND symbol = ?`, append(args, symbol)
	}
	rows, err := q.QueryContext(ctx, s.Q(stmt+` ORDER BY symbol, win_from`), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]Span{}
	for rows.Next() {
		var sym string
		var a, b int64
		if err := rows.Scan(&sym, &a, &b); err != nil {
			return nil, err
		}
		out[sym] = append(out[sym], Span{From: unix(a), To: unix(b)})
	}
	return out, rows.Err()
}

// Gaps lists the parts of span, in the given sessions, that hold no fetched window of a source
// and symbol: what the audit reports as missing history.
func (s *Store) Gaps(ctx context.Context, source, symbol string, span Span, sessions []market.Session) ([]Span, error) {
	cov, err := s.Coverage(ctx, source, symbol)
	if err != nil {
		return nil, err
	}
	var out []Span
	for _, g := range Merge(cov, sessions).Missing(span, sessions) {
		if from, to, ok := market.TrimToSessions(g.From, g.To, sessions); ok {
			out = append(out, Span{From: from, To: to})
		}
	}
	return out, nil
}

// HasBar reports whether a source has a bar of symbol at minute.
func (s *Store) HasBar(ctx context.Context, symbol, source string, minute time.Time) (bool, error) {
	c, err := s.openBars(ctx, symbol, source, minute.Unix(), minute.Unix()+1)
	if err != nil {
		return false, err
	}
	defer c.Close()
	_, ok := c.Next()
	return ok, c.Err()
}

// StoredBar is one stored bar, with when it was fetched and whether it was final then.
type StoredBar struct {
	Symbol string
	Source string
	feeds.HeldBar
}

// Bars calls fn for every stored bar of symbol starting in [from, to), in time order (sources
// of one minute by name); source "" means every source, symbol "" every symbol (by symbol,
// then time).
func (s *Store) Bars(ctx context.Context, symbol, source string, from, to time.Time, fn func(StoredBar) error) error {
	c, err := s.openBars(ctx, symbol, source, ceilUnix(from), ceilUnix(to))
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		b, ok := c.Next()
		if !ok {
			return c.Err()
		}
		if err := fn(b); err != nil {
			return err
		}
	}
}

// Quote is one source's part in a stored answer.
type Quote struct {
	Source  string
	Ord     int // the source's place among the spec's sources
	Status  feeds.Status
	Price   numeric.Scaled // 0 without a price
	BarTime time.Time      // zero without a price
	// DistanceCentiBps is the distance to the answer (or the median when there is none) in
	// hundredths of a basis point; -1 without a price.
	DistanceCentiBps int64
	Err              string
	// Kind is what kind of failure the quote's request was (feeds.Quote.Kind): set when a
	// window failed to fetch, "" otherwise and in answers stored before kinds were kept. Tell
	// failures apart by it, never by Err.
	Kind sources.ErrorKind
}

// Answer is the stored reconciled price of one symbol at one minute.
type Answer struct {
	Symbol    string
	Minute    time.Time
	Session   market.Session
	Agreed    bool
	Price     numeric.Scaled // the answer when Agreed
	Median    numeric.Scaled
	Survivors int
	// Complete says every source the live reconciler would ask had a definite quote when the
	// minute was reconciled: no window was missing or failed, and no source was left out. Only a
	// complete answer is the one `pricerig price` would give.
	Complete bool
	Reason   string
	Rules    string // the ruleset it was reconciled under (see RulesText)
	Quotes   []Quote
}

// Lookup returns the stored answer of symbol at minute; ok is false when the store has none.
func (s *Store) Lookup(ctx context.Context, symbol string, minute time.Time) (a Answer, ok bool, err error) {
	err = s.Answers(ctx, Query{Symbols: []string{symbol}, From: minute, To: minute.Add(time.Minute)}, func(x Answer) error {
		a, ok = x, true
		return nil
	})
	return a, ok, err
}

// Query selects stored answers: zero fields select everything.
type Query struct {
	Symbols  []string
	From, To time.Time // [From, To)
}

// Answers calls fn for every stored answer the query selects, ordered by symbol then minute,
// streaming: a year of answers never sits in memory.
func (s *Store) Answers(ctx context.Context, q Query, fn func(Answer) error) error {
	rules, err := s.rulesets(ctx)
	if err != nil {
		return err
	}
	return s.answerDays(ctx, q, func(sym string, a *dayAnswer) error {
		rs, ok := rules[a.ruleset]
		if !ok {
			return fmt.Errorf("answer %s %d names ruleset %d, which the store lacks", sym, a.minute, a.ruleset)
		}
		return fn(a.answer(sym, rs))
	})
}

// CompleteAnswers counts the stored answers of symbol in [from, to) that are complete and were
// reconciled under a ruleset.
func (s *Store) CompleteAnswers(ctx context.Context, symbol string, from, to time.Time, ruleset int64) (int, error) {
	n := 0
	err := s.answerDays(ctx, Query{Symbols: []string{symbol}, From: from, To: to}, func(_ string, a *dayAnswer) error {
		if a.complete && a.ruleset == ruleset {
			n++
		}
		return nil
	})
	return n, err
}

// ReadBars opens a cursor over the stored bars Bars would hand fn, for a reader that takes them
// one at a time beside another walk (the backfill's sweep of the minutes). Close it when done.
func (s *Store) ReadBars(ctx context.Context, symbol, source string, from, to time.Time) (*BarCursor, error) {
	return s.openBars(ctx, symbol, source, ceilUnix(from), ceilUnix(to))
}
