package txm

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
)

// watchStale follows the versions of a transaction that Send left without a receipt and that
// may still be mined: those sent at another nonce than the one mined (the nonce-gap resend: the
// version first sent stays in the pool behind the gap, and once the resend fills the gap it is
// mined too, a duplicate of the same call that usually reverts and always pays gas), or, when
// Send gave up (mined is the zero hash), every version. Each one mined is reported like any other
// (OnMined, so the accounts hold every transaction of the key, and a revert is logged with its
// reason); one whose nonce the chain used for another transaction is let go. The watch runs in
// the background, at most as long as Send itself would wait for a transaction.
func (s *Sender) watchStale(ctx context.Context, sent []common.Hash, nonceOf map[common.Hash]uint64, mined common.Hash, msg ethereum.CallMsg) {
	type version struct {
		hash  common.Hash
		nonce uint64
	}
	var stale []version
	for _, h := range sent {
		if n := nonceOf[h]; mined == (common.Hash{}) || n != nonceOf[mined] {
			stale = append(stale, version{h, n})
		}
	}
	if len(stale) == 0 {
		return
	}
	ctx = context.WithoutCancel(ctx)
	until := time.Now().Add(time.Duration(s.cfg.MaxBumps+1) * s.cfg.BumpAfter)
	go func() {
		for len(stale) > 0 && time.Now().Before(until) {
			var head <-chan struct{}
			if s.cfg.NextHead != nil {
				head = s.cfg.NextHead()
			}
			// The key's mined nonce is read before the receipts: a version without a receipt whose
			// nonce was already used then will never be mined.
			used, nonceErr := s.chain.NonceAt(ctx, s.from, nil)
			kept := stale[:0]
			for _, v := range stale {
				r, err := s.chain.TransactionReceipt(ctx, v.hash)
				switch {
				case err == nil && r != nil:
					s.cfg.Logger.Warn("a version of a transaction Send had left was mined after all",
						"from", s.from, "tx", v.hash.Hex(), "nonce", v.nonce, "block", r.BlockNumber)
					_, _ = s.finish(ctx, r, msg)
				case nonceErr == nil && used > v.nonce:
					s.cfg.Logger.Debug("a version of a transaction Send had left will not be mined: its nonce went to another transaction",
						"from", s.from, "tx", v.hash.Hex(), "nonce", v.nonce)
				default:
					kept = append(kept, v)
				}
			}
			stale = kept
			if len(stale) == 0 {
				return
			}
			pause := s.cfg.Poll
			if head != nil {
				pause = max(pause, time.Second)
			}
			timer := time.NewTimer(pause)
			select {
			case <-head:
			case <-timer.C:
			}
			timer.Stop()
		}
		for _, v := range stale {
			s.cfg.Logger.Warn("stopped watching a version of a transaction Send had left: if it is mined, the accounts miss it",
				"from", s.from, "tx", v.hash.Hex(), "nonce", v.nonce)
		}
	}()
}
