// Package task holds the values of a job-2 task as the seeds define them, apart from any chain,
// node or database: what a task asks, what a rig answers and how an operator signs it. It
// imports nothing of the rig's other packages; the runner (rig), the AgentRig client
// (rig/agentrig) and the commands build on it.
//
//   - input.go: a task's input (a data URI holding {"symbol", "minute"}, checked against the
//     order's inputHash), InputRules and the spec's refusal rules (Refusal, CheckWindow), and
//     RefusalError, the refusal with the rule it broke (RefusalText, RefusalKind).
//   - commitment.go: Salt and Commitment, keccak256(abi.encode(taskId, rigId, answer, salt)).
//   - eip712.go: the EIP-712 domain and the digests operators sign (Commit, Reveal,
//     OperatorFee), Signer and KeySigner, Recover and Verify under the contract's rules.
//   - keys.go: Key, an operator's or relayer's private key loaded from a keystore or the
//     environment (the account a txm.Sender sends with).
//   - turns.go: whose turn it is to send a task's draw or settle (ScheduleKey, ScheduleOrder,
//     ScheduleRank): the same order of the rigs in every process.
package task
