package devnet

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/rig/task"
	"github.com/pricerig/pricerig/rig/txm"
)

// consentToRelayerFee has the operators of rigs from..to-1 (the relayed process's) consent
// (setOperatorFee, signed by the operator, sent by the relayer as `pricerig fee set` prints it)
// that the relayer takes bps of their rig earnings, so a devnet shows a relayer's operator fees
// in its accounts. It runs before the rigs start following the chain.
func (d *Devnet) consentToRelayerFee(ctx context.Context, from, to int, relayerKey *ecdsa.PrivateKey, bps uint16) error {
	payee := crypto.PubkeyToAddress(relayerKey.PublicKey)
	relayer := txm.NewSender(d.client, task.Key{Address: payee, Private: relayerKey, From: "devnet relayer"},
		new(big.Int).SetUint64(d.ChainID), txm.SenderConfig{Poll: 20 * time.Millisecond})
	domain := task.Domain{ChainID: new(big.Int).SetUint64(d.ChainID), Contract: d.Contract}
	for i := from; i < to; i++ {
		op := task.Key{Address: crypto.PubkeyToAddress(operatorKey(i).PublicKey), Private: operatorKey(i)}
		nonce, err := d.contract.NextFeeNonce(ctx, op.Address)
		if err != nil {
			return err
		}
		fee := task.OperatorFee{Operator: op.Address, Bps: bps, Payee: payee, Nonce: nonce}
		digest, err := domain.OperatorFeeDigest(fee)
		if err != nil {
			return err
		}
		sig, err := task.NewKeySigner(op.Private).SignDigest(digest)
		if err != nil {
			return err
		}
		plan, err := txm.Prepare(ctx, d.client, relayer.Address(), d.contract.SetOperatorFeeCall(fee, sig))
		if err != nil {
			return fmt.Errorf("operator fee of %s: %w", op.Address.Hex(), err)
		}
		if _, err := txm.SendPlan(ctx, relayer, plan); err != nil {
			return fmt.Errorf("operator fee of %s: %w", op.Address.Hex(), err)
		}
	}
	return nil
}
