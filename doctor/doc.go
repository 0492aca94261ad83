// Package doctor is `pricerig doctor`: an operator's preflight. Before a stake is at risk it
// checks that this machine, these keys, this node and these databases will answer correctly, each
// check with a verdict (ok, warn, fail), what it found and the one thing to do about it:
//
//   - every source of the spec with one request for a few minutes of one symbol of its feed: its
//     key variables set, the key accepted, the plan entitled to 1-minute bars (told by the
//     adapters' typed errors: sources.ErrNotEntitled under a 401's ErrUnauthorized), the
//     provider reachable, and its latest bar's age against its final_after (sources.go);
//   - each source's requests left by its quota and its breaker, read from the ledger price and
//     the rig spend from, the doctor's own request spent there too (quota.go);
//   - this machine's clock against the providers' Date headers and the chain head's time
//     (clock.go);
//   - with a chain: the node's chain id, the contract's code, job 2 against the spec, the
//     operators' rigs and their stake, the gas key's balance in days and the break-even gas
//     price (chain.go, rigs.go); with several RPC endpoints, each one's chain id, head and lag
//     (endpoints.go);
//   - the rig's journal and the price history: there, reachable, writable (a write rolled back),
//     their schema current, and the leases of instances sharing a PostgreSQL journal
//     (stores.go).
//
// It sits with the audit: it reads the journal, the history and the chain through the AgentRig
// client, never the transaction manager, and it sends nothing. Its report is kept in the journal
// (when there and current) for the operator's page. report.go writes it for a person; its JSON is
// MarshalJSON's.
package doctor
