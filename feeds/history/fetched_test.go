package history

import (
	"context"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// A plan's read of what a source holds (Fetched) sees another writer's page whole or not at
// all: a page committed between its read of the cursors and its read of the coverage — the
// interleaving of issue 26's two backfills — is not half in it. Read apart, the plan saw the
// page's coverage of NVDA without the cursor that claims the rest of the window for TSLA, and
// planned TSLA's rest as a window of its own.
func TestFetchedSeesAPageWholeOrNotAtAll(t *testing.T) {
	eachBackend(t, testFetchedSeesAPageWholeOrNotAtAll)
}

func testFetchedSeesAPageWholeOrNotAtAll(t *testing.T, be storeBackend) {
	ctx := context.Background()
	store := be.open(t, "fetched.db")
	from := ny(2026, time.October, 5, 4, 0)
	span := Span{From: from, To: from.Add(5 * 24 * time.Hour)}
	// the first page of a two-symbol window: NVDA proven whole, TSLA from the window's start to
	// its bars so far, and the provider's token for the next page
	page := FetchedWindow{Source: "alpaca", Span: span, Symbols: []string{"NVDA", "TSLA"}, Page: true, More: true, Next: "page-2",
		Bars: map[string][]sources.Bar{
			"NVDA": {{Start: from, Close: numeric.Scaled(18_000_000_000), Volume: 10}},
			"TSLA": {{Start: from.Add(time.Minute), Close: numeric.Scaled(40_000_000_000), Volume: 20}},
		},
		Cover:      map[string]Span{"NVDA": span, "TSLA": {From: from, To: from.Add(2 * time.Minute)}},
		WindowBars: 2, WindowRequests: 1, Requests: 1,
	}
	committed := false
	beforeCoverageRead = func() {
		if committed {
			return
		}
		committed = true
		if _, err := store.PutWindow(ctx, page); err != nil {
			t.Errorf("the other writer's page: %v", err)
		}
	}
	defer func() { beforeCoverageRead = nil }()
	got, err := store.Fetched(ctx, "alpaca")
	if err != nil {
		t.Fatal(err)
	}
	if !committed {
		t.Fatal("the other writer's page was not committed between the reads")
	}
	if len(got.Cursors) != 0 || len(got.Coverage) != 0 {
		t.Fatalf("the read saw part of a page committed after it began: cursors %v, coverage %v", got.Cursors, got.Coverage)
	}
	// read again, the page is there whole: its coverage and the cursor that claims the rest
	got, err = store.Fetched(ctx, "alpaca")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cursors) != 1 || got.Cursors[0].Next != "page-2" || got.Cursors[0].Bars != 2 ||
		len(got.Coverage["NVDA"]) != 1 || len(got.Coverage["TSLA"]) != 1 || got.Coverage["TSLA"][0] != page.Cover["TSLA"] {
		t.Fatalf("after the page: cursors %+v, coverage %v", got.Cursors, got.Coverage)
	}
}
