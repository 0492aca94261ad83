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

// Type is the source type sources.yaml names.
const Type = "finnhub"

// Defaults of the Finnhub API.
const (
	DefaultBaseURL = "https://finnhub.io"
	candlePath     = "/api/v1/stock/candle"
)

// DefaultRate is the free plan's 60 calls per minute.
var DefaultRate = sources.Rate{N: 60, Per: time.Minute}

// DefaultFinalAfter: Finnhub documents nothing about when a minute candle is final;
// conservative, sources.UndocumentedFinalAfter.
const DefaultFinalAfter = sources.UndocumentedFinalAfter

// factory is the type's one Factory: registered, and what its sources are built with.
var factory = sources.Adapter(sources.Factory{Type: Type, KeyEnv: "FINNHUB_API_KEY", Options: map[string]string{}, NeedsKey: true, DefaultRate: DefaultRate, BaseURL: DefaultBaseURL, FinalAfter: DefaultFinalAfter}, build)

// build makes a finnhub source. The key goes in the X-Finnhub-Token header, which Finnhub
// accepts like token=, so it never lands in a URL.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	auth := map[string]string{"X-Finnhub-Token": s.Key}
	cov := sources.Coverage{
		Sessions: []market.Session{market.Regular},
		// "Only 1 month of intraday will be returned at a time."
		MaxWindow:  30 * 24 * time.Hour,
		Adjustment: sources.Raw,
	}
	return udf.NewSource(sources.NewBase(s, d, sources.ClientOptions{Header: auth}, cov), udf.Config{HistoryPath: candlePath, SymbolParam: "symbol", Resolution: "1"}), nil
}
