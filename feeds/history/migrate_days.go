package history

import (
	"context"
	"fmt"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/sqldb"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// packRowTables is migration 3's data step: it packs the rows of bars, answers and quotes into
// the day blocks of bar_days and answer_days (the SQL after it drops the row tables). It reads
// each table whole through one cursor, keeping only packed blocks in memory (a year of three
// symbols is a few tens of MB of blocks), then writes the blocks: PostgreSQL's connection runs
// one statement at a time, so nothing is written while a cursor is open.
func packRowTables(ctx context.Context, tx sqldb.Tx) error {
	var out [][]any // bar_days rows, then answer_days rows (by their width)
	var (
		curSym, curSrc string
		curDay         int64           = -1
		bars           []feeds.HeldBar // final, fetched unknown: the rows kept no more
	)
	flushBars := func() {
		if len(bars) > 0 {
			out = append(out, []any{curSym, curDay, curSrc, len(bars), packBarDay(curDay, bars)})
		}
		bars = bars[:0]
	}
	err := tx.Query(ctx, `SELECT symbol, source, minute, close, volume FROM bars ORDER BY symbol, source, minute`, nil, func(r sqldb.Row) error {
		var sym, src string
		var m, c, v int64
		if err := r.Scan(&sym, &src, &m, &c, &v); err != nil {
			return err
		}
		if d := dayOf(m); sym != curSym || src != curSrc || d != curDay {
			flushBars()
			curSym, curSrc, curDay = sym, src, d
		}
		bars = append(bars, feeds.HeldBar{Bar: sources.Bar{Start: unix(m), Close: numeric.Scaled(c), Volume: v}, Final: true})
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading bars: %w", err)
	}
	flushBars()
	nBarRows := len(out)

	var (
		answers []dayAnswer
		aSym    string
		aDay    int64 = -1
	)
	flushAnswers := func() {
		if len(answers) > 0 {
			out = append(out, []any{aSym, aDay, len(answers), packAnswerDay(aDay, answers)})
		}
		answers = answers[:0]
	}
	// the join hands each answer once per quote (once with NULLs when it has none), in order
	err = tx.Query(ctx, `
SELECT a.symbol, a.minute, a.session, a.agreed, a.price, a.median, a.survivors, a.complete, a.reason, a.ruleset,
       COALESCE(q.ord, -1), COALESCE(q.source, ''), COALESCE(q.status, ''), COALESCE(q.price, 0), COALESCE(q.bar, 0),
       COALESCE(q.centibps, -1), COALESCE(q.err, '')
FROM answers a LEFT JOIN quotes q ON q.symbol = a.symbol AND q.minute = a.minute
ORDER BY a.symbol, a.minute, q.ord`, nil, func(r sqldb.Row) error {
		var (
			sym, session, reason, qSrc, qStatus, qErr string
			minute, price, median, rid                int64
			qOrd, qPrice, qBar, qCenti                int64
			agreed, survivors, complete               int64
		)
		if err := r.Scan(&sym, &minute, &session, &agreed, &price, &median, &survivors, &complete, &reason, &rid,
			&qOrd, &qSrc, &qStatus, &qPrice, &qBar, &qCenti, &qErr); err != nil {
			return err
		}
		if d := dayOf(minute); sym != aSym || d != aDay {
			flushAnswers()
			aSym, aDay = sym, d
		}
		if n := len(answers); n == 0 || answers[n-1].minute != minute {
			answers = append(answers, dayAnswer{minute: minute, session: market.Session(session), agreed: agreed == 1,
				price: numeric.Scaled(price), median: numeric.Scaled(median), survivors: int(survivors), complete: complete == 1,
				reason: reason, ruleset: rid})
		}
		if qOrd >= 0 {
			a := &answers[len(answers)-1]
			a.quotes = append(a.quotes, dayQuote{ord: int(qOrd), source: qSrc, status: feeds.Status(qStatus),
				price: numeric.Scaled(qPrice), bar: qBar, centibps: qCenti, err: qErr})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading answers and quotes: %w", err)
	}
	flushAnswers()

	for i, row := range out {
		stmt := `INSERT INTO answer_days (symbol, day, answers, data) VALUES (?, ?, ?, ?)`
		if i < nBarRows {
			stmt = `INSERT INTO bar_days (symbol, day, source, bars, data) VALUES (?, ?, ?, ?, ?)`
		}
		if err := tx.Exec(ctx, stmt, row...); err != nil {
			return fmt.Errorf("writing day blocks: %w", err)
		}
	}
	return nil
}
