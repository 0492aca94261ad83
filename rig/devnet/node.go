// Package devnet runs the whole life of job-2 tasks offline: go-ethereum's simulated chain served
// over JSON-RPC on 127.0.0.1, the reference AgentRig contract, the provider simulator, rig
// runners and an orderer. `pricerig devnet` and the end-to-end tests are built on it.
//
// node.go is the simulated chain served as a node; devnet.go starts the whole devnet (accounts,
// contract, jobs, rigs) and orders tasks; process.go starts, kills and restarts one rig process;
// fees.go has operators consent to the relayer's fee; floor.go measures a commit's and a
// reveal's gas sent alone (the floor batches are held against); report.go follows the tasks to their end; ledger.go reads what the chain
// itself holds of a run (blocks, receipts, events), to count apart from what the rigs journal.
package devnet

import (
	"context"
	"fmt"
	"math/big"
	"net"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
)

// Chain is a simulated chain that a rig reaches over real JSON-RPC (HTTP and websockets), exactly
// as it reaches a node.
// It seals a block as soon as a transaction is pending, and one every Heartbeat otherwise so the
// chain moves past an order block even when nobody sends anything.
type Chain struct {
	Backend *simulated.Backend
	URL     string // http://127.0.0.1:PORT
	WSURL   string // ws://127.0.0.1:PORT: the same node over websockets, for eth_subscribe
	ChainID uint64

	mu        sync.Mutex // serialises Commit with Fork/AdjustTime from tests
	stop      chan struct{}
	stopped   sync.WaitGroup
	paused    bool
	holdAfter func() bool // see HoldAfter
}

// ChainID is the devnet's default chain id: Robinhood Chain's (4663), so that a devnet signature
// is exactly a mainnet one but for the contract address. go-ethereum's simulated backend runs
// 1337 unless its genesis is given another id, which StartChain does.
const ChainID = 4663

// MinBlockInterval is the least time between two sealed blocks, Robinhood Chain's (Arbitrum's)
// 250 ms. Each block still moves chain time by at least a second (the simulated beacon's rule),
// so under load chain time runs up to four times as fast as the wall clock.
const MinBlockInterval = 250 * time.Millisecond

// StartChain starts a simulated chain with chain id ChainID and the accounts of alloc funded,
// serving JSON-RPC on a free loopback port.
func StartChain(alloc types.GenesisAlloc, heartbeat time.Duration) (*Chain, error) {
	return StartChainWithID(alloc, heartbeat, ChainID)
}

// StartChainWithID is StartChain with another chain id (0 means ChainID).
func StartChainWithID(alloc types.GenesisAlloc, heartbeat time.Duration, chainID uint64) (*Chain, error) {
	return StartChainWithOptions(alloc, heartbeat, ChainOptions{ID: chainID})
}

// ChainOptions tune a chain: its id (0 means ChainID) and the base fee of its genesis block
// (nil means go-ethereum's 1 gwei; EIP-1559 then lowers it by up to 12.5 % a block while blocks
// are less than half full, as the devnet's are).
type ChainOptions struct {
	ID      uint64
	BaseFee *big.Int
	// GasPrice, when set, is the gas price every transaction pays for the whole run, in wei, as
	// on a chain that holds its base fee at a floor (Arbitrum's): the base fee is 0 from genesis
	// (EIP-1559 keeps a zero base fee at zero while blocks are less than half full) and the
	// sealer takes only transactions tipping at least GasPrice, which is also what the node
	// suggests as a tip, so a sender that takes the suggestion pays exactly it (a few wei more
	// after blocks more than half full, which raise the base fee by 1 wei each). BaseFee is then
	// ignored.
	GasPrice *big.Int
}

