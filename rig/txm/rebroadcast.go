package txm

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/core/types"
)

// rebroadcast sends a waiting transaction again, as it is (same nonce, fee and hash). A node
// that still holds it answers "already known" and nothing changes; one that lost it (a pool
// that dropped it, a node behind a load balancer that never got it, a restart) takes it back,
// so it is mined within blocks rather than after BumpAfter, and the later nonces of the key
// that queue behind it move with it. The lease is checked as for any broadcast; any answer is
// only logged: the wait goes on either way, and BumpAfter still replaces a transaction that is
// held but not mined (underpriced).
func (s *Sender) rebroadcast(ctx context.Context, tx *types.Transaction) {
	if tx == nil {
		return
	}
	if s.cfg.Guard != nil && s.cfg.Guard() != nil {
		return
	}
	err := ClassifyRPCError(s.chain.SendTransaction(ctx, tx))
	switch {
	case err == nil:
		// geth answers "already known" for a transaction it holds, so this one was lost; some
		// providers answer every known transaction with its hash, hence Info, not Warn
		s.cfg.Logger.Info("a waiting transaction was sent again and the node took it as new", "from", s.from,
			"nonce", tx.Nonce(), "tx", tx.Hash().Hex())
	case errors.Is(err, ErrAlreadyKnown), errors.Is(err, ErrNonceTooLow), errors.Is(err, ErrUnderpriced):
		// held; mined (this version or another); or another version holds the nonce in the pool
	default:
		s.cfg.Logger.Debug("sending a waiting transaction again failed", "from", s.from, "tx", tx.Hash().Hex(), "error", err)
	}
}
