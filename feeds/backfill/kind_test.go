package backfill

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// A failed window keeps its kind, not only its text: in the summary's gaps (and so --json),
// gaps that are no failure having none; and in the stored quotes of its minutes, on either
// database, read back by Answers, Price (why it does not answer) and every export.
func TestFailedWindowsKeepTheirKind(t *testing.T) { eachBackend(t, testFailedWindowsKeepTheirKind) }

func testFailedWindowsKeepTheirKind(t *testing.T, be storeBackend) {
	ctx := context.Background()
	now := ny(2025, time.November, 20, 12, 0)
	from, to := ny(2025, time.November, 3, 0, 0), ny(2025, time.November, 4, 0, 0)
	e := newEnv(t, now, sim.Options{})
	rec := &recorder{next: http.DefaultTransport, clock: e.clock}
	rec.fail = func(r *http.Request) *http.Response {
		if !strings.HasPrefix(r.URL.Path, "/alphavantage/") {
			return nil
		}
		// more patience asked than the client waits: the window fails as unavailable at once
		return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"120"}},
			Body: io.NopCloser(strings.NewReader("503 Service Unavailable")), Request: r}
	}
	store := be.open(t, "kind.db")
	spec := e.spec(t, three, "1000/s")
	sum := e.run(t, ctx, store, Options{Spec: spec, From: from, To: to,
		Symbols: []string{"NVDA", "TSLA"}, Deps: sources.Deps{Transport: rec}})

	av := sourceSummary(t, sum, "alphavantage")
	if av.Failed == 0 || len(av.Gaps) == 0 {
		t.Fatalf("alphavantage: %d failed windows, gaps %+v", av.Failed, av.Gaps)
	}
	for _, g := range av.Gaps {
		if g.Kind != sources.KindUnavailable {
			t.Errorf("gap %+v: kind %q, want %q", g, g.Kind, sources.KindUnavailable)
		}
	}
	for _, name := range []string{"alpaca", "massive"} {
		for _, g := range sourceSummary(t, sum, name).Gaps {
			if g.Kind != "" {
				t.Errorf("%s's gap %+v has a kind but nothing failed", name, g)
			}
		}
	}
	js, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js, []byte(`"error_kind":"unavailable"`)) {
		t.Errorf("the summary's JSON carries no error_kind: %s", js)
	}

	failed, priced := 0, 0
	var failedAt time.Time
	err = store.Answers(ctx, history.Query{}, func(a history.Answer) error {
		for _, q := range a.Quotes {
			switch {
			case q.Source == "alphavantage" && q.Status == feeds.StatusError:
				failed++
				failedAt = a.Minute
				if q.Kind != sources.KindUnavailable {
					t.Fatalf("%s %s: alphavantage's stored quote has kind %q (%s)", a.Symbol, a.Minute, q.Kind, q.Err)
				}
			case q.Kind != "":
				t.Fatalf("%s %s: %s's %s quote has kind %q", a.Symbol, a.Minute, q.Source, q.Status, q.Kind)
			case q.Status.Priced():
				priced++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if failed == 0 || priced == 0 {
		t.Fatalf("%d failed quotes, %d priced", failed, priced)
	}
	_, ok, why, err := store.Price(ctx, spec, "TSLA", failedAt)
	if err != nil || ok || !strings.Contains(why, "[alphavantage: unavailable]") {
		t.Errorf("Price at a minute alphavantage failed: ok %v, why %q, %v", ok, why, err)
	}

	var jl, cs bytes.Buffer
	if _, err := store.Export(ctx, &jl, history.FormatJSONL, history.Query{Symbols: []string{"TSLA"}}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(jl.String(), `"error_kind":"unavailable"`); n != failed/2 {
		t.Errorf("the JSON lines export of TSLA carries %d error_kind, want %d (half of %d)", n, failed/2, failed)
	}
	if _, err := store.Export(ctx, &cs, history.FormatCSV, history.Query{}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col, kinds := slices.Index(rows[0], "error_kind"), 0
	if col < 0 {
		t.Fatalf("no error_kind column in %v", rows[0])
	}
	for _, r := range rows[1:] {
		switch r[col] {
		case "alphavantage:unavailable":
			kinds++
		case "":
		default:
			t.Fatalf("error_kind %q", r[col])
		}
	}
	if kinds != failed {
		t.Errorf("%d CSV rows name alphavantage:unavailable, want %d", kinds, failed)
	}
}
