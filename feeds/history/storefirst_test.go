package history_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// countingPricer stands for the reconciler: it answers every minute with its own price and
// counts the minutes it was asked.
type countingPricer struct{ asked []time.Time }

func (p *countingPricer) Price(_ context.Context, symbol string, minute time.Time, _ ...feeds.PriceOption) (feeds.Result, error) {
	p.asked = append(p.asked, minute)
	return feeds.Result{Symbol: symbol, Minute: minute, Agreed: true, Price: numeric.MustPrice("1.5")}, nil
}

// The one store-first rule (issue 27 item 4: price --db and the rig decided it apart): a minute
// the store holds complete under the spec's own rules is answered from the store and the sources
// are not asked; a minute the store lacks, or holds under other rules or incomplete, is asked of
// Next, after Missed heard why; an error Missed returns ends the call with Next not asked.
func TestStoreFirstAnswersFromTheStoreOnlyUnderTheSpecsRules(t *testing.T) {
	ctx := context.Background()
	spec, err := feeds.Load([]byte(alpacaSpec), feeds.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	store := openStore(t, filepath.Join(t.TempDir(), "prices.db"))
	stored, other, incomplete, absent := nyTime(2026, time.October, 5, 10, 0), nyTime(2026, time.October, 5, 10, 1), nyTime(2026, time.October, 5, 10, 2), nyTime(2026, time.October, 5, 10, 3)
	put := func(rules string, minute time.Time, complete bool) {
		t.Helper()
		id, err := store.RulesetID(ctx, rules)
		if err != nil {
			t.Fatal(err)
		}
		res := feeds.Result{Symbol: "NVDA", Minute: minute, Effective: minute, Session: market.Regular, Agreed: true, Price: numeric.MustPrice("187.25"), Median: numeric.MustPrice("187.25"), Survivors: 1}
		if err := store.PutAnswers(ctx, id, []history.AnswerRow{{Symbol: "NVDA", Minute: minute, Session: market.Regular, Result: res, Complete: complete}}); err != nil {
			t.Fatal(err)
		}
	}
	put(history.RulesText(spec, nil), stored, true)
	put(history.RulesText(spec, nil), incomplete, false)
	put(strings.Replace(history.RulesText(spec, nil), "outlier_bps=25", "outlier_bps=50", 1), other, true)

	next := &countingPricer{}
	var missed []string
	var fromStore []time.Time
	p := history.StoreFirst{Store: store, Spec: spec, Next: next,
		Stored: func(res feeds.Result) { fromStore = append(fromStore, res.Minute) },
		Missed: func(_ string, minute time.Time, why string, err error) error {
			if err != nil {
				t.Errorf("%s: the store could not be read: %v", minute, err)
			}
			missed = append(missed, why)
			return nil
		},
	}
	res, wasStored, err := p.Answer(ctx, "NVDA", stored)
	if err != nil || !wasStored || res.Price != numeric.MustPrice("187.25") || len(next.asked) != 0 {
		t.Fatalf("a stored minute: %v stored=%v price %s, the sources asked %d times; want the store's 187.25 and no request", err, wasStored, res.Price, len(next.asked))
	}
	for _, m := range []time.Time{other, incomplete, absent} {
		res, wasStored, err := p.Answer(ctx, "NVDA", m)
		if err != nil || wasStored || res.Price != numeric.MustPrice("1.5") {
			t.Errorf("%s: %v stored=%v price %s; want the sources' 1.5", m, err, wasStored, res.Price)
		}
	}
	if len(next.asked) != 3 || len(fromStore) != 1 || !fromStore[0].Equal(stored) {
		t.Errorf("the sources were asked %d times (want 3) and the store answered %v (want %s)", len(next.asked), fromStore, stored)
	}
	if len(missed) != 3 || !strings.Contains(missed[0], "other rules") || !strings.Contains(missed[1], "incomplete") || missed[2] != "" {
		t.Errorf("why the store did not answer: %q; want other rules, incomplete, and \"\" for a minute it lacks", missed)
	}

	stop := errors.New("the store named on the command line must be read")
	p.Missed = func(string, time.Time, string, error) error { return stop }
	if _, _, err := p.Answer(ctx, "NVDA", absent); !errors.Is(err, stop) || len(next.asked) != 3 {
		t.Errorf("Missed's error: got %v with the sources asked %d times; want it returned and no request", err, len(next.asked))
	}
}
