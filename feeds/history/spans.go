package history

import "github.com/pricerig/pricerig/market"

// The store's coverage arithmetic is market's (market/spans.go), which the bar ledger's readers
// outside the store (feeds) share; these names keep the store's API as it was.

// Span is a half-open stretch of time [From, To), UTC.
type Span = market.Span

// Spans is a sorted list of disjoint spans: what has been fetched of one source and symbol.
type Spans = market.Spans

// Merge sorts and joins spans that touch, or that are separated only by time holding no minute
// of sessions (market.MergeSpans).
func Merge(in []Span, sessions []market.Session) Spans { return market.MergeSpans(in, sessions) }
