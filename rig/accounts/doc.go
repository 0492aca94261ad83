// Package accounts is the runner's accountant: it keeps the rig's accounts in the journal
// (rig/journal's Accounts) from the chain. Every mined transaction of the runner's senders is
// journaled with what it served and what it cost, L1 part included (accountant.go); a settled
// task's payouts are read through the Deployment's PayoutReader; and each step keeps both to the
// chain through reorgs (accountant_reorg.go).
//
// It imports the task values, the transaction manager, the journal and the AgentRig client,
// never the runner (rig/deps_test.go): the runner hands it its rigs (AddRig, SetRelayer) and a
// Counter for its metrics.
package accounts
