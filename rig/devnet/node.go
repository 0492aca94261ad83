// Package devnet runs the whole life of job-2 tasks offline: a go-ethereum node that seals its
// blocks as Robinhood Chain's sequencer does, served over JSON-RPC on 127.0.0.1, the reference
// AgentRig contract, the provider simulator, rig runners and an orderer. `pricerig devnet` and the
// end-to-end tests are built on it.
//
// node.go starts the chain, the node served over JSON-RPC; sequencer.go seals its blocks;
// nitro.go is what makes it Robinhood Chain (Nitro's header fields, the L1 clock, the ArbOS
// stand-in, the devnet build of the contract); nitrorpc.go answers JSON-RPC as Nitro does;
// l1fee.go charges each transaction Nitro's L1 part (gasUsedForL1) in the chain's blocks;
// arbos_gen.go and contracts_gen.go are the ArbOS stand-in's binding and the two contracts'
// bytecode (scripts/build-contract); devnet.go starts the whole devnet (accounts, contract, jobs,
// rigs) and orders tasks; folder.go says what it made in its folder and what Close removes;
// process.go starts, kills and restarts one rig process; fees.go has operators consent to the
// relayer's fee; floor.go measures a commit's and a reveal's gas sent
// alone (the floor batches are held against); report.go follows the tasks to their end;
// ledger.go reads what the chain itself holds of a run (blocks, receipts, events), to count apart
// from what the rigs journal. README.md says why the chain is built this way.
package devnet

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math/big"
	"net"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// Chain is the devnet's chain, which a rig reaches over real JSON-RPC (HTTP and websockets),
// exactly as it reaches a node. Its sequencer seals a block once a transaction has waited
// MinBlockInterval, and, with a heartbeat, an empty one that often while nobody sends anything.
type Chain struct {
	URL     string // http://127.0.0.1:PORT
	WSURL   string // ws://127.0.0.1:PORT: the same node over websockets, for eth_subscribe
	ChainID uint64
	// L1 is the chain's L1 clock: nil on an Ethereum-style chain, whose block.number is its own.
	L1 *L1Clock

	seq       *Sequencer
	mu        sync.Mutex // serialises sealing with Do (Fork, AdjustTime, … from tests)
	stop      chan struct{}
	stopped   sync.WaitGroup
	closing   sync.Once
	paused    bool
	holdAfter func() bool // see HoldAfter
}

// ChainID is the devnet's default chain id: Robinhood Chain's (4663), so that a devnet signature
// is exactly a mainnet one but for the contract address.
const ChainID = 4663

// MinBlockInterval is how long a transaction waits in the pool before it is sealed, and so the
// least time between two blocks: Arbitrum's 250 ms. Each block still moves chain time by at
// least a second (go-ethereum's consensus rules want strictly increasing block times), so under
// load chain time runs up to four times as fast as the wall clock. The wait is also what keeps a
// wallet's next nonce right: ethers.js shares identical requests made within 250 ms (its
// provider's cacheTimeout), so a wallet that sends, finds the receipt and sends again within
// 250 ms of its previous eth_getTransactionCount reuses that answer, one nonce short
// (ethers-io/ethers.js issue 4549); a receipt that cannot appear sooner than 250 ms after its
// transaction arrived is always later than that.
const MinBlockInterval = 250 * time.Millisecond

// StartChain starts a chain with chain id ChainID and the accounts of alloc funded, serving
// JSON-RPC on a free loopback port, sealing an empty block every heartbeat (0: never) while
// nothing is sent.
func StartChain(alloc types.GenesisAlloc, heartbeat time.Duration) (*Chain, error) {
	return StartChainWithOptions(alloc, ChainOptions{Heartbeat: heartbeat})
}

// StartChainWithID is StartChain with another chain id (0 means ChainID).
func StartChainWithID(alloc types.GenesisAlloc, heartbeat time.Duration, chainID uint64) (*Chain, error) {
	return StartChainWithOptions(alloc, ChainOptions{ID: chainID, Heartbeat: heartbeat})
}

