// Package adaptertest holds the checks every quote-source adapter's tests make, so each adapter
// states only its own cases: which windows to read from the simulator, which faults map to which
// error kinds, which bodies its parser must refuse, which answers must not echo its key. The
// functions take those cases as data and make the same assertions for every adapter.
//
// It imports testing and is imported only by tests (internal/ keeps it out of reach of the
// rest of the module's importers).
//
// Files:
//   - adaptertest.go: small helpers (ReadFile of testdata, UTC, Fast) and the live checks
//     (Live, AskLive) run when a provider's key is in the environment.
//   - sim.go: Config, Start, Window, Case and RoundTrip: an adapter against the simulator;
//     scenarios.go: the windows and instants every adapter is read at.
//   - emulation.go: an emulation's requests and replies tested without an adapter (Emulation,
//     RandomBars).
//   - factory.go: an adapter's factory and options (Coverages, RateReachesCoverage).
//   - http.go: one-answer servers (Serve, Handle, Gone) and Failures, the error kinds a status
//     or body must map to.
//   - parse.go: CheckParsed, CheckCloses and Fuzzed, the assertions on parsed bars.
//   - gen.go: bodies generated as they are read (Gen, Rows) and PeakHeap; huge.go: HugeBody, a
//     body of over a million bars decoded in bounded memory; race.go, norace.go: its size with
//     and without the race detector.
package adaptertest
