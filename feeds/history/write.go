package history

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// The store's API for its writer, the backfill (feeds/backfill): what a plan reads (Fetched), a
// fetched window or page (PutWindow), reconciled answers (RulesetID, PutAnswers) and the runs'
// records (BeginRun, EndRun). Each write is one transaction.

// FetchedWindow is one window's result as the backfill writes it, or one page of a paged
// provider's window.
type FetchedWindow struct {
	Source   string
	Span     Span
	Symbols  []string                 // feed symbols
	Bars     map[string][]sources.Bar // by feed symbol, raw, inside Span
	LeadIn   bool                     // fetched only to carry a price into the range's first minutes
	Requests int                      // the HTTP requests it took (a page's: the page's)
	// Fetched is when it was fetched: every bar is kept with it, final (a backfill asks only
	// for minutes whose bars are final). Zero: unknown.
	Fetched time.Time
	// A page (paged providers): Cover is, by symbol, the part of the window the bars written so
	// far prove (a symbol absent has none proven yet); WindowBars and WindowRequests are the
	// window's totals so far; More says the window has pages still to come, and Next, when the
	// provider's token can resume them, where they go on.
	Page                       bool
	Cover                      map[string]Span
	WindowBars, WindowRequests int
	More                       bool
	Next                       string
}

// PutWindow writes a window's bars, its coverage and its fetch record in one transaction, and
// returns how many bars it held: a window (or a page with what it proves) is in the store whole
// or not at all, which is what makes a re-run after a kill exact.
func (s *Store) PutWindow(ctx context.Context, w FetchedWindow) (int, error) {
	total := 0
	for _, sym := range w.Symbols {
		total += len(w.Bars[sym])
	}
	cov := make([][]any, 0, len(w.Symbols))
	record := []any{w.Source, strings.Join(w.Symbols, ","), w.Span.From.Unix(), w.Span.To.Unix(), boolInt(w.LeadIn), w.Requests, total}
	fetched := fetchedUnix(w.Fetched)
	if w.Page {
		// A page proves part of its window per symbol; a later page of the same window proves
		// more from the same start and replaces the row. The window's record keeps its totals.
		for _, sym := range w.Symbols {
			if c, ok := w.Cover[sym]; ok && c.From.Before(c.To) {
				cov = append(cov, []any{w.Source, sym, c.From.Unix(), c.To.Unix(), w.WindowBars, fetched, c.To.Unix()})
			}
		}
		record[5], record[6] = w.WindowRequests, w.WindowBars
	} else {
		for _, sym := range w.Symbols {
			cov = append(cov, []any{w.Source, sym, w.Span.From.Unix(), w.Span.To.Unix(), len(w.Bars[sym]), fetched, w.Span.To.Unix()})
		}
	}
	err := s.write(ctx, func(tx wtx) error {
		if total > 0 {
			if err := tx.serialize(ctx); err != nil {
				return err
			}
		}
		bars := make(map[string][]feeds.HeldBar, len(w.Symbols))
		for _, sym := range w.Symbols {
			bars[sym] = feeds.HeldOf(w.Bars[sym], w.Fetched, farFuture)
		}
		// a page may stop short of its window: it says nothing of the minutes without a bar
		if err := putBars(ctx, tx, w.Source, w.Symbols, bars, sight{}, nil); err != nil {
			return err
		}
		if err := tx.upsert(ctx, coverageTable, cov); err != nil {
			return fmt.Errorf("writing coverage: %w", err)
		}
		if err := tx.upsert(ctx, windowsTable, [][]any{record}); err != nil {
			return fmt.Errorf("writing the window: %w", err)
		}
		if w.Page {
			if err := putCursor(ctx, tx, w); err != nil {
				return fmt.Errorf("writing the window's cursor: %w", err)
			}
		}
		return nil
	})
	return total, err
}

// farFuture is the FinalTo of a backfill's bars: every one is final.
var farFuture = time.Unix(1<<40, 0)

// putBars merges a source's bars of each symbol into their day blocks and keeps the revisions
// the merge found.
func putBars(ctx context.Context, tx wtx, source string, symbols []string, bars map[string][]feeds.HeldBar, seen sight, earlier []sight) error {
	var rows [][]any
	var revised []revisedBar
	for _, sym := range symbols {
		r, rev, err := barDayRows(ctx, tx, source, sym, bars[sym], seen, earlier)
		if err != nil {
			return fmt.Errorf("writing bars: %w", err)
		}
		rows = append(rows, r...)
		for _, x := range rev {
			revised = append(revised, revisedBar{sym, x})
		}
	}
	if err := tx.upsert(ctx, barDaysTable, rows); err != nil {
		return fmt.Errorf("writing bars: %w", err)
	}
	if err := putRevisions(ctx, tx, source, revised); err != nil {
		return fmt.Errorf("writing revised bars: %w", err)
	}
	return nil
}

// putCursor keeps where a paged window stopped: the provider's token after this page while pages
// are still to come, nothing once the last one is written.
func putCursor(ctx context.Context, tx wtx, w FetchedWindow) error {
	key := []any{w.Source, strings.Join(w.Symbols, ","), w.Span.From.Unix()}
	if w.More && w.Next != "" {
		return tx.Exec(ctx, `INSERT INTO page_cursors (source, symbols, win_from, win_to, next) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (source, symbols, win_from) DO UPDATE SET win_to = excluded.win_to, next = excluded.next`,
			append(key, w.Span.To.Unix(), w.Next)...)
	}
	return tx.Exec(ctx, `DELETE FROM page_cursors WHERE source = ? AND symbols = ? AND win_from = ?`, key...)
}

