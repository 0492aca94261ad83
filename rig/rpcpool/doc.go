// Package rpcpool is several RPC endpoints of one chain seen as one (issue 36), so no single node
// can make a rig miss a commit or a reveal:
//
//   - pool.go: each endpoint watched (its chain id checked when first read and after it comes
//     back; its head, how long since it moved, its errors and latency), and ranked: one whose
//     head lags by more than MaxLag, stands still behind another's, holds another block at a
//     height the others agree on, times out or answers another chain id leaves rotation, saying
//     why once, and is back when it has caught up. Status and Healthy say how each fares.
//   - route.go: the Pool's client (Client, Eth), a go-ethereum JSON-RPC client whose HTTP
//     transport is the pool: reads go to the healthy endpoint with the highest head and move to
//     the next when one fails within Attempt; a signed transaction goes to every healthy
//     endpoint ("already known", or "nonce too low" from a node holding it, is an acceptance);
//     receipts are read from any. Nonces and the journal stay the caller's (rig/txm, the runner).
//   - heads.go: heads followed by websocket on every endpoint that offers one (polled on the
//     rest), and the pool's own SubscribeNewHead on the highest head; WebsocketURL, DialHeads.
//   - metrics.go: the endpoints' Prometheus series.
//
// It imports nothing of the rig's: the runner, the transaction manager and the chain commands
// take the pool's client as the one node they already talk to.
package rpcpool