// ChainOptions tune a chain.
type ChainOptions struct {
	// ID is the chain id (0 means ChainID).
	ID uint64
	// BaseFee is the genesis block's base fee (nil means go-ethereum's 1 gwei; EIP-1559 then
	// lowers it by up to 12.5 % a block while blocks are less than half full, as the devnet's
	// are).
	BaseFee *big.Int
	// GasPrice, when set, is the gas price every transaction pays for the whole run, in wei, as
	// on a chain that holds its base fee at a floor (Arbitrum's): the base fee is 0 from genesis
	// (EIP-1559 keeps a zero base fee at zero while blocks are less than half full) and the
	// sealer takes only transactions tipping at least GasPrice, which is also what the node
	// suggests as a tip, so a sender that takes the suggestion pays exactly it (a few wei more
	// after blocks more than half full, which raise the base fee by 1 wei each). BaseFee is then
	// ignored.
	GasPrice *big.Int
	// Heartbeat, when positive, seals an empty block that often while nothing is sent. Nitro
	// seals blocks only for transactions; the heartbeat is for tests of code that waits for the
	// chain to move by itself.
	Heartbeat time.Duration
	// L1Block, when positive, makes the chain Nitro-style: block.number, as the devnet build of
	// AgentRig reads it, is an L1 block number starting here and moving every L1Interval
	// (DefaultL1Interval when zero); blocks and receipts carry Nitro's fields and "pending" is
	// "latest" (nitrorpc.go). 21000000 is a young chain (its own block numbers far below L1's),
	// 1 an old one. Zero is an Ethereum-style chain: block.number is the chain's own.
	L1Block    uint64
	L1Interval time.Duration
	// L1BaseFee, when positive on a Nitro-style chain, is the L1 price per poster unit, in wei:
	// every transaction pays an L1 part as Nitro charges it, gasUsedForL1 in its receipt and
	// inside its gasUsed (l1fee.go; DefaultL1BaseFee is Robinhood Chain's). Nil or zero: none.
	L1BaseFee *big.Int
	// BatchInterval and FinalL1Blocks, on a Nitro-style chain, are the pace of its batch poster
	// and how many L1 blocks make a batch's L1 block final: the `safe` and `finalized` tags
	// (batches.go; zero: DefaultBatchInterval, DefaultFinalL1Blocks).
	BatchInterval time.Duration
	FinalL1Blocks uint64
	// Logger gets the sequencer's failures to seal (nil: discarded).
	Logger *slog.Logger
	// Now is the chain's clock, which stamps its blocks and starts its L1 clock (nil: the wall
	// clock): a devnet whose clock is moved (Options.Now) keeps its chain on the same time, so
	// that a rig comparing its clock with block times (a quiet chain's L1 number, a window's end)
	// sees the chain its orderer and simulator see. Only times in the past work: go-ethereum
	// refuses a block stamped ahead of the wall clock.
	Now func() time.Time
}

// StartChainWithOptions is StartChain with options.
func StartChainWithOptions(alloc types.GenesisAlloc, o ChainOptions) (*Chain, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if o.ID == 0 {
		o.ID = ChainID
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	seq, err := startSequencer(alloc, port, o)
	if err != nil {
		return nil, err
	}
	c := &Chain{URL: fmt.Sprintf("http://127.0.0.1:%d", port), WSURL: fmt.Sprintf("ws://127.0.0.1:%d", port), ChainID: o.ID,
		L1: seq.clock, seq: seq, stop: make(chan struct{})}
	c.stopped.Add(1)
	loop := sealLoop{mu: &c.mu, paused: &c.paused, holdAfter: &c.holdAfter, seq: seq, heartbeat: o.Heartbeat, now: time.Now,
		onError: func(err error) { o.Logger.Warn("devnet: sealing a block failed", "err", err) }}
	go func() {
		defer c.stopped.Done()
		loop.run(c.stop)
	}()
	return c, nil
}

// startSequencer starts the node (go-ethereum's, configured as ethclient/simulated configures
// it, but without its beacon) and the sequencer that seals its blocks.
func startSequencer(alloc types.GenesisAlloc, port int, o ChainOptions) (*Sequencer, error) {
	key := sequencerKey()
	s := &Sequencer{key: key, addr: crypto.PubkeyToAddress(key.PublicKey), arbos: NewDevnetArbOS(), now: o.Now}
	genesis := devnetGenesis(alloc, o, s.addr)
	if o.L1Block > 0 {
		interval := o.L1Interval
		if interval <= 0 {
			interval = DefaultL1Interval
		}
		s.clock = &L1Clock{Start: o.L1Block, Origin: uint64(o.Now().Unix()), Interval: interval}
		s.batches = &batchPoster{interval: cmp.Or(o.BatchInterval, DefaultBatchInterval), finalAfter: cmp.Or(o.FinalL1Blocks, DefaultFinalL1Blocks), lastPost: o.Now()}
	}

	nodeConf := node.DefaultConfig
	nodeConf.DataDir = ""
	nodeConf.P2P = p2p.Config{NoDiscovery: true}
	nodeConf.HTTPHost, nodeConf.HTTPPort = "127.0.0.1", port
	nodeConf.HTTPModules = []string{"eth", "net", "web3", "txpool"} // txpool: for tests that look into the pool (Nitro serves none)
	nodeConf.HTTPVirtualHosts = []string{"*"}
	// websockets on the same port, as a node usually offers them: rigs follow new heads by
	// subscription instead of waiting for their next poll
	nodeConf.WSHost, nodeConf.WSPort = "127.0.0.1", port
	nodeConf.WSModules = nodeConf.HTTPModules
	nodeConf.WSOrigins = []string{"*"}
	ethConf := ethconfig.Defaults
	ethConf.Genesis = genesis
	ethConf.NetworkId = o.ID
	ethConf.SyncMode = ethconfig.FullSync
	ethConf.TxPool.NoLocals = true
	ethConf.LogNoHistory = false
	if o.BaseFee != nil {
		ethConf.RPCTxFeeCap = 0 // a dear chain on purpose: deploying the contract costs more than the 1 ETH cap
	}
	if o.GasPrice != nil {
		ethConf.Miner.GasPrice = new(big.Int).Set(o.GasPrice)
		ethConf.RPCTxFeeCap = 0
		// The node's tip suggestion is capped by its gas-price oracle (500 gwei by default):
		// below the sealer's floor, a sender taking the suggestion waited forever (at 1000 gwei
		// even the contract's deployment).
		if ethConf.GPO.MaxPrice == nil || ethConf.GPO.MaxPrice.Cmp(o.GasPrice) < 0 {
			ethConf.GPO.MaxPrice = new(big.Int).Set(o.GasPrice)
		}
	}
	s.minTip = new(big.Int).Set(ethConf.Miner.GasPrice)

	stack, err := node.New(&nodeConf)
	if err != nil {
		return nil, fmt.Errorf("devnet: node: %w", err)
	}
	backend, err := eth.New(stack, &ethConf)
	if err != nil {
		stack.Close()
		return nil, fmt.Errorf("devnet: node: %w", err)
	}
	if s.clock != nil && o.L1BaseFee != nil && o.L1BaseFee.Sign() > 0 {
		chain := backend.BlockChain()
		s.l1Fees = &l1FeeProcessor{inner: core.NewStateProcessor(chain), signer: types.LatestSigner(chain.Config()),
			l1BaseFee: new(big.Int).Set(o.L1BaseFee), exempt: s.addr, charged: map[common.Hash][]uint64{}}
		chain.SetBlockValidatorAndProcessorForTesting(core.NewBlockValidator(chain.Config(), chain), s.l1Fees)
	}
	filterSystem := filters.NewFilterSystem(backend.APIBackend, filters.Config{})
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(filterSystem)}})
	if s.clock != nil {
		api, err := newNitroAPI(backend, filterSystem, s.l1Fees, s.minTip)
		if err != nil {
			stack.Close()
			return nil, err
		}
		// Registered after go-ethereum's own eth services, whose methods of the same names it
		// replaces (rpc.Server keeps the last registration of a name).
		stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: api}})
	}
	if err := stack.Start(); err != nil {
		stack.Close()
		return nil, fmt.Errorf("devnet: node: %w", err)
	}
	backend.Miner().SetPrioAddresses([]common.Address{s.addr})
	s.node, s.eth = stack, backend
	if err := s.firstBlock(); err != nil {
		stack.Close()
		return nil, err
	}
	s.local = ethclient.NewClient(stack.Attach())
	return s, nil
}

