// Package feeds turns the spec (sources.yaml) into prices: it loads and validates the spec
// (Load, with every problem located by file, line and key), undoes split adjustment (Split,
// Factor, Unadjust), and reconciles the sources of a symbol at a minute into one exact answer.
//
// The pure parts work on bars and quotes already in hand, so backfill and audit can run them on
// stored data: PriceAt (the price-at-minute rule: the bar at the minute, else the latest earlier
// one within max_carry), Unadjust, and Reconcile (lower median, outliers beyond outlier_bps
// dropped, lower median again, min_sources). The Reconciler (New, Price) fetches every source of
// a feed concurrently under one deadline, with an injected clock, and keeps every source's
// provenance in its Result.
package feeds