// Cursor is a paged window stopped between two pages, and the provider's token for the next;
// Bars and Requests are the window's totals over the pages committed.
type Cursor struct {
	Symbols        []string
	Span           Span
	Next           string
	Bars, Requests int
}

// Fetched is what the store holds of one source's fetching, read at one instant: the windows
// fetched of each symbol (as stored, not merged) and the paged windows stopped between two pages.
type Fetched struct {
	Coverage map[string][]Span // by feed symbol
	Cursors  []Cursor
}

// beforeCoverageRead, when set (by a test), runs inside Fetched between its read of the cursors
// and its read of the coverage: where another writer's commit once split what a plan saw.
var beforeCoverageRead func()

// Fetched reads what the store holds of a source's fetching, for a plan. Its reads see the store
// at one instant (a read snapshot): a page another process commits meanwhile — coverage for some
// symbols of its window and the cursor that claims the rest — is in the plan whole or not at
// all. Read one after the other, a plan could see the page's coverage without its cursor, take
// the rest of the window for a window of its own, and write coverage of another batch over the
// page's (issue 26: 4044 bars recorded for a window of 12636).
func (s *Store) Fetched(ctx context.Context, source string) (Fetched, error) {
	var out Fetched
	err := s.db.ReadSnapshot(ctx, func(tx *sql.Tx) error {
		var err error
		if out.Cursors, err = s.cursors(ctx, tx, source); err != nil {
			return err
		}
		if beforeCoverageRead != nil {
			beforeCoverageRead()
		}
		out.Coverage, err = s.coverage(ctx, tx, source, "")
		return err
	})
	return out, err
}

// Cursors lists a source's stopped windows.
func (s *Store) Cursors(ctx context.Context, source string) ([]Cursor, error) {
	return s.cursors(ctx, s.db, source)
}

// querier is what a read runs on: the store's database or a read snapshot of it.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (s *Store) cursors(ctx context.Context, q querier, source string) ([]Cursor, error) {
	rows, err := q.QueryContext(ctx, s.Q(`SELECT c.symbols, c.win_from, c.win_to, c.next, COALESCE(w.bars, 0), COALESCE(w.requests, 0)
FROM page_cursors c LEFT JOIN windows w ON w.source = c.source AND w.symbols = c.symbols AND w.win_from = c.win_from
WHERE c.source = ? ORDER BY c.win_from, c.symbols`), source)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Cursor
	for rows.Next() {
		var syms, next string
		var a, b, bars, requests int64
		if err := rows.Scan(&syms, &a, &b, &next, &bars, &requests); err != nil {
			return nil, err
		}
		out = append(out, Cursor{strings.Split(syms, ","), Span{From: unix(a), To: unix(b)}, next, int(bars), int(requests)})
	}
	return out, rows.Err()
}

// RulesetID returns the id of a ruleset (see RulesText), adding it when new.
func (s *Store) RulesetID(ctx context.Context, rules string) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx wtx) error {
		if err := tx.Exec(ctx, `INSERT INTO rulesets (rules) VALUES (?) ON CONFLICT (rules) DO NOTHING`, rules); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT id FROM rulesets WHERE rules = ?`, rules).Scan(&id)
	})
	return id, err
}

// AnswerRow is one reconciled minute ready to write.
type AnswerRow struct {
	Symbol   string
	Minute   time.Time
	Session  market.Session
	Result   feeds.Result
	Complete bool   // see Answer.Complete
	Reason   string // Result's reason, and why the answer is incomplete
	Ords     []int  // each quote's place in the spec
}

// PutAnswers writes the answers of one symbol (and their quotes) in one transaction, replacing
// what the store held for those minutes, quotes and all: a source dropped from the spec leaves
// no stale provenance. rows are sorted by minute.
func (s *Store) PutAnswers(ctx context.Context, ruleset int64, rows []AnswerRow) error {
	return s.write(ctx, func(tx wtx) error {
		if err := tx.serialize(ctx); err != nil {
			return err
		}
		days, err := answerDayRows(ctx, tx, ruleset, rows)
		if err != nil {
			return fmt.Errorf("writing answers: %w", err)
		}
		if err := tx.upsert(ctx, answerDaysTable, days); err != nil {
			return fmt.Errorf("writing answers: %w", err)
		}
		return nil
	})
}

// BeginRun records a run's start with its arguments (JSON) and returns its id; EndRun records
// its end and summary (JSON).
func (s *Store) BeginRun(ctx context.Context, started time.Time, args string) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx wtx) error {
		return tx.QueryRow(ctx, `INSERT INTO runs (started, args) VALUES (?, ?) RETURNING id`, started.UTC().Format(time.RFC3339Nano), args).Scan(&id)
	})
	return id, err
}

// EndRun records the end of run id and its summary.
func (s *Store) EndRun(ctx context.Context, id int64, finished time.Time, summary string) error {
	return s.write(ctx, func(tx wtx) error {
		return tx.Exec(ctx, `UPDATE runs SET finished = ?, summary = ? WHERE id = ?`, finished.UTC().Format(time.RFC3339Nano), summary, id)
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
