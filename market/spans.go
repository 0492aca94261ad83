package market

import (
	"slices"
	"time"
)

// Span is a half-open stretch of time [From, To), UTC.
type Span struct{ From, To time.Time }

// Empty reports whether the span holds no instant.
func (s Span) Empty() bool { return !s.From.Before(s.To) }

// Duration is the span's length.
func (s Span) Duration() time.Duration { return s.To.Sub(s.From) }

// Spans is a sorted list of disjoint spans: what has been fetched of one source and symbol (the
// history store's coverage, the bar ledger's final parts).
type Spans []Span

// MergeSpans sorts and joins spans that touch, or that are separated only by time holding no
// minute of sessions (nothing could have been missed there).
func MergeSpans(in []Span, sessions []Session) Spans {
	s := slices.Clone(in)
	slices.SortFunc(s, func(a, b Span) int { return a.From.Compare(b.From) })
	var out Spans
	for _, x := range s {
		if x.Empty() {
			continue
		}
		if n := len(out); n > 0 {
			last := &out[n-1]
			if !x.From.After(last.To) || !HasSessionMinute(last.To, x.From, sessions) {
				if x.To.After(last.To) {
					last.To = x.To
				}
				continue
			}
		}
		out = append(out, x)
	}
	return out
}

// Missing lists the parts of want that the spans do not cover and that hold a minute of
// sessions. A part keeps its exact bounds (it is not trimmed to the sessions): the windows cut
// from it then fall where they fell in the run that was interrupted, so a re-run fetches the
// same windows an uninterrupted run would have.
func (c Spans) Missing(want Span, sessions []Session) []Span {
	var out []Span
	a := want.From
	for _, x := range c {
		if !x.To.After(a) {
			continue
		}
		if !x.From.Before(want.To) {
			break
		}
		if x.From.After(a) {
			out = append(out, Span{a, x.From})
		}
		if x.To.After(a) {
			a = x.To
		}
	}
	if a.Before(want.To) {
		out = append(out, Span{a, want.To})
	}
	kept := out[:0]
	for _, g := range out {
		if HasSessionMinute(g.From, g.To, sessions) {
			kept = append(kept, g)
		}
	}
	return kept
}

// Find returns the span holding t.
func (c Spans) Find(t time.Time) (Span, bool) {
	i, _ := slices.BinarySearchFunc(c, t, func(s Span, t time.Time) int {
		switch {
		case !s.To.After(t):
			return -1
		case s.From.After(t):
			return 1
		}
		return 0
	})
	if i < len(c) && !c[i].From.After(t) && c[i].To.After(t) {
		return c[i], true
	}
	return Span{}, false
}
