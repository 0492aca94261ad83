package devnet

import (
	"crypto/ecdsa"
	"encoding/binary"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/rig/agentrig"
)

// How the devnet is Robinhood Chain (Arbitrum Nitro) where the chain's numbering shows: the
// header fields Nitro adds, the L1 clock, and the ArbOS stand-in the sequencer keeps.

// ArbOSVersion is the ArbOS version the devnet's blocks carry (mixHash bytes 16-24): 51 "Dia",
// the default of every new Arbitrum chain since OffchainLabs/arbitrum-chain-sdk v0.25.0.
// Nothing the rig does reads it.
const ArbOSVersion = 51

// ArbOSAddress is ArbOS's own address on every Nitro chain (its internal transactions come from
// it: Arbitrum receipts show from 0x…0a4b05). The devnet's genesis puts DevnetArbOS there.
var ArbOSAddress = common.HexToAddress("0x00000000000000000000000000000000000A4B05")

// DefaultL1Interval is how often the L1 block number moves: Ethereum's 12 s slot.
const DefaultL1Interval = 12 * time.Second

// DefaultL1Block is the L1 block number a devnet starts at: a young chain, whose own block
// numbers stay far below L1's as Robinhood Chain's do (L1 was past 21 million in 2024).
const DefaultL1Block = 21_000_000

// NitroHeader is what a Nitro block header holds beyond Ethereum's (OffchainLabs/go-ethereum
// core/types/arb_types.go, HeaderInfo): mixHash packs sendCount (bytes 0-8), l1BlockNumber (8-16)
// and the ArbOS version (16-24), big-endian; extraData is the sendRoot. Nitro's RPC shows the
// three as the block's sendCount, l1BlockNumber and sendRoot (internal/ethapi/api.go of the
// fork). The devnet sends nothing to L1: its sendCount is 0 and its sendRoot zero.
type NitroHeader struct {
	SendRoot      common.Hash
	SendCount     uint64
	L1BlockNumber uint64
	ArbOSVersion  uint64
}

// MixHash is the header's mixHash packing the info.
func (h NitroHeader) MixHash() common.Hash {
	var mix common.Hash
	binary.BigEndian.PutUint64(mix[0:8], h.SendCount)
	binary.BigEndian.PutUint64(mix[8:16], h.L1BlockNumber)
	binary.BigEndian.PutUint64(mix[16:24], h.ArbOSVersion)
	return mix
}

// nitroHeader reads the Nitro fields of a header.
func nitroHeader(h *types.Header) NitroHeader { return nitroHeaderOf(h.MixDigest, h.Extra) }

func nitroHeaderOf(mix common.Hash, extra []byte) NitroHeader {
	return NitroHeader{
		SendRoot:      common.BytesToHash(extra),
		SendCount:     binary.BigEndian.Uint64(mix[0:8]),
		L1BlockNumber: binary.BigEndian.Uint64(mix[8:16]),
		ArbOSVersion:  binary.BigEndian.Uint64(mix[16:24]),
	}
}

// L1Clock says which L1 block number a block stamped at a time is sealed under: Start at Origin
// (unix seconds) and one more every Interval of chain time after it. Chain time, not the wall
// clock: a block the tests stamp an hour ahead (AdjustTime) is sealed an hour of L1 blocks ahead,
// and the contract's windows (block.timestamp) and its draw (block.number) keep in step.
type L1Clock struct {
	Start    uint64
	Origin   uint64
	Interval time.Duration
}

// At is the L1 number of a block stamped timestamp.
func (c *L1Clock) At(timestamp uint64) uint64 {
	if timestamp <= c.Origin {
		return c.Start
	}
	return c.Start + uint64(time.Duration(timestamp-c.Origin)*time.Second/c.Interval)
}

// sequencerKey signs the sequencer's startBlock transactions: a devnet key like the others,
// public and worthless, in no rig.
func sequencerKey() *ecdsa.PrivateKey {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte("pricerig devnet sequencer")))
	if err != nil {
		panic(err) // a keccak output is a valid key but for a 2^-128 chance
	}
	return key
}

