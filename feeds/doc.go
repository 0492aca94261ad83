// Package feeds turns the spec (sources.yaml) into prices: it loads and validates the spec
// (Load, with every problem located by file, line and key), undoes split adjustment (Split,
// Factor, Unadjust), and reconciles the sources of a symbol at a minute into one exact answer.
//
// The pure parts work on bars and quotes already in hand, so backfill and audit can run them on
// stored data: PriceAt (the price-at-minute rule: the bar at the minute, else the latest earlier
// one within max_carry), Derive (that rule over what the bar ledger holds of a source, and
// whether it is its last word on the minute: each bar as final as it was when fetched, the
// absence of a trade final once final_after passed or a later bar of the same request shows the
// source published past it), Unadjust, and Reconcile (lower median, outliers beyond outlier_bps
// dropped, lower median again, min_sources).
//
// The bar ledger (ledger.go: Ledger, Held, Kept, MemoryLedger; the history store is the one
// processes share) keeps every bar a source returned with when it was fetched and whether it was
// final. The Reconciler (New, Price; reconciler.go, its rounds and its wait for finality in
// gather.go, a source's fetch in fetch.go) derives every quote from the ledger: it reads what the
// ledger holds, asks a source only for what it lacks (the provider's whole request unit: the
// minute's date, a run of dates, a month; a day still growing from its last final bar), keeps
// the answer, and derives again. It asks every source of a feed concurrently under one
// deadline, with an injected clock, and keeps every source's provenance in its Result: its bar,
// whether it was final, when it was fetched. A source not final yet is not_final, never carried
// and never counted; WaitFinal waits for it, LastResort counts provisional bars when a deadline
// comes first.
package feeds
