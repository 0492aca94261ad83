package history

import (
	"bytes"
	"context"
	"encoding/hex"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pricerig/pricerig/sources"
)

// A store holding an answers block in the first format (written before quotes kept their kind)
// reads it back on either database, through Answers and the exports, with no kind; a day
// written since holds the second format beside it.
func TestOldAnswerBlocksReadFromAStore(t *testing.T) {
	eachBackend(t, func(t *testing.T, be storeBackend) {
		ctx := context.Background()
		store := be.open(t, "old.db")
		id, err := store.RulesetID(ctx, "r")
		if err != nil || id != 1 {
			t.Fatalf("ruleset %d, %v", id, err)
		}
		old, _ := hex.DecodeString(oldAnswerBlock)
		day, want := oldAnswers()
		err = store.write(ctx, func(tx wtx) error {
			return tx.upsert(ctx, answerDaysTable, [][]any{{"TSLA", day, len(want), old}})
		})
		if err != nil {
			t.Fatal(err)
		}
		newer := want[0]
		newer.minute += daySeconds
		newer.quotes = slices.Clone(newer.quotes)
		newer.quotes[2].kind = sources.KindRateLimited
		err = store.write(ctx, func(tx wtx) error {
			return tx.upsert(ctx, answerDaysTable, [][]any{{"TSLA", day + daySeconds, 1, packAnswerDay(day+daySeconds, []dayAnswer{newer})}})
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []Answer
		if err := store.Answers(ctx, Query{}, func(a Answer) error { got = append(got, a); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("%d answers, want 3", len(got))
		}
		for i, w := range append(want, newer) {
			if g := got[i]; !reflect.DeepEqual(g, w.answer("TSLA", "r")) {
				t.Errorf("answer %d:\n%+v\nwant\n%+v", i, g, w.answer("TSLA", "r"))
			}
		}
		if q := got[0].Quotes[2]; q.Err != "fetch failed: 503 Service Unavailable" || q.Kind != "" {
			t.Errorf("the old block's failed quote: %+v", q)
		}
		if q := got[2].Quotes[2]; q.Kind != sources.KindRateLimited {
			t.Errorf("the new block's failed quote: %+v", q)
		}
		var out bytes.Buffer
		if n, err := store.Export(ctx, &out, FormatCSV, Query{}); err != nil || n != 3 {
			t.Fatalf("export: %d rows, %v", n, err)
		}
		if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 4 || !strings.HasSuffix(lines[1], ",false,") ||
			!strings.HasSuffix(lines[3], ",false,alphavantage:rate_limited") {
			t.Errorf("the CSV export:\n%s", out.String())
		}
	})
}