// arbOSAccount is DevnetArbOS as the genesis holds it: its runtime code, slot 0 (l1BlockNumber)
// the L1 number the chain starts at, slot 1 (sequencer) the sequencer's address. TestArbOSGenesis
// reads both back through the contract, which pins this layout to the Solidity source's.
func arbOSAccount(l1 uint64, sequencer common.Address) types.Account {
	return types.Account{
		Code:  common.FromHex(devnetArbOSCode),
		Nonce: 1, // a contract's, as EIP-161 starts them
		Storage: map[common.Hash]common.Hash{
			common.BigToHash(big.NewInt(0)): common.BigToHash(new(big.Int).SetUint64(l1)),
			common.BigToHash(big.NewInt(1)): common.BytesToHash(sequencer.Bytes()),
		},
	}
}

// nextNonce is the sequencer's next nonce: past every transaction of its in the pool. After a
// reorg the pool holds the dropped blocks' startBlock calls again, which go-ethereum's pool nonce
// (TxPool.Nonce) does not count until they are promoted.
func (s *Sequencer) nextNonce() uint64 {
	pool := s.eth.TxPool()
	next := pool.Nonce(s.addr)
	pending, queued := pool.ContentFrom(s.addr)
	for _, tx := range append(pending, queued...) {
		next = max(next, tx.Nonce()+1)
	}
	return next
}

// startBlockGas bounds a startBlock call that moves the L1 number by steps: the call, and a
// storage write of a fresh slot (22,100 gas) and a hash per L1 number recorded, at most 256 of
// them (10.3 million gas, under Osaka's cap of 2^24 a transaction). What the call leaves unused
// is not charged.
func startBlockGas(steps uint64) uint64 { return 100_000 + 40_000*min(steps, 256) }

// startBlock hands the pool the sequencer's startBlock call for the block about to be sealed on
// parent under L1 number l1. The miner puts the sequencer's transactions first (its priority
// address), as Nitro puts its StartBlock internal transaction first in every block; a rig sees a
// foreign transaction in each block, as on Robinhood Chain.
func (s *Sequencer) startBlock(parent *types.Header, l1 uint64) (*types.Transaction, error) {
	chain := s.eth.BlockChain()
	cfg := chain.Config()
	baseFee := eip1559.CalcBaseFee(cfg, parent)
	tip := s.minTip
	steps := l1 - min(l1, nitroHeader(parent).L1BlockNumber)
	tx, err := types.SignNewTx(s.key, types.LatestSignerForChainID(cfg.ChainID), &types.DynamicFeeTx{
		ChainID:   cfg.ChainID,
		Nonce:     s.nextNonce(),
		GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(baseFee, big.NewInt(2)), tip),
		Gas:       startBlockGas(steps),
		To:        &ArbOSAddress,
		Data:      s.arbos.PackStartBlock(new(big.Int).SetUint64(l1), parent.Hash()),
	})
	if err != nil {
		return nil, err
	}
	if errs := s.eth.TxPool().Add([]*types.Transaction{tx}, true); errs[0] != nil {
		return nil, fmt.Errorf("the sequencer's startBlock: %w", errs[0])
	}
	return tx, nil
}

// deployAgentRig deploys the reference contract, or on a Nitro-style chain its devnet build
// (AgentRigDevnet.sol: the same ABI, reading block numbers and hashes from DevnetArbOS).
func deployAgentRig(opts *bind.TransactOpts, backend bind.ContractBackend, nitro bool, commitWindow, revealWindow time.Duration) (common.Address, *types.Transaction, error) {
	if !nitro {
		return agentrig.Deploy(opts, backend, commitWindow, revealWindow)
	}
	for _, w := range []time.Duration{commitWindow, revealWindow} {
		if w < 0 || w%time.Second != 0 {
			return common.Address{}, nil, fmt.Errorf("window %s must be whole seconds, not negative", w)
		}
	}
	args := agentrig.NewAgentRig().PackConstructor(uint64(commitWindow/time.Second), uint64(revealWindow/time.Second))
	return bind.DeployContract(opts, common.FromHex(agentRigDevnetBin), backend, args)
}
