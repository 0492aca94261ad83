package devnet

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"

	"github.com/andybalholm/brotli"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// The L1 part of a Nitro transaction's fee, as the devnet charges it.
//
// Nitro charges every transaction that came through the sequencer for posting it to L1: its
// poster cost is the L1 price per unit times its units, 16 per byte of the signed transaction
// (tx.MarshalBinary) compressed with brotli (nitro arbos/l1pricing/l1pricing.go,
// getPosterUnitsWithoutCache and GetPosterInfo; docs/arbos/l1-pricing.md: "compress the
// transaction's data using the brotli-zero algorithm, then multiply the size of the result by
// 16"). ArbOS turns that cost into L2 gas at the block's base fee, poster cost / base fee rounded
// down (nitro arbos/tx_processor.go, GasChargingHook), takes that gas from the transaction's gas
// before the EVM runs, and reports it as the receipt's gasUsedForL1, inside gasUsed: the sender
// pays (execution gas + gasUsedForL1) × effectiveGasPrice, and the L1 part goes to the L1
// pricer's funds pool (L1PricerFundsPoolAddress, 0xa4b00000000000000000000000000000000000f6)
// instead of the network fee account.
//
// go-ethereum's EVM has no hook to add gas to a transaction, so the devnet charges the same
// amount after the block's transactions ran, in the block's own state transition: the chain's
// block processor (l1FeeProcessor, set with BlockChain.SetBlockValidatorAndProcessorForTesting,
// the only way go-ethereum lets a chain's processor be replaced) debits each transaction's sender
// gasUsedForL1 × its effective gas price and credits the funds pool, so every node that
// validates a block computes the same state root; the sequencer seals each block with that root
// (Sequencer.seal). The JSON-RPC front (nitrorpc.go) reports gasUsed as execution gas +
// gasUsedForL1 and gasUsedForL1 itself, so a sender's balance moves by exactly its receipts'
// gasUsed × effectiveGasPrice, as on Robinhood Chain.
//
// Where the devnet differs: Nitro charges before execution (a transaction whose gas limit cannot
// cover its L1 part fails at once), the devnet after the block (the gas limit is not checked
// against it, so a receipt's gasUsed can pass a gas limit set below eth_estimateGas, which counts
// the L1 part as Nitro's does, and a sender left without the whole
// L1 part pays what its balance covers, in whole gas units, and the receipt says that much);
// ArbOS's price per unit moves with what batches cost, the devnet's is fixed
// (ChainOptions.L1BaseFee); ArbOS's brotli level is set per chain (0 on older chains), the devnet
// compresses at level 0 with github.com/andybalholm/brotli, a Go port of the reference encoder.

// DefaultL1BaseFee is the devnet's L1 price per poster unit (what Nitro's ArbGasInfo
// getL1BaseFeeEstimate reports): 0.015 gwei. Robinhood Chain posts its batches to Ethereum as
// blobs, so the price is far under Ethereum's calldata gas price; the one public figure is
// QuickNode's recorded Robinhood Chain testnet receipt
// (https://www.quicknode.com/docs/robinhood/eth_getTransactionReceipt): gasUsedForL1 0x871
// (2,161) of gasUsed 0x8995 (35,221) at effectiveGasPrice 0x13134d0 (20,002,000 wei), a poster
// cost of 4.32 × 10^10 wei. The example shows no transaction; 35,221 gas is what an ERC-20
// transfer to an existing holder costs, and such a transaction is 178 bytes signed, 182 after
// brotli-0 (2,912 units: PosterUnits), so that receipt paid about 0.0148 gwei a unit.
var DefaultL1BaseFee = big.NewInt(15_000_000)

// L1FundsPool is where Nitro puts the L1 part of fees (nitro arbos/l1pricing/l1pricing.go,
// L1PricerFundsPoolAddress).
var L1FundsPool = common.HexToAddress("0xa4b00000000000000000000000000000000000f6")

