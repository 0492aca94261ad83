// Package txm is the transaction manager: it sends one key's transactions to a node and sees
// them mined, whatever the node does meanwhile, and checks a call before anything is sent. It
// knows no contract and imports nothing of the rig's other packages: the AgentRig client
// (rig/agentrig) builds the Calls it sends and registers the contract's errors
// (RegisterErrors), and the runner (rig) hooks its lease, its accounts and its heads in
// through SenderConfig.
//
//   - sender.go: Sender, one key's transactions (nonces handed out in order, EIP-1559 fees
//     asked once a block, a stuck transaction replaced with a higher fee, a nonce gap resent,
//     unreachable nodes retried, receipts waited for), and the node calls it needs (TxChain).
//   - check.go: a call simulated at the pending state and its gas estimated before it is sent
//     (Check), for many calls in one JSON-RPC batch (CheckMany).
//   - rebroadcast.go: a waiting transaction sent again as it is, for a node that lost it.
//   - stale.go: the versions of a transaction Send left unmined, watched until mined (and
//     reported) or passed over.
//   - rpcerrors.go: a node's errors sorted into the kinds the sender tells apart (unreachable by
//     the error's type, a refused transaction by the node's words).
//   - revert.go: a revert told by the node's error code and data, its reason decoded, and the
//     registry of contracts' custom errors.
//   - plan.go: a Call simulated, estimated and priced before a person confirms it (Prepare), sent
//     (SendPlan) and what it cost once mined (MinedTx).
//   - receipt.go: the L1 part of a rollup's receipt (Arbitrum's gasUsedForL1, OP's l1Fee) and
//     what a mined transaction cost its sender.
//   - rpcclient.go: the node's JSON-RPC client behind the typed calls (BatchCaller, RawClient).
package txm
