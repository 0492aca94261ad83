package task

// The tests load specs that name real source types. The package itself never links an adapter
// (the binary does, in cmd/pricerig/sources.go); its tests do, as any host would.
import _ "github.com/pricerig/pricerig/sources/all"