// PosterUnits is a transaction's L1 size in Nitro's units: 16 per byte of its signed encoding
// compressed by brotli at level 0.
func PosterUnits(tx *types.Transaction) (uint64, error) {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return 0, err
	}
	var out bytes.Buffer
	w := brotli.NewWriterLevel(&out, 0)
	if _, err := w.Write(raw); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return uint64(out.Len()) * params.TxDataNonZeroGasEIP2028, nil
}

// GasForL1 is the L2 gas a transaction's L1 part comes to: its poster cost (l1BaseFee per unit)
// over the gas price, rounded down as ArbOS rounds it. A zero price or l1BaseFee is no L1 gas.
func GasForL1(tx *types.Transaction, l1BaseFee, gasPrice *big.Int) (uint64, error) {
	if l1BaseFee == nil || l1BaseFee.Sign() == 0 || gasPrice == nil || gasPrice.Sign() == 0 {
		return 0, nil
	}
	units, err := PosterUnits(tx)
	if err != nil {
		return 0, err
	}
	gas := new(big.Int).Mul(l1BaseFee, new(big.Int).SetUint64(units))
	gas.Quo(gas, gasPrice)
	if !gas.IsUint64() {
		return 0, fmt.Errorf("L1 gas %s out of range", gas)
	}
	return gas.Uint64(), nil
}

// l1FeeProcessor is the chain's block processor: go-ethereum's, then the L1 part of every
// transaction's fee (see the top of this file). What it charged is kept per block for the
// JSON-RPC front's receipts.
type l1FeeProcessor struct {
	inner     core.Processor
	signer    types.Signer
	l1BaseFee *big.Int
	exempt    common.Address // the sequencer: its startBlock calls stand for Nitro's internal transactions, which pay no L1 part

	mu      sync.Mutex
	charged map[common.Hash][]uint64 // block hash → each transaction's gasUsedForL1
}

// Process runs the block as go-ethereum does, then charges each transaction's L1 part.
func (p *l1FeeProcessor) Process(ctx context.Context, block *types.Block, statedb *state.StateDB, jumps vm.JumpDestCache, precompiles *vm.PrecompileCache, cfg vm.Config, execIndex *atomic.Int64) (*core.ProcessResult, error) {
	res, err := p.inner.Process(ctx, block, statedb, jumps, precompiles, cfg, execIndex)
	if err != nil {
		return res, err
	}
	baseFee := block.BaseFee()
	if baseFee == nil {
		baseFee = new(big.Int)
	}
	gas := make([]uint64, len(block.Transactions()))
	for i, tx := range block.Transactions() {
		from, err := types.Sender(p.signer, tx)
		if err != nil {
			return nil, fmt.Errorf("L1 fee of transaction %d: %w", i, err)
		}
		if from == p.exempt {
			continue
		}
		price := new(big.Int).Add(baseFee, tx.EffectiveGasTipValue(baseFee))
		if gas[i], err = GasForL1(tx, p.l1BaseFee, price); err != nil {
			return nil, fmt.Errorf("L1 fee of transaction %d: %w", i, err)
		}
		// a sender left without the whole L1 part pays the whole gas units its balance covers
		balance := statedb.GetBalance(from).ToBig()
		if covered := new(big.Int).Quo(balance, price); covered.IsUint64() && covered.Uint64() < gas[i] {
			gas[i] = covered.Uint64()
		}
		fee, _ := uint256.FromBig(new(big.Int).Mul(price, new(big.Int).SetUint64(gas[i])))
		statedb.SubBalance(from, fee, tracing.BalanceChangeUnspecified)
		statedb.AddBalance(L1FundsPool, fee, tracing.BalanceChangeUnspecified)
	}
	p.mu.Lock()
	p.charged[block.Hash()] = gas
	p.mu.Unlock()
	return res, nil
}

// gasUsedForL1 is what the block charged its transaction index for L1, and the sum charged to
// the transactions up to it (for cumulativeGasUsed); false for a block this processor never ran.
func (p *l1FeeProcessor) gasUsedForL1(block common.Hash, index uint64) (own, upTo uint64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	gas, ok := p.charged[block]
	if !ok || index >= uint64(len(gas)) {
		return 0, 0, false
	}
	for _, g := range gas[:index+1] {
		upTo += g
	}
	return gas[index], upTo, true
}

