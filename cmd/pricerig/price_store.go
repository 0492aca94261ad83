package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/feeds"
)

// priceFromStore is `pricerig price --db`: it prints the stored answer when the store can give
// it (done is true) and says that it came from the store; otherwise it says why not on stderr
// and the caller asks the sources.
func (a *app) priceFromStore(ctx context.Context, db string, spec *feeds.Spec, symbol string, minute time.Time, asJSON bool) (done bool, err error) {
	store, err := openHistory(db, failed)
	if err != nil {
		return false, err
	}
	defer store.Close()
	res, ok, note, err := store.Price(ctx, spec, symbol, minute)
	if err != nil {
		return false, failed("--db %s: %v", store.Path(), err)
	}
	if !ok {
		if note == "" {
			note = "the store does not hold the minute"
		}
		fmt.Fprintf(a.stderr, "pricerig price: %s: %s; asking the sources\n", store.Path(), note)
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
