// Package all registers every source type: import it for its side effects.
package all

import (
	_ "github.com/pricerig/pricerig/sources/alpaca"
	_ "github.com/pricerig/pricerig/sources/massive"
	_ "github.com/pricerig/pricerig/sources/yahoo"
)
