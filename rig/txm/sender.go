package txm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/internal/clock"
)

// TxChain is what the sender needs of a node; *ethclient.Client and the simulated backend's
// client both satisfy it.
type TxChain interface {
	// PendingNonceAt is the account's next nonce counting the transactions the node holds
	// (eth_getTransactionCount at pending): the nonce a new transaction takes.
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	// NonceAt is the account's nonce at a block (nil: the latest): the transactions mined.
	NonceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (uint64, error)
	// SuggestGasTipCap is the node's suggested priority fee (eth_maxPriorityFeePerGas).
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	// HeaderByNumber is a block's header (nil: the latest), for its base fee.
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	// EstimateGas is eth_estimateGas at the node's default block.
	EstimateGas(ctx context.Context, call ethereum.CallMsg) (uint64, error)
	// PendingCallContract simulates a call against the pending state (what the chain holds with
	// the transactions the node knows of applied).
	PendingCallContract(ctx context.Context, call ethereum.CallMsg) ([]byte, error)
	// CallContract simulates a call against a mined block (nil: the latest): a reverted
	// transaction is replayed at its block to learn why.
	CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
	// SendTransaction broadcasts a signed transaction (eth_sendRawTransaction).
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	// TransactionReceipt is a mined transaction's receipt; ethereum.NotFound while it is not.
	TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error)
}

// SenderConfig tunes a Sender. Zero values take the defaults.
type SenderConfig struct {
	GasHeadroomPct int           // added to the estimate; default 25
	Poll           time.Duration // between receipt checks; default 250ms
	BumpAfter      time.Duration // a transaction not mined by then is replaced with a higher fee; default 20s
	// RebroadcastAfter is how long a transaction waits for its receipt before it is sent again
	// as it is, and again as often while it waits (a node that lost it takes it back; see
	// rebroadcast); default a quarter of BumpAfter, at least 1s.
	RebroadcastAfter time.Duration
	MaxBumps         int // replacements before giving up; default 5
	BumpPct          int // fee increase per replacement; default 20 (nodes want at least 10)
	RetryRPC         int // resends after an unreachable RPC; default 5
	// Guard, when set, is asked just before every broadcast (first and replacement); its error
	// stops the send. The runner's guard fails once the lease is lost.
	Guard func() error
	// OnMined, when set, is told of every transaction of this sender that was mined, ok or
	// reverted, with the call data it carried (the runner journals it: rig's accountant.go).
	OnMined func(ctx context.Context, from common.Address, data []byte, r *types.Receipt)
	// NextHead, when set, returns a channel closed when the next block arrives, or nil while no
	// head subscription holds: receipts are then looked for once per block rather than every
	// Poll (the runner's, see rig's heads.go).
	NextHead func() <-chan struct{}
	// MaxGasPrice, when set, is the most a transaction may pay per gas (the operator's
	// --max-gas-price, wei): every fee cap is held to it, and while the chain's base fee and tip
	// need more, nothing is sent (ErrGasPriceCapped): answers are held back rather than paid
	// at a loss.
	MaxGasPrice *big.Int
	Logger      *slog.Logger
}

// ErrGasPriceCapped is a send held back because the chain's fee is above SenderConfig.MaxGasPrice.
var ErrGasPriceCapped = errors.New("held back by the max gas price")