// StartChainWithOptions is StartChain with options.
func StartChainWithOptions(alloc types.GenesisAlloc, heartbeat time.Duration, o ChainOptions) (*Chain, error) {
	chainID := o.ID
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if chainID == 0 {
		chainID = ChainID
	}
	backend := simulated.NewBackend(alloc, func(nc *node.Config, ec *ethconfig.Config) {
		nc.HTTPHost = "127.0.0.1"
		nc.HTTPPort = port
		nc.HTTPModules = []string{"eth", "net", "web3", "txpool"} // txpool: the sealer watches it
		nc.HTTPVirtualHosts = []string{"*"}
		// websockets on the same port, as a node usually offers them: rigs follow new heads by
		// subscription instead of waiting for their next poll
		nc.WSHost = "127.0.0.1"
		nc.WSPort = port
		nc.WSModules = nc.HTTPModules
		nc.WSOrigins = []string{"*"}
		ec.LogNoHistory = false
		// The simulated backend's genesis runs every fork at chain id 1337; the same rules at
		// another id are a copy of that config (the original is shared by every backend).
		cfg := *ec.Genesis.Config
		cfg.ChainID = new(big.Int).SetUint64(chainID)
		ec.Genesis.Config = &cfg
		ec.NetworkId = chainID
		if o.BaseFee != nil {
			ec.Genesis.BaseFee = new(big.Int).Set(o.BaseFee)
			ec.RPCTxFeeCap = 0 // a dear chain on purpose: deploying the contract costs more than the 1 ETH cap
		}
		if o.GasPrice != nil {
			ec.Genesis.BaseFee = new(big.Int)
			ec.Miner.GasPrice = new(big.Int).Set(o.GasPrice)
			ec.RPCTxFeeCap = 0
			// The node's tip suggestion is capped by its gas-price oracle (500 gwei by default):
			// below the sealer's floor, a sender taking the suggestion waited forever (at 1000 gwei
			// even the contract's deployment).
			if ec.GPO.MaxPrice == nil || ec.GPO.MaxPrice.Cmp(o.GasPrice) < 0 {
				ec.GPO.MaxPrice = new(big.Int).Set(o.GasPrice)
			}
		}
	})
	c := &Chain{Backend: backend, URL: fmt.Sprintf("http://127.0.0.1:%d", port), WSURL: fmt.Sprintf("ws://127.0.0.1:%d", port), ChainID: chainID, stop: make(chan struct{})}
	c.stopped.Add(1)
	go c.mine(heartbeat)
	return c, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("devnet: no free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (c *Chain) mine(heartbeat time.Duration) {
	defer c.stopped.Done()
	pool, err := rpc.DialHTTP(c.URL)
	if err != nil {
		panic(err) // DialHTTP only parses the URL, which StartChain made
	}
	defer pool.Close()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	last := time.Now()
	for {
		select {
		case <-c.stop:
			return
		case <-poll.C:
		}
		pending, err := pendingCount(pool)
		c.mu.Lock()
		// The simulated beacon stamps each block at least a second after its parent, so sealing
		// faster than MinBlockInterval would run chain time (and the commit and reveal windows)
		// far ahead of the wall clock the rigs price by.
		due := time.Since(last) >= MinBlockInterval
		if !c.paused && ((err == nil && pending > 0 && due) || time.Since(last) >= heartbeat) {
			c.Backend.Commit()
			last = time.Now()
			if c.holdAfter != nil && c.holdAfter() {
				c.paused, c.holdAfter = true, nil
			}
		}
		c.mu.Unlock()
	}
}

// pendingCount is how many transactions wait in the pool. eth_getBlockTransactionCountByNumber
// of "pending" reads a pending block the simulated beacon never builds (it always said 0, so the
// chain sealed only on the heartbeat, a block a second); txpool_status reads the pool itself.
func pendingCount(pool *rpc.Client) (uint64, error) {
	var status struct {
		Pending hexutil.Uint64 `json:"pending"`
	}
	if err := pool.CallContext(context.Background(), &status, "txpool_status"); err != nil {
		return 0, err
	}
	return uint64(status.Pending), nil
}

// Pause stops block production until Resume (to simulate a stalled chain in tests).
func (c *Chain) Pause() { c.mu.Lock(); c.paused = true; c.mu.Unlock() }

// HoldAfter pauses block production right after the first block it seals from now on after
// which held reports true: a test stops the chain exactly where it wants it (a task just drawn,
// no commit mined yet), where a Pause called once it sees that state may come blocks late. held
// runs with production held and must not seal; Resume lets the chain go on.
func (c *Chain) HoldAfter(held func() bool) { c.mu.Lock(); c.holdAfter = held; c.mu.Unlock() }

// Held reports whether block production is paused (Pause, or HoldAfter having held it).
func (c *Chain) Held() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.paused }

// Resume restarts block production.
func (c *Chain) Resume() { c.mu.Lock(); c.paused = false; c.mu.Unlock() }

// Do runs f with block production held, for Fork and AdjustTime.
func (c *Chain) Do(f func(b *simulated.Backend) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return f(c.Backend)
}

// Dial opens a JSON-RPC client to the chain, as a rig does.
func (c *Chain) Dial(ctx context.Context) (*ethclient.Client, error) {
	return ethclient.DialContext(ctx, c.URL)
}

// Close stops mining and the node.
func (c *Chain) Close() error {
	close(c.stop)
	c.stopped.Wait()
	return c.Backend.Close()
}
