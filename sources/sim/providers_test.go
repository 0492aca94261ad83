package sim_test

// The emulations live in their providers' folders (sources/<type>/emulation.go) and register
// themselves; the simulator's own tests (sim_test.go, wire_test.go) speak every provider, so this
// test binary links them all. An external test package may import what imports sim: the
// adapters are built against this test's sim, and their init registers into it.
import _ "github.com/pricerig/pricerig/sources/all"
