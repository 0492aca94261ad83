package main

// The binary registers every source type; the core packages (feeds, rig, audit) never import an
// adapter, so a spec names types only the host chose to link.
import _ "github.com/pricerig/pricerig/sources/all"
