package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
)

// storeUnreadable is a store --db named that could not be read: price fails (exit 1) rather
// than ask the sources, as it did before the store-first rule moved to history.StoreFirst.
type storeUnreadable struct{ err error }

func (e *storeUnreadable) Error() string { return e.err.Error() }

// storeFirst is price's store-first pricer: a backfilled minute needs no fetch. Why the store
// could not answer is said on stderr (of a store --db named: of the per-user store,
// which mostly holds bars price fetched, it would say it on most runs), and the price is then derived from the store's bars,
// the sources asked for what it lacks.
func (a *app) storeFirst(store *history.Store, explicit bool, spec *feeds.Spec, next history.Pricer) history.StoreFirst {
	return history.StoreFirst{Store: store, Spec: spec, Next: next,
		Missed: func(_ string, _ time.Time, why string, err error) error {
			if err != nil {
				return &storeUnreadable{err}
			}
			if why == "" {
				why = "the store does not hold the minute"
			}
			if explicit {
				fmt.Fprintf(a.stderr, "pricerig price: %s: %s; deriving it from the bars, asking the sources for what the store lacks\n", store.Path(), why)
			}
			return nil
		},
	}
}

// printStored prints an answer taken from the store and says that it came from there.
func (a *app) printStored(store *history.Store, res feeds.Result, asJSON bool) error {
	if asJSON {
		out := priceOutputOf(res)
		out.Store = store.Path()
		if err := json.NewEncoder(a.stdout).Encode(out); err != nil {
			return err
		}
	} else {
		printPrice(a.stdout, res)
		fmt.Fprintf(a.stdout, "from the store %s (backfilled; reconciled by the same rules)\n", store.Path())
	}
	if !res.Agreed {
		return failed("no price for %s at %s: %s", res.Symbol, res.Minute.Format(time.RFC3339), res.Reason)
	}
	return nil
}
