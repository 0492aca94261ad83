package history

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// answersSQLite is Answers on a SQLite store. It reads answers and quotes as two ordered
// streams in one read transaction and merges them (both tables are keyed by symbol and minute),
// rather than joining them: the join handed every answer's columns, and its ruleset's text,
// over again with each of its quotes, and looked the quotes up answer by answer. The streams
// come through the driver's own rows (see bulk.go). On PostgreSQL, whose connection serves one
// result at a time, Answers keeps the join.
func (s *Store) answersSQLite(ctx context.Context, q Query, fn func(Answer) error) error {
	var where []string
	var args []driver.Value
	if !q.From.IsZero() {
		where = append(where, "minute >= ?")
		args = append(args, ceilUnix(q.From))
	}
	if !q.To.IsZero() {
		where = append(where, "minute < ?")
		args = append(args, ceilUnix(q.To))
	}
	// one pair of streams per symbol asked, in symbol order (each stream then follows its
	// table's key, with no sort), or one pair over every symbol
	groups := [][]driver.Value{nil}
	if len(q.Symbols) > 0 {
		syms := slices.Clone(q.Symbols)
		slices.Sort(syms)
		syms = slices.Compact(syms)
		groups = groups[:0]
		for _, sym := range syms {
			groups = append(groups, append([]driver.Value{sym}, args...))
		}
		where = append([]string{"symbol = ?"}, where...)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(rawDriverConn)
		if !ok {
			return fmt.Errorf("the SQLite driver's connection (%T) lacks the bulk interfaces", dc)
		}
		tx, err := c.BeginTx(ctx, driver.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback() // it only read
		rules, err := readRulesets(ctx, c)
		if err != nil {
			return err
		}
		for _, g := range groups {
			if g == nil {
				g = args
			}
			if err := mergeAnswers(ctx, c, cond, g, rules, fn); err != nil {
				return err
			}
		}
		return nil
	})
}

func readRulesets(ctx context.Context, c rawDriverConn) (map[int64]string, error) {
	rows, err := c.QueryContext(ctx, `SELECT id, rules FROM rulesets`, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]string{}
	dest := make([]driver.Value, 2)
	for {
		if err := rows.Next(dest); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		out[asInt(dest[0])] = asText(dest[1])
	}
}

// mergeAnswers streams the answers and the quotes cond selects, both in key order, and hands
// each answer with its quotes (in spec order) to fn. A quote without its answer is skipped, as
// the join skipped it.
func mergeAnswers(ctx context.Context, c rawDriverConn, cond string, args []driver.Value, rules map[int64]string, fn func(Answer) error) error {
	ans, err := c.QueryContext(ctx, `SELECT symbol, minute, session, agreed, price, median, survivors, complete, reason, ruleset FROM answers`+cond+` ORDER BY symbol, minute`, named(args))
	if err != nil {
		return err
	}
	defer ans.Close()
	quo, err := c.QueryContext(ctx, `SELECT symbol, minute, source, status, price, bar, centibps, err FROM quotes`+cond+` ORDER BY symbol, minute, ord`, named(args))
	if err != nil {
		return err
	}
	defer quo.Close()
	a, qv := make([]driver.Value, 10), make([]driver.Value, 8)
	haveQuote := false
	nextQuote := func() error {
		err := quo.Next(qv)
		haveQuote = err == nil
		if err == io.EOF {
			return nil
		}
		return err
	}
	if err := nextQuote(); err != nil {
		return err
	}
	for {
		if err := ans.Next(a); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		sym, minute := asText(a[0]), asInt(a[1])
		rid := asInt(a[9])
		rs, ok := rules[rid]
		if !ok {
			return fmt.Errorf("answer %s %d names ruleset %d, which the store lacks", sym, minute, rid)
		}
		cur := Answer{
			Symbol: sym, Minute: unix(minute), Session: market.Session(asText(a[2])), Agreed: asInt(a[3]) == 1,
			Price: numeric.Scaled(asInt(a[4])), Median: numeric.Scaled(asInt(a[5])), Survivors: int(asInt(a[6])),
			Complete: asInt(a[7]) == 1, Reason: asText(a[8]), Rules: rs,
		}
		for haveQuote {
			qs, qm := asText(qv[0]), asInt(qv[1])
			if qs > sym || (qs == sym && qm > minute) {
				break
			}
			if qs == sym && qm == minute {
				q := Quote{Source: asText(qv[2]), Status: feeds.Status(asText(qv[3])), Price: numeric.Scaled(asInt(qv[4])),
					DistanceCentiBps: asInt(qv[6]), Err: asText(qv[7])}
				if bar := asInt(qv[5]); bar != 0 {
					q.BarTime = unix(bar)
				}
				cur.Quotes = append(cur.Quotes, q)
			}
			if err := nextQuote(); err != nil {
				return err
			}
		}
		if err := fn(cur); err != nil {
			return err
		}
	}
}

// asInt and asText read a column the driver returned: an INTEGER as int64, TEXT as string
// (NULL, which no column of these tables holds, reads as zero).
func asInt(v driver.Value) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

func asText(v driver.Value) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return ""
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}
