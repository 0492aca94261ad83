// Package finnhub reads 1-minute candles from Finnhub's stock/candle endpoint. Its body is the
// TradingView UDF shape, parsed by sources/udf; intraday candles are unadjusted. Free keys are
// refused with 403 "You don't have access to this resource." (ErrUnauthorized).
package finnhub

import (
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/udf"
)

// Defaults of the Finnhub API.
const (
	DefaultBaseURL = "https://finnhub.io"
	candlePath     = "/api/v1/stock/candle"
)

// DefaultRate is the free plan's 60 calls per minute.
var DefaultRate = sources.Rate{N: 60, Per: time.Minute}

func init() {
	sources.Register("finnhub", sources.Factory{Options: map[string]string{}, NeedsKey: true, DefaultRate: DefaultRate, New: New})
}

// New builds a finnhub source. The key goes in the X-Finnhub-Token header, which Finnhub
// accepts like token=, so it never lands in a URL.
func New(s sources.Settings, d sources.Deps) (sources.Source, error) {
	s, err := sources.Keyed(s, sources.Factory{}, "finnhub needs an API key", DefaultBaseURL, DefaultRate)
	if err != nil {
		return nil, err
	}
	d = d.WithDefaults()
	c := sources.NewClient(s, d, sources.ClientOptions{Header: map[string]string{"X-Finnhub-Token": s.Key}})
	return udf.NewSource(c, udf.Config{
		HistoryPath: candlePath,
		SymbolParam: "symbol",
		Resolution:  "1",
		Coverage: sources.Coverage{
			Sessions: []market.Session{market.Regular},
			// "Only 1 month of intraday will be returned at a time."
			MaxWindow:  30 * 24 * time.Hour,
			Adjustment: sources.Raw,
			Rate:       s.Rate,
		},
	}, d.Now), nil
}
