package rpcpool

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// An endpoint's heads arrive by eth_subscribe newHeads when it offers websockets (a ws(s) URL,
// or an http(s) one whose node serves websockets at the same address, as go-ethereum and Nitro
// serve both on one port); its probes go on underneath, for its chain id and for a subscription
// that stalls without saying so.

// WebsocketURL is the websocket URL at the same place as an http(s) RPC URL (ws:// for http://,
// wss:// for https://), and whether raw is already a websocket URL.
func WebsocketURL(raw string) (ws string, already bool, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false, err
	}
	switch u.Scheme {
	case "ws", "wss":
		return raw, true, nil
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return "", false, fmt.Errorf("rpc URL %q: no websocket counterpart to scheme %q", raw, u.Scheme)
	}
	return u.String(), false, nil
}

// DialHeads finds a websocket endpoint for following new heads of an http(s) RPC URL: the same
// host, port and path over ws(s). It returns a client that has subscribed once (so the endpoint
// really offers newHeads), or an error when there is none; the caller then polls. For a ws(s)
// URL it returns nil: the RPC client subscribes itself.
func DialHeads(ctx context.Context, rpcURL string, timeout time.Duration) (*ethclient.Client, error) {
	ws, already, err := WebsocketURL(rpcURL)
	if err != nil || already {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := rpc.DialWebsocket(ctx, ws, "")
	if err != nil {
		return nil, err
	}
	client := ethclient.NewClient(c)
	sub, err := client.SubscribeNewHead(ctx, make(chan *types.Header, 1))
	if err != nil {
		client.Close()
		return nil, err
	}
	sub.Unsubscribe()
	return client, nil
}

// offersWebsocket says e's heads came by subscription before (or its URL is a websocket one):
// a dropped subscription is tried again at the next probe.
func (p *Pool) offersWebsocket(e *endpoint) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, already, _ := WebsocketURL(e.url)
	return e.ws || already
}

// subscribe follows e's new heads over websockets; nil when it offers none (it is polled). The
// channel closes when the subscription ends.
func (p *Pool) subscribe(ctx context.Context, e *endpoint) <-chan wireHead {
	ws, _, err := WebsocketURL(e.url)
	if err != nil {
		return nil
	}
	dctx, cancel := context.WithTimeout(ctx, p.cfg.Attempt)
	defer cancel()
	c, err := rpc.DialWebsocket(dctx, ws, "")
	if err != nil {
		return nil
	}
	raw := make(chan json.RawMessage, 16)
	sub, err := c.EthSubscribe(ctx, raw, "newHeads")
	if err != nil {
		c.Close()
		return nil
	}
	p.mu.Lock()
	e.ws = true
	p.mu.Unlock()
	out := make(chan wireHead, 16)
	go func() {
		defer close(out)
		defer c.Close()
		defer sub.Unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return
			case <-sub.Err():
				return
			case m := <-raw:
				var h wireHead
				if json.Unmarshal(m, &h) != nil || h.Number == nil {
					continue
				}
				select {
				case out <- h:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}
