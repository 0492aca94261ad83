package market

import (
	"testing"
	"time"
)

var prp = []Session{Pre, Regular, Post}

func TestCoverageArithmetic(t *testing.T) {
	fri := Span{ny(2025, time.October, 31, 4, 0), ny(2025, time.October, 31, 20, 0)}
	mon := Span{ny(2025, time.November, 3, 4, 0), ny(2025, time.November, 3, 20, 0)}
	tue := Span{ny(2025, time.November, 4, 4, 0), ny(2025, time.November, 4, 20, 0)}
	// a weekend between two fetched windows hides nothing: they merge
	c := MergeSpans([]Span{mon, fri}, prp)
	if len(c) != 1 || c[0].From != fri.From || c[0].To != mon.To {
		t.Fatalf("merged %v", c)
	}
	if _, ok := c.Find(ny(2025, time.November, 1, 12, 0)); !ok {
		t.Error("Saturday noon is not inside the merged coverage")
	}
	if _, ok := c.Find(tue.From); ok {
		t.Error("Tuesday is inside the coverage")
	}
	// the overnight session does count when asked for: then the weekend night before Monday is a gap
	all := []Session{Overnight, Pre, Regular, Post}
	if c := MergeSpans([]Span{fri, mon}, all); len(c) != 2 {
		t.Errorf("with overnight, merged into %d spans", len(c))
	}
	want := Span{fri.From, tue.To}
	gaps := MergeSpans([]Span{fri}, prp).Missing(want, prp)
	if len(gaps) != 1 || gaps[0].From != fri.To || gaps[0].To != tue.To {
		t.Fatalf("missing %v", gaps)
	}
	if g := c.Missing(Span{fri.From, mon.To}, prp); len(g) != 0 {
		t.Errorf("a covered span is missing %v", g)
	}
}

func ny(y int, m time.Month, d, hh, mm int) time.Time {
	return time.Date(y, m, d, hh, mm, 0, 0, NewYork).UTC()
}