func (c SenderConfig) withDefaults() SenderConfig {
	if c.GasHeadroomPct == 0 {
		c.GasHeadroomPct = 25
	}
	if c.Poll == 0 {
		c.Poll = 250 * time.Millisecond
	}
	if c.BumpAfter == 0 {
		c.BumpAfter = 20 * time.Second
	}
	if c.RebroadcastAfter == 0 {
		c.RebroadcastAfter = max(c.BumpAfter/4, time.Second)
	}
	if c.MaxBumps == 0 {
		c.MaxBumps = 5
	}
	if c.BumpPct == 0 {
		c.BumpPct = 20
	}
	if c.RetryRPC == 0 {
		c.RetryRPC = 5
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Account is the key a Sender signs and sends with; task.Key is one.
type Account interface {
	// SendsFrom is the address the transactions leave from.
	SendsFrom() common.Address
	// SigningKey is the private key that signs them.
	SigningKey() *ecdsa.PrivateKey
}

// Sender sends one key's transactions: it manages the nonce, estimates gas with headroom,
// prices with EIP-1559 fees, replaces a stuck transaction with a higher fee, classifies RPC
// errors and waits for the receipt. Nonces are handed out under a lock at broadcast, and the wait
// for the receipt happens outside it, so many transactions of one key can be in flight at once
// (a rig drawn for a hundred tasks commits them in a few blocks, not a hundred).
type Sender struct {
	chain   TxChain
	from    common.Address
	key     *ecdsa.PrivateKey
	chainID *big.Int
	cfg     SenderConfig

	mu    sync.Mutex
	nonce *uint64 // next nonce to hand out; nil means ask the node
	// noPendingEstimate is set once the node refused eth_estimateGas at the pending state.
	noPendingEstimate atomic.Bool
	quoteMu           sync.Mutex // not mu, which broadcasts hold
	quote             feeQuote   // the last fees, valid until the head after quote.block
}

// feeQuote is a tip and fee cap read while block was the channel of the next head.
type feeQuote struct {
	block             <-chan struct{}
	tip, feeCap, base *big.Int
}

// NewSender builds the sender of one key.
func NewSender(chain TxChain, key Account, chainID *big.Int, cfg SenderConfig) *Sender {
	return &Sender{chain: chain, from: key.SendsFrom(), key: key.SigningKey(), chainID: new(big.Int).Set(chainID), cfg: cfg.withDefaults()}
}

// Address is the sending account.
func (s *Sender) Address() common.Address { return s.from }

// Send sends a call with data and value to a contract and waits until it is mined. It returns
// the receipt of a successful transaction, or an error wrapping ErrReverted (with the receipt),
// ErrInsufficientFunds, ErrNotMined, ErrRPCUnavailable or the node's own error.
func (s *Sender) Send(ctx context.Context, to common.Address, data []byte, value *big.Int) (*types.Receipt, error) {
	if value == nil {
		value = new(big.Int)
	}
	// Simulate against the pending state first: a transaction that would revert — a draw or
	// settle someone else already sent, a commit or reveal a killed predecessor got mined — is
	// not sent and pays no gas.
	gas, err := s.Check(ctx, to, data, value)
	if err != nil {
		return nil, err
	}
	return s.SendChecked(ctx, to, data, value, gas)
}

// SendChecked is Send of a call that Check passed a moment ago with gas: it is not simulated
// again. The caller holds gas from Check (a batch planned from its estimates).
func (s *Sender) SendChecked(ctx context.Context, to common.Address, data []byte, value *big.Int, gas uint64) (*types.Receipt, error) {
	if value == nil {
		value = new(big.Int)
	}
	msg := ethereum.CallMsg{From: s.from, To: &to, Data: data, Value: value}
	gas += gas * uint64(s.cfg.GasHeadroomPct) / 100
	tip, feeCap, err := s.priced(ctx, false)
	if err != nil {
		return nil, err
	}
	build := func(nonce uint64, tip, feeCap *big.Int) (*types.Transaction, error) {
		tx, err := types.SignNewTx(s.key, types.LatestSignerForChainID(s.chainID), &types.DynamicFeeTx{
			ChainID: s.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: value, Data: data,
		})
		if err != nil {
			return nil, fmt.Errorf("sign: %w", err)
		}
		return tx, nil
	}
	nonce, tx, err := s.first(ctx, build, &tip, &feeCap)
	if err != nil {
		return nil, err
	}
	sent := []common.Hash{tx.Hash()}
	nonceOf := map[common.Hash]uint64{tx.Hash(): nonce}
	s.cfg.Logger.Debug("transaction sent", "from", s.from, "to", to, "nonce", nonce, "tx", tx.Hash())
	// Whatever the outcome, the versions that were not mined are watched: one left behind a nonce
	// gap, or every one when Send gives up, may still be mined, and the accounts must hear of it.
	var mined common.Hash
	defer func() {
		if ctx.Err() == nil {
			s.watchStale(ctx, sent, nonceOf, mined, msg)
		}
	}()
	for bump := 0; ; bump++ {
		r, err := s.wait(ctx, sent, tx)
		if err == nil {
			mined = r.TxHash
			return s.finish(ctx, r, msg)
		}
		if !errors.Is(err, ErrNotMined) || bump >= s.cfg.MaxBumps {
			s.ForgetNonce()
			return nil, err
		}
		if n, nerr := s.chain.PendingNonceAt(ctx, s.from); nerr == nil && n < nonce {
			// A reorg dropped earlier transactions of ours: this one waits behind a nonce gap
			// that will never fill. Send it again at the chain's nonce.
			s.cfg.Logger.Warn("nonce gap, resending at the chain's nonce", "from", s.from, "nonce", nonce, "chain_nonce", n)
			s.ForgetNonce()
			if nonce, tx, err = s.first(ctx, build, &tip, &feeCap); err != nil {
				return nil, err
			}
			sent = append(sent, tx.Hash())
			nonceOf[tx.Hash()] = nonce
			continue
		}
		s.cfg.Logger.Warn("transaction stuck, replacing with a higher fee", "from", s.from, "nonce", nonce, "tx", tx.Hash())
		for {
			tip, feeCap = bumpFee(tip, s.cfg.BumpPct), bumpFee(feeCap, s.cfg.BumpPct)
			if limit := s.cfg.MaxGasPrice; limit != nil && feeCap.Cmp(limit) > 0 {
				if tx.GasFeeCap().Cmp(limit) >= 0 { // already at the cap: no higher fee to offer
					s.cfg.Logger.Warn("answer held back by the max gas price: a stuck transaction is at it",
						"from", s.from, "nonce", nonce, "tx", tx.Hash(), "max_gas_price", limit)
					s.ForgetNonce()
					return nil, fmt.Errorf("%w: %s wei a gas, transaction %s not mined", ErrGasPriceCapped, limit, tx.Hash().Hex())
				}
				feeCap, tip = new(big.Int).Set(limit), minOf(tip, limit)
			}
			if tx, err = build(nonce, tip, feeCap); err != nil {
				return nil, err
			}
			err = s.broadcast(ctx, tx)
			if !errors.Is(err, ErrUnderpriced) || bump >= s.cfg.MaxBumps {
				break
			}
			// A replacement the node refused as underpriced counts against MaxBumps like one it
			// took: a pool that keeps refusing (full, or another holder of the nonce paying more)
			// must not walk the fee up without end.
			bump++
		}
		switch {
		case err == nil, errors.Is(err, ErrAlreadyKnown):
			sent = append(sent, tx.Hash())
			nonceOf[tx.Hash()] = nonce
		case errors.Is(err, ErrNonceTooLow):
			// The nonce was used meanwhile: by one of our versions (then it has a receipt) or
			// by another sender of this key.
			if r := s.anyReceipt(ctx, sent); r != nil {
				mined = r.TxHash
				return s.finish(ctx, r, msg)
			}
			return nil, err
		default:
			return nil, err
		}
	}
}

// first takes the next nonce and broadcasts the first version of a transaction, under the
// lock so nonces go out in order. It handles a nonce someone else used and a fee the node finds
// too low.
func (s *Sender) first(ctx context.Context, build func(uint64, *big.Int, *big.Int) (*types.Transaction, error), tip, feeCap **big.Int) (uint64, *types.Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 0; ; attempt++ {
		nonce, err := s.nextNonce(ctx)
		if err != nil {
			return 0, nil, err
		}
		tx, err := build(nonce, *tip, *feeCap)
		if err != nil {
			return 0, nil, err
		}
		err = s.broadcast(ctx, tx)
		switch {
		case err == nil, errors.Is(err, ErrAlreadyKnown):
			n := nonce + 1
			s.nonce = &n
			return nonce, tx, nil
		case errors.Is(err, ErrNonceTooLow) && attempt < 5:
			s.nonce = nil // another sender of this key used it: ask the node
		case errors.Is(err, ErrUnderpriced) && attempt < 5:
			// Nitro refuses at submission a fee cap below the current base fee ("max fee per
			// gas less than block base fee"): the fee rose since the quote, perhaps ten-fold.
			// Quote again, and offer at least a bump over what was refused; the nonce is the
			// same, so no gap opens.
			fresh, freshCap, qerr := s.priced(ctx, true)
			if qerr != nil {
				return 0, nil, qerr
			}
			*tip, *feeCap = maxOf(fresh, bumpFee(*tip, s.cfg.BumpPct)), maxOf(freshCap, bumpFee(*feeCap, s.cfg.BumpPct))
			if s.cfg.MaxGasPrice != nil && (*feeCap).Cmp(s.cfg.MaxGasPrice) > 0 {
				*feeCap = new(big.Int).Set(s.cfg.MaxGasPrice)
				*tip = minOf(*tip, *feeCap)
			}
			s.cfg.Logger.Info("fee refused as too low, re-priced", "from", s.from, "nonce", nonce, "fee_cap", *feeCap, "refusal", err)
		default:
			return 0, nil, err
		}
	}
}

func (s *Sender) ForgetNonce() {
	s.mu.Lock()
	s.nonce = nil // unknown: ask the node next time
	s.mu.Unlock()
}

// finish returns a mined transaction's receipt; a reverted one is replayed at its block to learn
// why (a receipt carries no revert data), logged, and returned as an error wrapping ErrReverted
// and, when the replay reverts too, the node's error with the revert data (RevertMessage, and the
// AgentRig client's RevertReason, read it).
func (s *Sender) finish(ctx context.Context, r *types.Receipt, msg ethereum.CallMsg) (*types.Receipt, error) {
	if s.cfg.OnMined != nil {
		s.cfg.OnMined(ctx, s.from, msg.Data, r)
	}
	if r.Status == types.ReceiptStatusSuccessful {
		return r, nil
	}
	_, replay := s.chain.CallContract(ctx, msg, r.BlockNumber)
	err := fmt.Errorf("%w: %s", ErrReverted, r.TxHash.Hex())
	if replay != nil {
		err = fmt.Errorf("%w: %w", err, replay)
	}
	s.cfg.Logger.Warn("transaction reverted", "from", s.from, "tx", r.TxHash.Hex(), "block", r.BlockNumber,
		"gas_used", r.GasUsed, "reason", RevertName(err))
	return r, err
}

// revertName is the decoded revert of err (RevertMessage).
func RevertName(err error) string {
	if msg, ok := RevertMessage(err); ok {
		return msg
	}
	return "unknown (the replay did not revert)"
}

func (s *Sender) nextNonce(ctx context.Context) (uint64, error) {
	if s.nonce != nil {
		return *s.nonce, nil
	}
	var n uint64
	err := s.retryRPC(ctx, func() error {
		var err error
		n, err = s.chain.PendingNonceAt(ctx, s.from)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("nonce: %w", err)
	}
	return n, nil
}

// priced is fees held to MaxGasPrice: the fee cap no higher than it, and ErrGasPriceCapped while
// the base fee and tip alone pass it (logged: the operator's answers wait for a cheaper block).
// fresh drops the quote kept for the current head (the node refused it as too low).
func (s *Sender) priced(ctx context.Context, fresh bool) (tip, feeCap *big.Int, err error) {
	if fresh {
		s.quoteMu.Lock()
		s.quote = feeQuote{}
		s.quoteMu.Unlock()
	}
	tip, feeCap, base, err := s.quoteFees(ctx)
	if err != nil {
		return nil, nil, err
	}
	limit := s.cfg.MaxGasPrice
	if limit == nil {
		return tip, feeCap, nil
	}
	if need := new(big.Int).Add(base, tip); need.Cmp(limit) > 0 {
		s.cfg.Logger.Warn("answer held back by the max gas price: the chain's fee is above it",
			"from", s.from, "base_fee", base, "tip", tip, "max_gas_price", limit)
		return nil, nil, fmt.Errorf("%w: the chain asks %s wei a gas (base fee %s, tip %s), the cap is %s", ErrGasPriceCapped, need, base, tip, limit)
	}
	return tip, minOf(feeCap, limit), nil
}

func maxOf(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

func minOf(a, b *big.Int) *big.Int {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

// fees returns an EIP-1559 tip and a fee cap of twice the base fee plus the tip, which survives
// several full blocks of base-fee rises.
func (s *Sender) fees(ctx context.Context) (tip, feeCap *big.Int, err error) {
	tip, feeCap, _, err = s.quoteFees(ctx)
	return tip, feeCap, err
}

// quoteFees is fees with the base fee they were computed from.
// While heads come by subscription the quote is kept until the next head (the base fee and the
// node's tip suggestion change only with a block), so a burst of sends asks once.
func (s *Sender) quoteFees(ctx context.Context) (tip, feeCap, base *big.Int, err error) {
	var block <-chan struct{} // taken before asking, so a head arriving meanwhile voids the quote
	if s.cfg.NextHead != nil {
		block = s.cfg.NextHead()
	}
	if block != nil {
		// Held while asking: the sends of a burst wait for one quote rather than all ask.
		s.quoteMu.Lock()
		defer s.quoteMu.Unlock()
		if q := s.quote; q.block == block {
			return new(big.Int).Set(q.tip), new(big.Int).Set(q.feeCap), new(big.Int).Set(q.base), nil
		}
		defer func() {
			if err == nil {
				s.quote = feeQuote{block: block, tip: new(big.Int).Set(tip), feeCap: new(big.Int).Set(feeCap), base: new(big.Int).Set(base)}
			}
		}()
	}
	var head *types.Header
	err = s.retryRPC(ctx, func() error {
		var err error
		if tip, err = s.chain.SuggestGasTipCap(ctx); err != nil {
			return err
		}
		head, err = s.chain.HeaderByNumber(ctx, nil)
		return err
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("fees: %w", err)
	}
	base = new(big.Int)
	if head.BaseFee != nil {
		base.Set(head.BaseFee)
	}
	feeCap = new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	return tip, feeCap, base, nil
}

func bumpFee(v *big.Int, pct int) *big.Int {
	out := new(big.Int).Mul(v, big.NewInt(int64(100+pct)))
	out.Div(out, big.NewInt(100))
	if out.Cmp(v) <= 0 {
		out.Add(v, big.NewInt(1))
	}
	return out
}

func (s *Sender) broadcast(ctx context.Context, tx *types.Transaction) error {
	if s.cfg.Guard != nil {
		if err := s.cfg.Guard(); err != nil {
			return err
		}
	}
	return s.retryRPC(ctx, func() error { return s.chain.SendTransaction(ctx, tx) })
}

// retryRPC runs call again while the node is unreachable, with a growing pause, and returns the
// classified error.
func (s *Sender) retryRPC(ctx context.Context, call func() error) error {
	pause := s.cfg.Poll
	for attempt := 0; ; attempt++ {
		err := ClassifyRPCError(call())
		if !errors.Is(err, ErrRPCUnavailable) || attempt >= s.cfg.RetryRPC || ctx.Err() != nil {
			return err
		}
		s.cfg.Logger.Warn("rpc unreachable, retrying", "from", s.from, "attempt", attempt+1, "error", err)
		if err := clock.Sleep(ctx, pause); err != nil {
			return err
		}
		pause = min(pause*2, 10*time.Second)
	}
}

// wait polls for the receipt of any of the hashes (replacements share a nonce, so at most one is
// mined) until BumpAfter passes, sending latest again every RebroadcastAfter (see rebroadcast).
func (s *Sender) wait(ctx context.Context, hashes []common.Hash, latest *types.Transaction) (*types.Receipt, error) {
	deadline := time.NewTimer(s.cfg.BumpAfter)
	defer deadline.Stop()
	sentAt := time.Now()
	for {
		var head <-chan struct{} // taken before the look, so a block arriving during it is not missed
		if s.cfg.NextHead != nil {
			head = s.cfg.NextHead()
		}
		if r := s.anyReceipt(ctx, hashes); r != nil {
			return r, nil
		}
		if time.Since(sentAt) >= s.cfg.RebroadcastAfter {
			s.rebroadcast(ctx, latest)
			sentAt = time.Now()
		}
		pause := s.cfg.Poll
		if head != nil {
			pause = max(pause, time.Second) // the poll only guards a subscription that stalls silently
		}
		timer := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-deadline.C:
			timer.Stop()
			return nil, fmt.Errorf("%w after %s: %s", ErrNotMined, s.cfg.BumpAfter, hashes[len(hashes)-1].Hex())
		case <-head:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// anyReceipt is the receipt of one of the hashes, looked up from the last sent: after a
// nonce-gap resend the last version holds the lower nonce, so it is mined first.
func (s *Sender) anyReceipt(ctx context.Context, hashes []common.Hash) *types.Receipt {
	for _, h := range slices.Backward(hashes) {
		if r, err := s.chain.TransactionReceipt(ctx, h); err == nil && r != nil {
			return r
		}
	}
	return nil
}
