// Package rig is the job-2 runner: a Runner answers AgentRig's "Verify a price" tasks for a set of
// rigs. It follows the contract, prices each task it is drawn for, journals the answer and salt,
// commits, reveals, settles and keeps its accounts, deciding every step from the chain's state,
// so a restart, a dropped RPC or a reorg only delays it.
//
// The parts it runs on are packages of their own, each importing nothing of the runner:
// rig/task (task inputs and the spec's refusal rules, commitments, EIP-712, keys, whose turn it
// is), rig/txm (the transaction manager: one key's transactions, checks before sending, a node's
// errors), rig/journal (the durable journal with its lease, accounts and migrations) and
// rig/agentrig (the AgentRig contract: binding, client, Deployment adapter, simulated chain).
// rig/contract holds the reference contract's source and build; rig/devnet runs the whole life of
// tasks offline.
//
// Read it top-down in this order:
//
//   - runner.go: Config, NewRunner, Run and Step (one look at the chain: every open task read in
//     one batch, nothing the journal already holds written again).
//   - heads.go: new heads by eth_subscribe over websockets (a step per block, receipts looked
//     for per block), polling alone when the node has none or the subscription drops; several
//     RPC endpoints are rig/rpcpool's, which the runner takes as its one node.
//   - scan.go: following the chain (the Deployment's events) from where a new rig starts (an
//     hour back, by time) and each task's input.
//   - phases.go: the phase machine: what each phase of a task asks of us (draw, commit, reveal,
//     settle), the draw/settle schedule's turn, and a follower noting the stages; pace.go: how
//     long a rank waits and when its turns come round (onTurn), the wait stretched to how long
//     our own draws and settles take to be mined; quiet.go: the step sent on a quiet
//     Nitro chain whose head is older than what the clock says is due. The numbers compared are
//     the network's (agentrig.ChainClock: on Robinhood Chain the L1 block number each head
//     carries).
//   - answer.go: pricing a drawn task once for all our rigs (and once for all the tasks of one
//     symbol and minute), the self-check, journaling the answer and salt before anything is sent.
//   - send.go: how commits and reveals leave (one path for a rig's own transaction and for a
//     relayed commitMany/revealMany), draw and settle, and the background send jobs; batch.go:
//     the answers a step has ready sent as one commitMany/revealMany or one transaction each,
//     whichever the estimates say costs less gas.
//   - settle.go: what a settled task stored against what we answered.
//   - the accounts the runner keeps in its journal are rig/accounts' Accountant, a value it holds
//     (books): every mined transaction of its senders with what it served and cost, a
//     settlement's payouts, and what a reorg dropped or moved taken back out (counted in the
//     metrics' reorged corrections).
//   - leader.go: instances taking turns on a shared journal (the runner's side of the journal's
//     lease); warm.go: a follower pricing the tasks its rigs are drawn for, so a takeover answers
//     without a cold start; metrics.go: the Prometheus series.
package rig
