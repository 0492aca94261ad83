// Package all registers every source type: import it for its side effects.
package all

import (
	_ "github.com/pricerig/pricerig/sources/alpaca"
	_ "github.com/pricerig/pricerig/sources/alphavantage"
	_ "github.com/pricerig/pricerig/sources/finnhub"
	_ "github.com/pricerig/pricerig/sources/fmp"
	_ "github.com/pricerig/pricerig/sources/jsonsrc"
	_ "github.com/pricerig/pricerig/sources/massive"
	_ "github.com/pricerig/pricerig/sources/pyth"
	_ "github.com/pricerig/pricerig/sources/tiingo"
	_ "github.com/pricerig/pricerig/sources/twelvedata"
	_ "github.com/pricerig/pricerig/sources/udf"
	_ "github.com/pricerig/pricerig/sources/yahoo"
)