// devnetGenesis is the chain's first block: every fork of go-ethereum's dev chain at the chain's
// id, the system contracts those forks call, the funded accounts, the sequencer's funds and, on a
// Nitro-style chain, DevnetArbOS and a header carrying the L1 number.
func devnetGenesis(alloc types.GenesisAlloc, o ChainOptions, sequencer common.Address) *core.Genesis {
	cfg := *params.AllDevChainProtocolChanges // a copy: the original is shared
	cfg.ChainID = new(big.Int).SetUint64(o.ID)
	// Ethereum's rules up to Osaka, as Nitro chains of ArbOS 50 and later run them, without the
	// draft forks after it that go-ethereum's dev chain turns on (Bogota's state-growth pricing
	// charges about 110,000 gas for a new storage slot instead of 22,100): gas counts what
	// Robinhood Chain would charge.
	cfg.AmsterdamTime, cfg.BogotaTime = nil, nil
	all := core.SystemContractAllocs()
	maps.Copy(all, alloc)
	all[sequencer] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether))}
	g := &core.Genesis{Config: &cfg, GasLimit: ethconfig.Defaults.Miner.GasCeil, Alloc: all, Difficulty: new(big.Int)}
	switch {
	case o.GasPrice != nil:
		g.BaseFee = new(big.Int)
	case o.BaseFee != nil:
		g.BaseFee = new(big.Int).Set(o.BaseFee)
	}
	if o.L1Block > 0 {
		all[ArbOSAddress] = arbOSAccount(o.L1Block, sequencer)
		info := NitroHeader{L1BlockNumber: o.L1Block, ArbOSVersion: ArbOSVersion}
		g.Mixhash, g.ExtraData = info.MixHash(), info.SendRoot[:]
	}
	return g
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("devnet: no free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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

// Do runs f with block production held, for Commit, Fork, Rollback and AdjustTime.
func (c *Chain) Do(f func(s *Sequencer) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return f(c.seq)
}

// Dial opens a JSON-RPC client to the chain, as a rig does.
func (c *Chain) Dial(ctx context.Context) (*ethclient.Client, error) {
	return ethclient.DialContext(ctx, c.URL)
}

// Close stops sealing and the node; closing again does nothing.
func (c *Chain) Close() error {
	var err error
	c.closing.Do(func() {
		close(c.stop)
		c.stopped.Wait()
		err = c.seq.close()
	})
	return err
}
