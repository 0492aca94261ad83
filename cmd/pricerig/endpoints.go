package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/rpcpool"
	"github.com/pricerig/pricerig/web"
)

// Several RPC endpoints (issue 36): --rpc may be repeated or a comma-separated list, and a
// network in the spec may list several (networks.NAME.rpcs). One URL is dialed as it is; two or
// more become one rig/rpcpool Pool: reads from the healthiest, transactions sent to all.

// rpcList is the URLs of repeated and comma-separated --rpc values, blanks dropped.
func rpcList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, u := range strings.Split(v, ",") {
			if u = strings.TrimSpace(u); u != "" {
				out = append(out, u)
			}
		}
	}
	return out
}

// shownRPCs is the endpoints as every output prints them: each URL redacted, comma-separated.
func shownRPCs(urls []string) string {
	shown := make([]string, len(urls))
	for i, u := range urls {
		shown[i] = redact.URL(u)
	}
	return strings.Join(shown, ",")
}

// dialRPCs dials one endpoint, or a pool of several that must serve chainID (0: the first
// answer's); the pool is nil for one. Every URL's credentials are registered for redaction
// first.
func dialRPCs(ctx context.Context, urls []string, chainID uint64, logger *slog.Logger) (*ethclient.Client, *rpcpool.Pool, error) {
	for _, u := range urls {
		redact.Register(redact.URLSecrets(u)...)
	}
	if len(urls) == 1 {
		c, err := ethclient.DialContext(ctx, urls[0])
		return c, nil, err
	}
	pool, err := rpcpool.New(ctx, rpcpool.Config{URLs: urls, ChainID: chainID, Log: logger})
	if err != nil {
		return nil, nil, err
	}
	return pool.Eth(), pool, nil
}

// pageEndpoints is the pool's endpoints as the operator's page shows them.
func pageEndpoints(pool *rpcpool.Pool) func() []web.Endpoint {
	return func() []web.Endpoint {
		var out []web.Endpoint
		for _, s := range pool.Status() {
			out = append(out, web.Endpoint{URL: s.Endpoint, Up: s.Up, Reason: s.Reason, Head: s.Head, Lag: s.Lag,
				Errors: s.Errors, LatencyMilli: s.Latency.Milliseconds()})
		}
		return out
	}
}
