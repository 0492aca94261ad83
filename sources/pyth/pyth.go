// Package pyth reads 1-minute bars from the Pyth Pro History API, a TradingView UDF history
// endpoint behind a Bearer key (the keyless Benchmarks shim it replaced was retired on
// 2026-08-26). Its body is parsed by sources/udf.
package pyth

import (
	"strings"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/udf"
)

// Type is the source type sources.yaml names.
const Type = "pyth"

// Defaults from the Pyth Pro docs: GET {base}/v1/{channel}/history, channel fixed_rate@200ms.
const (
	DefaultBaseURL     = "https://pyth.dourolabs.app"
	DefaultHistoryPath = "/v1/fixed_rate@200ms/history"
)

// DefaultRate is the pre-upgrade public limit of 30 requests per 10 s; Pro states no hard limit,
// and keeping to the old one stays clear of the 60 s penalty box it had.
var DefaultRate = sources.Rate{N: 30, Per: 10 * time.Second}

var options = map[string]string{
	"history_path": "path of the history endpoint under base_url (default " + DefaultHistoryPath + "; another channel such as /v1/real_time/history also works)",
}

// DefaultFinalAfter: Pyth Pro documents nothing about when a history bar is final (its bars
// aggregate publishers' prices, not trades); conservative, sources.UndocumentedFinalAfter.
const DefaultFinalAfter = sources.UndocumentedFinalAfter

// factory is the type's one Factory: registered, and what its sources are built with.
var factory = sources.Adapter(sources.Factory{Type: Type, KeyEnv: "PYTH_API_KEY", Options: options, NeedsKey: true, DefaultRate: DefaultRate, KeyHelp: "pyth needs a Pyth Pro API key", BaseURL: DefaultBaseURL, FinalAfter: DefaultFinalAfter}, build)

// build makes a pyth source. Symbols are Pyth's, like Equity.US.NVDA/USD.
func build(s sources.Settings, d sources.Deps) (sources.Source, error) {
	path := DefaultHistoryPath
	if v := strings.TrimSpace(s.Options["history_path"]); v != "" {
		if !strings.HasPrefix(v, "/") {
			return nil, sources.OptionErrorf(s.Name, "history_path", "%q must start with /", v)
		}
		path = v
	}
	auth := map[string]string{"Authorization": "Bearer " + s.Key}
	cov := sources.Coverage{
		// Equity.US.X/USD carries every session, Blue Ocean's overnight included.
		Sessions:   append([]market.Session(nil), market.AllSessions...),
		MaxWindow:  7 * 24 * time.Hour,
		Adjustment: sources.Raw, // splits apply from the next pre-market on, never back
	}
	return udf.NewSource(sources.NewBase(s, d, sources.ClientOptions{Header: auth}, cov), udf.Config{HistoryPath: path, SymbolParam: "symbol", Resolution: "1"}), nil
}
