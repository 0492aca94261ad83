package agentrig_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/pricerig/pricerig/rig/agentrig"
)

type fixedGas struct{ tip, base *big.Int }

func (g fixedGas) SuggestGasTipCap(context.Context) (*big.Int, error) { return g.tip, nil }
func (g fixedGas) HeaderByNumber(context.Context, *big.Int) (*types.Header, error) {
	return &types.Header{BaseFee: g.base}, nil
}

// A day of gas, the days a balance covers and the break-even price, to the wei.
func TestGasDayAndBreakEven(t *testing.T) {
	price, err := agentrig.GasPrice(context.Background(), fixedGas{tip: big.NewInt(1_000_000), base: big.NewInt(10_000_000)})
	if err != nil || price.Int64() != 11_000_000 {
		t.Fatalf("gas price %v, %v; want base fee + tip = 11000000 wei", price, err)
	}
	day := agentrig.NewGasDay(200_000, 1440, price)
	if want := int64(200_000 * 1440 * 11_000_000); day.Wei.Int64() != want {
		t.Errorf("a day of gas %s wei, want %d", day.Wei, want)
	}
	balance := new(big.Int).Sub(new(big.Int).Mul(day.Wei, big.NewInt(14)), big.NewInt(1))
	if days := day.Covers(balance); days.Int64() != 13 {
		t.Errorf("14 days of gas less a wei covers %s days, want 13", days)
	}
	if agentrig.NewGasDay(0, 1440, price).Covers(big.NewInt(1)) != nil {
		t.Error("a day that costs nothing covers some days")
	}
	share := agentrig.RigShare(big.NewInt(10_000_000_000_000), 3) // 0.00001 ETH, quorum 3
	if share.Int64() != 3_000_000_000_000 {
		t.Fatalf("share %s, want 0.000003 ETH", share)
	}
	if be := agentrig.BreakEvenGasPrice(share, 200_000); be.Int64() != 15_000_000 {
		t.Errorf("break-even %s wei a gas, want 15000000 (0.015 gwei)", be)
	}
	if agentrig.BreakEvenGasPrice(share, 0) != nil || agentrig.RigShare(share, 0).Sign() != 0 {
		t.Error("no gas or no agreeing rig gives a break-even or a share")
	}
}
