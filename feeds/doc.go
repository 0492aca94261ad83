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
//
// Rederive (rederive.go, over Offline: the spec's sources over a ledger, with a budget that
// sends nothing) is Price's computation again from the ledger alone, for `pricerig explain`:
// the same plan, Derive and Reconcile, with each source's trace (its bars around the minute
// and the derivation that picked one).
//
// Files:
//   - spec.go: Spec and what it holds (networks, the job, sources, feeds, rules); spec_load.go:
//     Load and LoadFile, the loader walking the YAML; spec_sources.go: a source entry checked
//     against its type's factory (keys, options, quota, final_after); spec_yaml.go: the loader's
//     YAML helpers; problem.go: Problem and LoadError, each problem with its file, line and key.
//   - splits.go: Split, Factor and Unadjust (undoing split adjustment); minute.go: ParseTime and
//     ParseMinute, the minutes commands and inputs name.
//   - reconcile.go: Rules, Quote, Status, Result, PriceAt and Reconcile, the pure rules over
//     quotes in hand; derive.go: Derive and Derivation, a quote from what the ledger holds of a
//     source.
//   - ledger.go: the bar ledger's interface and MemoryLedger; reconciler.go: the Reconciler
//     (New, Price, the sources built from the spec) and its rounds; gather.go: a round's sources
//     asked at once and the wait for finality; fetch.go: one source's fetch through the ledger;
//     reread.go: Reread, every source asked again for bars the ledger holds final (the audit's
//     revisions); rederive.go: Rederive and Offline, Price's computation again from
//     the ledger alone (explain).
package feeds
