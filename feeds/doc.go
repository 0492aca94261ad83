// Package feeds turns the spec (sources.yaml) into prices: it loads and validates the spec
// (Load, with every problem located by file, line and key), undoes split adjustment (Split,
// Factor, Unadjust), and reconciles the sources of a symbol at a minute into one exact answer.
//
// The pure parts work on bars and quotes already in hand, so backfill and audit can run them on
// stored data: PriceAt (the price-at-minute rule: the bar at the minute, else the latest earlier
// one within max_carry), Finality (whether a source's bars are its last word on the minute: its
// final_after passed, or a later bar shows it published past it), Unadjust, and Reconcile (lower
// median, outliers beyond outlier_bps dropped, lower median again, min_sources). The Reconciler
// (New, Price; reconciler.go, its rounds of requests and its wait for finality in gather.go)
// fetches every source of a feed concurrently under one deadline, with an injected clock, and
// keeps every source's provenance in its Result: its bar, whether it was final, when it was
// fetched. A source not final yet is not_final, never carried and never counted; WaitFinal waits
// for it, LastResort counts provisional bars when a deadline comes first.
package feeds
