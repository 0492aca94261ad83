package numeric

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/shopspring/decimal"
)

// ParseETH reads an amount of ether as decimal text ("0.001") into wei, exactly; more than 18
// decimals or a negative amount is an error. Amounts on chain (a job's price and slash, a
// stake, a balance) are wei: no float on the way.
func ParseETH(text string) (*big.Int, error) {
	text = strings.TrimSpace(text)
	d, err := decimal.NewFromString(text)
	if err != nil || len(text) > 64 {
		return nil, fmt.Errorf("%q is not an amount of ETH", text)
	}
	// an exponent like 1e999999999 would make a number of a billion digits
	if e := d.Exponent(); e > 30 || e < -60 {
		return nil, fmt.Errorf("%q: out of range", text)
	}
	if d.IsNegative() {
		return nil, fmt.Errorf("%q: an amount of ETH cannot be negative", text)
	}
	wei := d.Shift(18)
	if !wei.Equal(wei.Truncate(0)) {
		return nil, fmt.Errorf("%q: more decimals than wei (18)", text)
	}
	return wei.BigInt(), nil
}

// FormatETH prints wei as ether, exactly, without trailing zeros.
func FormatETH(wei *big.Int) string {
	return decimal.NewFromBigInt(wei, 0).Shift(-18).String()
}
