// Package sources turns public quote APIs into 1-minute bars: the Source interface every adapter
// implements, the errors they return, the registry of source types that sources.yaml names, and
// the HTTP plumbing they share (client.go) and the shape every adapter has (base.go: Adapter
// registers its one Factory, NewBase and Base give its Source a name, coverage and window check).
// Each provider lives in its own sub-package and registers itself; sources/all imports every one
// of them.
//
// Files:
//   - source.go: Bar, Coverage (sessions, adjustment, when a minute is final), the Source
//     interface, and the registry of source types sources.yaml names (Factory, Register, Lookup);
//     kind.go: ErrorKind and KindOf, the words a failure is reported with.
//   - base.go: Adapter, Base and NewBase, the shape every adapter has.
//   - client.go: the shared HTTP client (timeouts, retries, body caps, redirects refused);
//     failure.go: its errors, Retry-After, redaction of keys in what it reports; rate.go: Rate,
//     a per-source request pace; quota.go: Quota, the Budget a client asks before each request
//     (over_quota, breakers) and MemoryBudget; date.go: ServerDate, the provider's last Date
//     header and the skew it bounds (the doctor's clock check).
//   - stream.go: Request, Fetch and Stream, decoding a body as it arrives; layout.go: Fields and
//     Texts, the column readers adapters decode with.
//   - window.go: Window and Windows, cutting a range into the requests a provider accepts, and
//     Tidy/Join of the bars they return; page.go: Page, Pager and Batcher (paged and multi-symbol
//     requests) and ProvenThrough; adapt.go: the helpers adapters share (date ranges, alignment,
//     volumes, option parsing and checks, provider messages classified into error kinds);
//     clock.go: parsing RFC 3339 and wall-clock times without allocation.
package sources
