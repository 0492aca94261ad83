// Package journal is the rig's durable memory: what it answered for each task and with which
// salt, how far each task got, the leader lease of instances sharing one database, the accounts
// (every mined transaction and every settlement's payouts, to the wei), the audit reports it
// keeps and the marks of answers taken before their sources were final. One DBJournal holds it all, on SQLite (one machine) or PostgreSQL (instances on several
// machines), with the same tables and numbered migrations on both. It imports nothing of the
// rig's other packages: the runner (rig) writes it, the audit and the operator's page read it.
//
//   - journal.go: State and Entry (one rig on one task), the Journal the runner writes through,
//     DBJournal's reads and writes of tasks and cursors (the same SQL on both databases).
//   - open.go: opening either database through internal/sqldb (refusing one that holds no
//     journal, or a newer one); sqlite.go and postgres.go: each database's numbered migrations.
//   - lease.go: the lease instances take turns by (Lease, Fence, Leaser) and the fence a write
//     that leads to a transaction is checked against.
//   - accounting.go: the accounts' tables and records (TxRecord, Payout; the Accounts the runner
//     writes), their writes, and their reads since a time or a block.
//   - ledger.go: the Ledger the accounts add up to, per task, per rig and in total (BuildLedger).
//   - audit.go: the audit reports the journal keeps for the operator's page.
//   - unsettled.go: the marks of tasks answered before their sources were final enough
//     (UnsettledMark), with every source's bar, finality and fetch time, for the audit.
package journal
