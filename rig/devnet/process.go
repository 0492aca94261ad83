package devnet

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/rig/rpcpool"
	"github.com/pricerig/pricerig/sources"
)

// A rig process is one runner with its own JSON-RPC connection, journal and reconciler, as a
// separate `pricerig rig` would be. This file starts one (attach), kills and restarts it, and
// says where it keeps its journal and who relays for it.

// attach starts rig process i: its own JSON-RPC client, journal and reconciler.
func (d *Devnet) attach(ctx, runCtx context.Context, i int) error {
	cfg := d.configs[i]
	client, closeAll, err := d.dialProcess(ctx, i, &cfg)
	if err != nil {
		return err
	}
	j, err := journal.OpenJournal(d.JournalPath(i))
	if err != nil {
		closeAll()
		return err
	}
	d.journals[i] = j
	deps := feeds.Deps{Deps: sources.Deps{Now: d.opts.Now, Logger: cfg.Logger}}
	if d.opts.Ledger {
		ledger, err := history.Open(d.LedgerPath(i))
		if err != nil {
			closeAll()
			return err
		}
		deps.Ledger, deps.Budget, cfg.Evidence = ledger, ledger, history.Evidencer{Store: ledger}
		clients := closeAll
		closeAll = func() { clients(); ledger.Close() }
	}
	reconciler, err := feeds.New(d.Spec, deps)
	if err != nil {
		closeAll()
		return err
	}
	var pricer rig.Pricer = reconciler
	if d.opts.WrapPricer != nil {
		pricer = d.opts.WrapPricer(i, pricer)
	}
	r, err := rig.NewRunner(ctx, client, j, pricer, cfg)
	if err != nil {
		closeAll()
		return fmt.Errorf("rig process %d: %w", i+1, err)
	}
	procCtx, stop := context.WithCancel(runCtx)
	done := make(chan struct{})
	d.Runners[i] = r
	d.stops[i] = func() {
		stop()
		<-done
		closeAll()
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer close(done)
		_ = r.Run(procCtx)
	}()
	return nil
}

// dialProcess dials process i's node: one endpoint (its RPC URL, and its websocket for new
// heads, as `pricerig rig` finds them; polling alone when there is none), or several as one
// pool (Options.RPCURLs). The func closes what it dialed.
func (d *Devnet) dialProcess(ctx context.Context, i int, cfg *rig.Config) (*ethclient.Client, func(), error) {
	url := d.Chain.URL
	if d.opts.RPCURLs != nil {
		urls := d.opts.RPCURLs(i, d.Chain.URL)
		if len(urls) == 1 {
			url = urls[0]
		}
		if len(urls) > 1 {
			pool, err := rpcpool.New(ctx, rpcpool.Config{URLs: urls, ChainID: d.Chain.ChainID, Log: cfg.Logger})
			if err != nil {
				return nil, nil, err
			}
			client := pool.Eth()
			cfg.Heads = pool
			return client, func() { client.Close(); pool.Close() }, nil
		}
	}
	if d.opts.RPCURL != nil {
		url = d.opts.RPCURL(i, url)
	}
	client, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	var heads *ethclient.Client
	if d.opts.HeadsURL != nil {
		heads, err = ethclient.DialContext(ctx, d.opts.HeadsURL(i, d.Chain.WSURL))
	} else {
		heads, err = rig.DialHeads(ctx, url, 2*time.Second)
	}
	if err == nil && heads != nil {
		cfg.Heads = heads
	}
	return client, func() {
		client.Close()
		if heads != nil {
			heads.Close()
		}
	}, nil
}

// RelayerOf is the relayer of rig process i, nil when its rigs send their own transactions.
func (d *Devnet) RelayerOf(i int) *common.Address {
	if r := d.configs[i].Relayer; r != nil {
		addr := r.Address
		return &addr
	}
	return nil
}

// LedgerPath is where rig process i keeps its bar ledger with Options.Ledger: beside its
// journal, as pricerig rig does.
func (d *Devnet) LedgerPath(i int) string {
	return filepath.Join(d.Dir, fmt.Sprintf("rig%d.ledger.db", i+1))
}

// JournalPath is where rig process i keeps its journal.
func (d *Devnet) JournalPath(i int) string {
	return filepath.Join(d.Dir, fmt.Sprintf("rig%d.db", i+1))
}

// Kill stops rig process i at once, as kill -9 would: its loop and every transaction it was
// waiting on are abandoned, its journal is closed; what it wrote stays on disk.
func (d *Devnet) Kill(i int) error {
	d.stops[i]()
	d.stops[i] = func() {}
	err := d.journals[i].Close()
	d.journals[i] = nil
	return err
}

// Restart starts rig process i again from its journal.
func (d *Devnet) Restart(ctx context.Context, i int) error {
	return d.attach(ctx, d.runCtx, i)
}
