// Package layout holds no code: its tests hold the shape of the repository as issue 27 and the
// team's rules set it, by reading the source with go/ast and the import graph with `go list`.
//
//   - layout_test.go: no hand-written function over 120 lines and no hand-written file over 600
//     (tests, generated bindings and provider emulations aside); every package's doc comment or
//     README.md names each of its files; the layers import one way, cmd → web → audit → rig →
//     feeds → sources → the leaves (market, numeric, redact, files, internal/...), and nothing
//     but the commands and sources/all names a provider.
package layout
