package history

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// A failed window keeps its kind, not only its text: in the summary's gaps (and so --json);
// gaps that are no failure have none.
func TestFailedWindowsKeepTheirKind(t *testing.T) {
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
	store := openStore(t, "kind.db")
	sum := e.run(t, ctx, store, Options{Spec: e.spec(t, three, "1000/s"), From: from, To: to,
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
}
