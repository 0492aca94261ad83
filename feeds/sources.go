package feeds

// Every source type registers itself with the sources registry; importing them all here means a
// spec loaded through feeds always knows every type sources.yaml may name.
import _ "github.com/pricerig/pricerig/sources/all"
