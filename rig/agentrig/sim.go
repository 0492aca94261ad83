package agentrig

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
)

// Sim is go-ethereum's simulated chain (chain id 1337) with funded accounts and the reference
// contract deployed, for tests and devnet. Blocks are sealed on demand: Send seals one per
// transaction.
type Sim struct {
	Backend  *simulated.Backend
	Client   simulated.Client
	ChainID  *big.Int
	Keys     []*ecdsa.PrivateKey // funded accounts; Keys[0] deployed the contract (its treasury)
	Address  common.Address      // the contract
	ABI      *AgentRig
	Contract *bind.BoundContract

	// sealing serialises Send, Mine and AdvanceTime's block sealing: go-ethereum's simulated
	// beacon seals without a lock of its own (its Commit and AdjustTime both write the last block
	// time), so two goroutines sealing at once race. Code that calls Backend.Commit or
	// Backend.AdjustTime directly while another goroutine uses these methods must not.
	sealing sync.Mutex
}

// SimConfig sets up a Sim. Zero values mean: 10 accounts, the seed's 4-minute windows, 1000 ETH
// per account.
type SimConfig struct {
	Accounts     int
	CommitWindow time.Duration
	RevealWindow time.Duration
	Balance      *big.Int
}

// SimKey is the i-th simulated account's key. The keys are derived from a fixed text so that
// addresses are the same on every run; they are public and worthless.
func SimKey(i int) *ecdsa.PrivateKey {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("pricerig simulated account %d", i))))
	if err != nil {
		panic(err) // a keccak output is a valid key but for a 2^-128 chance
	}
	return key
}

// NewSim starts a simulated chain and deploys the contract from Keys[0].
func NewSim(cfg SimConfig) (*Sim, error) {
	if cfg.Accounts <= 0 {
		cfg.Accounts = 10
	}
	if cfg.Balance == nil {
		cfg.Balance = new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))
	}
	alloc := types.GenesisAlloc{}
	keys := make([]*ecdsa.PrivateKey, cfg.Accounts)
	for i := range keys {
		keys[i] = SimKey(i)
		alloc[crypto.PubkeyToAddress(keys[i].PublicKey)] = types.Account{Balance: new(big.Int).Set(cfg.Balance)}
	}
	backend := simulated.NewBackend(alloc)
	s := &Sim{Backend: backend, Client: backend.Client(), Keys: keys, ABI: NewAgentRig()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	chainID, err := s.Client.ChainID(ctx)
	if err != nil {
		backend.Close()
		return nil, err
	}
	s.ChainID = chainID
	addr, tx, err := Deploy(s.Opts(0, nil), s.Client, cfg.CommitWindow, cfg.RevealWindow)
	if err != nil {
		backend.Close()
		return nil, fmt.Errorf("deploying AgentRig: %w", err)
	}
	backend.Commit()
	if _, err := bind.WaitDeployed(ctx, s.Client, tx.Hash()); err != nil {
		backend.Close()
		return nil, fmt.Errorf("deploying AgentRig: %w", err)
	}
	s.Address = addr
	s.Contract = s.ABI.Instance(s.Client, addr)
	return s, nil
}

// Close stops the chain.
func (s *Sim) Close() error { return s.Backend.Close() }

// Addr is the address of account i.
func (s *Sim) Addr(i int) common.Address { return crypto.PubkeyToAddress(s.Keys[i].PublicKey) }

// Opts are transact options for account i sending value (nil for none).
func (s *Sim) Opts(i int, value *big.Int) *bind.TransactOpts {
	opts := bind.NewKeyedTransactor(s.Keys[i], s.ChainID)
	opts.Value = value
	return opts
}

// ErrFailed is returned by Send for a transaction that was mined but failed.
var ErrFailed = errors.New("transaction failed")

// Send sends calldata to the contract from account i with value, seals a block and returns the
// receipt. A refusal the contract explains comes back as a *RevertError (see DecodeRevert).
//
// Gas is estimated against the pending block, the one the transaction lands in: estimating at
// the latest block would refuse a draw sent right after its order (block.number is still the
// order block there) and misjudge anything that depends on time.
func (s *Sim) Send(i int, value *big.Int, calldata []byte) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := s.Opts(i, value)
	gas, err := s.estimatePending(ctx, ethereum.CallMsg{From: opts.From, To: &s.Address, Value: value, Data: calldata})
	if err != nil {
		if re, ok := DecodeRevert(err); ok {
			return nil, re
		}
		return nil, err
	}
	opts.GasLimit = gas
	tx, err := bind.Transact(s.Contract, opts, calldata)
	if err != nil {
		return nil, err
	}
	s.seal()
	rcpt, err := bind.WaitMined(ctx, s.Client, tx.Hash())
	if err != nil {
		return nil, err
	}
	if rcpt.Status != types.ReceiptStatusSuccessful {
		return rcpt, fmt.Errorf("%w: %s", ErrFailed, tx.Hash().Hex())
	}
	return rcpt, nil
}

// pendingBlock is how ethclient names the pending block in a block-number argument.
var pendingBlock = big.NewInt(-1)

func (s *Sim) estimatePending(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	est, ok := s.Client.(interface {
		EstimateGasAtBlock(context.Context, ethereum.CallMsg, *big.Int) (uint64, error)
	})
	if !ok {
		return s.Client.EstimateGas(ctx, msg)
	}
	return est.EstimateGasAtBlock(ctx, msg, pendingBlock)
}

// Mine seals n empty blocks.
func (s *Sim) Mine(n int) {
	for range n {
		s.seal()
	}
}

// seal seals one block, holding the other sealers off.
func (s *Sim) seal() {
	s.sealing.Lock()
	defer s.sealing.Unlock()
	s.Backend.Commit()
}

// adjustTime is Backend.AdjustTime, holding the other sealers off.
func (s *Sim) adjustTime(d time.Duration) error {
	s.sealing.Lock()
	defer s.sealing.Unlock()
	return s.Backend.AdjustTime(d)
}

// AdvanceTime seals a block d later than the current head, moving the chain's clock.
//
// The simulated backend refuses while its transaction pool still lists a transaction, and the
// pool forgets mined ones asynchronously after a block is sealed; so that refusal
// (refusedForPooledTransaction) right after Send is retried for up to a few seconds.
func (s *Sim) AdvanceTime(d time.Duration) error {
	var err error
	for range 500 {
		if err = s.adjustTime(d); err == nil || !refusedForPooledTransaction(err) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

// pooledTransactionRefusal is go-ethereum's words (eth/catalyst's SimulatedBeacon.AdjustTime) for
// refusing to move time while its pool lists a transaction.
const pooledTransactionRefusal = "could not adjust time on non-empty block"

// refusedForPooledTransaction reports whether AdjustTime refused because the pool still lists a
// transaction. Besides the node's refusals of a transaction (rig/txm's rpcerrors.go, words that arrive
// over JSON-RPC), this is the one place the rig reads an error's words, and why: go-ethereum makes
// that refusal with a bare errors.New (no sentinel to errors.Is), and its simulated.Client hides
// the JSON-RPC client through which txpool_status could show the pool instead (the field named
// Client shadows ethclient's Client method); the pending block (eth_getBlockTransactionCount)
// is no substitute, as it leaves out a mined transaction the pool has not forgotten yet. It
// compares the whole text of the error AdjustTime returned itself, nothing wrapped.
func refusedForPooledTransaction(err error) bool {
	return err.Error() == pooledTransactionRefusal
}

// Head is the latest block's header.
func (s *Sim) Head() (*types.Header, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return s.Client.HeaderByNumber(ctx, nil)
}