// postState is the state root of block once its L1 parts are charged: the miner builds a block
// with go-ethereum's processing alone, so the sequencer runs the block again through the chain's
// processor before sealing it with this root.
func (p *l1FeeProcessor) postState(chain *core.BlockChain, block *types.Block) (common.Hash, error) {
	parent := chain.GetHeader(block.ParentHash(), block.NumberU64()-1)
	if parent == nil {
		return common.Hash{}, fmt.Errorf("parent of block %d not found", block.NumberU64())
	}
	statedb, err := chain.StateAt(parent.Root, parent.Number, parent.Time)
	if err != nil {
		return common.Hash{}, err
	}
	_, err = p.Process(context.Background(), block, statedb, nil, nil, *chain.GetVMConfig(), new(atomic.Int64))
	p.mu.Lock()
	delete(p.charged, block.Hash()) // the block as the miner built it, never sealed
	p.mu.Unlock()
	if err != nil {
		return common.Hash{}, err
	}
	header := block.Header()
	return statedb.IntermediateRoot(chain.Config().Rules(header.Number, header.Difficulty.Sign() == 0, header.Time)), nil
}

// CallL1Gas is the L1 part a transaction carrying a call (to, data, gas) would be charged at
// gasPrice on this chain: 0 on a chain that charges none. Nitro's eth_simulateV1 and
// eth_estimateGas count the L1 part of what they run (its poster cost); go-ethereum's, which the
// devnet serves, count the execution alone, so a measure of a transaction's gas by simulation
// adds this. The transaction is signed by a throwaway key at nonce 0: its size, and so its L1
// part, differs from the sent one's by the few bytes of the nonce and the fee fields.
func (c *Chain) CallL1Gas(to common.Address, data []byte, gas uint64, gasPrice *big.Int) (uint64, error) {
	if c.seq.l1Fees == nil {
		return 0, nil
	}
	id := new(big.Int).SetUint64(c.ChainID)
	tx, err := types.SignNewTx(sequencerKey(), types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id,
		GasTipCap: gasPrice, GasFeeCap: gasPrice, Gas: gas, To: &to, Data: data})
	if err != nil {
		return 0, err
	}
	return GasForL1(tx, c.seq.l1Fees.l1BaseFee, gasPrice)
}

// Nitro pads the L1 part it counts in an estimate, for the signature and fee fields a message
// has not got yet: 1 % more units plus 16 bytes' worth (nitro arbos/l1pricing/l1pricing.go,
// estimationPaddingBasisPoints and estimationPaddingUnits).
const (
	estimationPaddingBps   = 100
	estimationPaddingUnits = 16 * params.TxDataNonZeroGasEIP2028
)

// estimateL1Gas is the L1 part eth_estimateGas counts for a call (to, data, value) of execGas
// gas paid at gasPrice: the poster units of the transaction it would be (signed by a throwaway
// key at nonce 0), padded as Nitro pads them, at the chain's L1 price, in gas at gasPrice.
func (p *l1FeeProcessor) estimateL1Gas(chainID *big.Int, to *common.Address, data []byte, value *big.Int, execGas uint64, gasPrice *big.Int) (uint64, error) {
	if gasPrice == nil || gasPrice.Sign() == 0 {
		return 0, nil
	}
	tx, err := types.SignNewTx(sequencerKey(), types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{ChainID: chainID,
		GasTipCap: gasPrice, GasFeeCap: gasPrice, Gas: execGas, To: to, Value: value, Data: data})
	if err != nil {
		return 0, err
	}
	units, err := PosterUnits(tx)
	if err != nil {
		return 0, err
	}
	units = units*(10_000+estimationPaddingBps)/10_000 + estimationPaddingUnits
	gas := new(big.Int).Mul(p.l1BaseFee, new(big.Int).SetUint64(units))
	gas.Quo(gas, gasPrice)
	if !gas.IsUint64() {
		return 0, fmt.Errorf("L1 gas %s out of range", gas)
	}
	return gas.Uint64(), nil
}
