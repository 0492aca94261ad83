// Command pricerig prices NVDA, TSLA and SPY at any UTC minute from public quote sources,
// answers AgentRig's job 2 ("Verify a price") as a rig, backfills price history and audits
// itself. Run `pricerig --help` for the commands.
//
// Each command is a thin cobra command: it parses its flags and calls a runX(ctx, …) here or in
// the package that owns the work (feeds, feeds/backfill, audit, rig, rig/devnet); decisions of
// the product live in those packages, not here. One file a command (or a family of them):
//
//   - main.go: the root command, exit codes (badInput, failed) and signals; usage.go: cobra's
//     refusals as usage errors; profile.go: the hidden --cpuprofile; version.go; sources.go: the
//     one import that links every source type.
//   - config.go: specFlags (--config, --sim) and `config check`; chain.go: chainFlags, keyFlags
//     and sendFlags, the checked connection to a node and the plan-confirm-send path every chain
//     command shares; endpoints.go: several RPC endpoints (--rpc repeated or a comma list,
//     networks.NAME.rpcs) dialed as one rig/rpcpool Pool, and the page's view of them.
//   - price.go: `price`; price_store.go: its store-first pricer (history.StoreFirst) and a stored
//     answer printed; ledger_db.go: the bar ledger and the one default store (--db, the per-user store, --no-cache);
//     history_db.go: stores and journals a command only reads; bars.go: `bars`; agree.go:
//     `agree`.
//   - backfill.go: `backfill` and `backfill export`; backfill_progress.go: its progress bars
//     and log lines.
//   - audit.go: `audit`, one shot or on a schedule, and its report and exit code.
//   - rig.go: `rig`, the job-2 runner with its journal, page and metrics.
//   - doctor.go: `doctor`, the operator's preflight; explain.go: `explain`, an answer derived
//     again from the bar ledger.
//   - devnet.go: `devnet`, the whole life of tasks offline (devnet_run.go: its flags checked, the
//     run and what it prints); sim.go: `sim`, the provider
//     simulator.
//   - operator.go: `operator` (register, stake, deactivate, withdraw, fee, status);
//     operator_accounts.go: status's accounts from the journal.
//   - order.go: `order`, `answer` and `refund`; task.go: `task`; commitment.go: `commitment`;
//     sign.go: `sign commit|reveal|operator-fee`.
package main
