// Package rig is pricerig's chain side: everything it needs to take part in AgentRig as a job-2
// rig (answering tasks) and as an orderer or operator (ordering, registering, staking).
//
// Read it top-down in this order:
//
// The protocol and the chain
//
//   - chain.go: Chain, the calls the seeds define (order, draw, commit, reveal, settle,
//     commitMany, revealMany, phaseOf, answerOf), implemented by *Contract.
//   - deployment.go: Deployment, the one adapter for what the seeds leave open (how a rig learns
//     of tasks and that it was drawn, a task's windows and masks, a job's rigs, which relayed
//     entries were skipped). deployment_reference.go is the reference contract's; a contract that
//     exposes these differently needs one file like it, set in Config.Deployment.
//   - contract.go: *Contract and Backend, what the rig calls on a node; order.go, operator.go:
//     the orderer's and operator's calls and views; plan.go: a call simulated, estimated and
//     priced before it is sent (Prepare); network.go: the networks by name.
//   - txm.go: Sender, one key's transactions (nonces, fees, stuck replacement, receipts);
//     txm_check.go: a call simulated at the pending state and estimated before it is sent, many
//     in one JSON-RPC batch; txm_rebroadcast.go: a waiting transaction sent again, for a node
//     that lost it; txm_stale.go: the versions of a transaction Send left unmined watched until
//     mined (and journaled) or passed over; rpcerrors.go: a node's errors sorted into the kinds the sender tells apart
//     (unreachable by the error's type, a refused transaction by the node's words); revert.go: a
//     revert told by the node's error code and data, and its reason decoded.
//
// The answer
//
//   - input.go: task inputs and the spec's refusal rules; commitment.go: commitments and salts;
//     eip712.go: the EIP-712 digests operators sign, keys.go: loading keys.
//
// The runner (a Runner answers a job's tasks for a set of rigs)
//
//   - runner.go: Config, NewRunner, Run and Step (one look at the chain: every open task read in
//     one batch, nothing the journal already holds written again).
//   - heads.go: new heads by eth_subscribe over websockets (a step per block, receipts looked
//     for per block), polling alone when the node has none or the subscription drops.
//   - scan.go: following the chain (the Deployment's events) and each task's input.
//   - phases.go: the phase machine: what each phase of a task asks of us (draw, commit, reveal,
//     settle) and the draw/settle schedule's turn (schedule.go ranks the rigs).
//   - answer.go: pricing a drawn task once for all our rigs (and once for all the tasks of one
//     symbol and minute), the self-check, journaling the answer and salt before anything is sent.
//   - send.go: how commits and reveals leave (one path for a rig's own transaction and for a
//     relayed commitMany/revealMany), draw and settle, and the background send jobs; batch.go:
//     the answers a step has ready sent as one commitMany/revealMany or one transaction each,
//     whichever the estimates say costs less gas.
//   - settle.go: what a settled task stored against what we answered.
//   - accounting.go: the accounts (every mined transaction with its purpose, tasks, rigs and
//     cost; each settled task's payouts); accounting_ledger.go: the Ledger they add up to, per
//     task, per rig and in total, in wei; accounting_runner.go: what the runner journals
//     from its senders' receipts (OnMined) and a settlement's events (the Deployment's PayoutReader); accounting_reorg.go: the transactions
//     and settlements a reorg dropped or moved taken out of the accounts (and the metrics'
//     reorged corrections); receipt.go: the L1 part of a rollup's receipt.
//   - journal.go: the durable journal (its states and entries, their reads and writes, the same
//     SQL on both databases); journal_sqlite.go and journal_postgres.go: opening each database
//     and its numbered migrations; journal_audit.go: the audit reports it keeps. lease.go and
//     leader.go: instances taking turns on a shared journal; warm.go: a follower pricing the
//     tasks its rigs are drawn for, so a takeover answers without a cold start; metrics.go: the Prometheus series.
//
// Sub-packages: agentrig (the contract's abigen binding, its enumerations and a simulated chain),
// contract (the reference contract's source and build), devnet (the whole life of a task
// offline).
package rig
