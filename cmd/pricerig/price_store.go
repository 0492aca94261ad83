package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
)

// priceFromStore prints the answer a backfill stored when the store can give it (done is true)
// and says that it came from the store; otherwise it says why not on stderr (of a store --db
// named), and the caller derives the price from the store's bars, asking the sources for what
// it lacks.
func (a *app) priceFromStore(ctx context.Context, store *history.Store, explicit bool, spec *feeds.Spec, symbol string, minute time.Time, asJSON bool) (done bool, err error) {
	res, ok, note, err := store.Price(ctx, spec, symbol, minute)
	if err != nil {
		return false, failed("--db %s: %v", store.Path(), err)
	}
	if !ok {
		if note == "" {
			note = "the store does not hold the minute"
		}
		if explicit { // the per-user cache holds no backfill: it has nothing to say
			fmt.Fprintf(a.stderr, "pricerig price: %s: %s; deriving it from the bars, asking the sources for what the store lacks\n", store.Path(), note)
		}
		return false, nil
	}
	if asJSON {
		out := priceOutputOf(res)
		out.Store = store.Path()
		if err := json.NewEncoder(a.stdout).Encode(out); err != nil {
			return true, err
		}
	} else {
		printPrice(a.stdout, res)
		fmt.Fprintf(a.stdout, "from the store %s (backfilled; reconciled by the same rules)\n", store.Path())
	}
	if !res.Agreed {
		return true, failed("no price for %s at %s: %s", symbol, minute.Format(time.RFC3339), res.Reason)
	}
	return true, nil
}
