package txm

import (
	"context"
	"math/big"
)

// Fees lets the external tests ask a sender for the fees it would offer (fees).
func (s *Sender) Fees(ctx context.Context) (tip, feeCap *big.Int, err error) { return s.fees(ctx) }
