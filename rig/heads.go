package rig

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig/rpcpool"
	"github.com/pricerig/pricerig/rig/txm"
)

// A runner looks at the chain every Poll. When its node speaks websockets it also looks the
// moment a block arrives (eth_subscribe newHeads), so a drawn task is seen within the block that
// drew it rather than up to a poll later; the poll goes on underneath, for the stage delays and
// for a subscription that stalls without saying so. When the subscription drops, the runner
// polls alone and subscribes again every resubscribe interval.

// HeadSubscriber delivers the chain's new heads; *ethclient.Client dialed over ws:// or wss://
// does, and so does the simulated backend's client.
type HeadSubscriber interface {
	// SubscribeNewHead sends each new head on ch until the subscription ends or fails.
	SubscribeNewHead(ctx context.Context, ch chan<- *types.Header) (ethereum.Subscription, error)
}

// How a runner follows new heads, as HeadsMode reports it.
const (
	HeadsPolling    = "polling"
	HeadsSubscribed = "subscription"
)

// HeadsMode says whether the runner is following new heads by subscription right now or only
// polling.
func (r *Runner) HeadsMode() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subscribed {
		return HeadsSubscribed
	}
	return HeadsPolling
}

func (r *Runner) setSubscribed(on bool) {
	r.mu.Lock()
	r.subscribed = on
	if r.headCh != nil {
		close(r.headCh) // waiters go back to polling, or to the new subscription
		r.headCh = nil
	}
	r.mu.Unlock()
}

// nextHead is a channel closed when the next block arrives, nil while not subscribed.
func (r *Runner) nextHead() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.subscribed {
		return nil
	}
	if r.headCh == nil {
		r.headCh = make(chan struct{})
	}
	return r.headCh
}

// headArrived wakes every waiter of nextHead.
func (r *Runner) headArrived() {
	r.mu.Lock()
	if r.headCh != nil {
		close(r.headCh)
		r.headCh = nil
	}
	r.mu.Unlock()
}

// resubscribeEvery is how long the runner polls alone before trying a dropped subscription again.
func (r *Runner) resubscribeEvery() time.Duration {
	return min(10*r.cfg.Poll, 5*time.Second)
}

// followHeads wakes the runner's loop on every new head while a subscription holds; it returns
// when ctx ends, or at once when the node has no subscriptions at all (plain HTTP).
func (r *Runner) followHeads(ctx context.Context, heads HeadSubscriber) {
	ch := make(chan *types.Header, 16)
	logged := false
	for ctx.Err() == nil {
		sub, err := heads.SubscribeNewHead(ctx, ch)
		if errors.Is(err, rpc.ErrNotificationsUnsupported) {
			r.log.Info("the node offers no subscriptions (plain HTTP): following new heads by polling", "poll", r.cfg.Poll)
			return
		}
		if err != nil {
			if !logged {
				r.log.Warn("cannot subscribe to new heads; polling until it can", "error", txm.ClassifyRPCError(err), "retry_in", r.resubscribeEvery())
				logged = true
			}
		} else {
			logged = false
			r.setSubscribed(true)
			r.log.Info("following new heads by subscription")
			err = r.relayHeads(ctx, sub, ch)
			r.setSubscribed(false)
			sub.Unsubscribe()
			if ctx.Err() != nil {
				return
			}
			r.log.Warn("head subscription dropped; polling until it comes back", "error", err, "retry_in", r.resubscribeEvery())
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.resubscribeEvery()):
		}
	}
}

// relayHeads passes each head on as a wake-up (coalesced: the loop reads the newest head itself)
// until the subscription fails or ctx ends.
func (r *Runner) relayHeads(ctx context.Context, sub ethereum.Subscription, ch <-chan *types.Header) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-sub.Err():
			if err == nil {
				err = errors.New("subscription closed")
			}
			return err
		case <-ch:
			r.headArrived()
			r.poke()
		}
	}
}

// poke asks the run loop for a look at the chain now. Pokes coalesce: one look reads the newest
// head and every task, however many pokes came while the last look ran.
func (r *Runner) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// WebsocketURL and DialHeads find a node's websocket endpoint; they live with the endpoints
// (rig/rpcpool), which follow every endpoint's heads the same way.
var (
	WebsocketURL = rpcpool.WebsocketURL
	DialHeads    = rpcpool.DialHeads
)
