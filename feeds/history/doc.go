// Package history is pricerig's price history: a store of every source's 1-minute bars (the bar
// ledger: each bar with when it was fetched and whether it was final, and the closes later
// fetches changed), of the reconciled answer of every minute with its provenance, and of the
// sources' request counts against their quotas. feeds/backfill fills it; `pricerig
// price --db` and the rig answer from it (Price), the audit reads it to find gaps, and `backfill
// export` writes it out for other tools.
//
// The store is a SQLite file (one machine, the default) or a PostgreSQL database (several
// machines filling and reading one history); both hold the same tables, made by the same
// migrations, opened and versioned through internal/sqldb. Coverage, windows and runs are plain
// rows; bars and answers are packed in day blocks (pack.go). Times are unix seconds of the
// minute's start (UTC) and prices are integers × 10^8.
//
// Files:
//   - store.go: Store, Open and OpenExisting, the write transaction and its retries.
//   - schema.go: the schema version, the migrations, the tables loaded in bulk.
//   - store_sqlite.go, store_postgres.go: each database's write transaction (SQLite's raw
//     driver path; PostgreSQL's COPY through staging tables).
//   - write.go: the writer's API — what a plan reads (Fetched), a fetched window or page
//     (PutWindow), answers (RulesetID, PutAnswers), runs (BeginRun, EndRun).
//   - read.go: the readers — Coverage, Gaps, Bars, ReadBars, HasBar, Answers, Lookup.
//   - ledger.go: the store as the bar ledger (feeds.Ledger): Held, Keep, and the closes a later
//     fetch changed (Revisions).
//   - budget.go: the store as the sources' request budget (sources.Budget): the quota counts
//     and breakers every process on the store shares (Spend, Trip, Standing).
//   - evidence.go: each committed answer's evidence (KeepEvidence, EvidenceOf, Evidences;
//     Evidencer for the rig, which copies a backfill answer's bars into the ledger: CopyHeld)
//     and Prune, which drops what no evidence pins once older than the
//     retention; export_evidence.go: ExportEvidence (`backfill export --evidence`).
//   - price.go: Price, the stored answer as the live reconciler would give it, and RulesText.
//     StoreFirst there is the store-first pricing that `price --db` and the rig answer by.
//   - days.go, pack.go: the day blocks, read, merged and packed; migrate_days.go: the
//     migration that packed the former row tables.
//   - spans.go: Span and the coverage arithmetic (Merge, Missing, Find), market's.
//   - export.go, parquet.go: Export as CSV, JSON lines or Parquet.
package history
