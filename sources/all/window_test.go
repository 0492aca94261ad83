package all_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
)

// TestEveryTypeChecksItsWindowTheSameWay is item 1's "same window check": every registered type
// (and json's header variant), through Bars and, for a Pager, through Pages, refuses an inverted
// window as ErrUnsupportedWindow and an empty symbol as ErrUnknownSymbol, naming itself, before
// it asks the provider anything.
func TestEveryTypeChecksItsWindowTheSameWay(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				hits.Add(1)
				w.WriteHeader(http.StatusInternalServerError)
			}))
			defer srv.Close()
			src := build(t, v, srv.URL, 0)
			sym := symbolFor(v)
			cases := []struct {
				what     string
				symbol   string
				from, to int // minutes after redirFrom
				kind     error
			}{
				{"inverted window", sym, 60, 0, sources.ErrUnsupportedWindow},
				{"empty symbol", " ", 0, 60, sources.ErrUnknownSymbol},
			}
			for _, c := range cases {
				from, to := redirFrom.Add(minutes(c.from)), redirFrom.Add(minutes(c.to))
				check := func(how string, err error) {
					t.Helper()
					var e *sources.Error
					if !errors.Is(err, c.kind) || !errors.As(err, &e) || e.Source != v.name {
						t.Errorf("%s, %s: error %v, want %v of %s", how, c.what, err, c.kind, v.name)
					}
				}
				bars, err := src.Bars(context.Background(), c.symbol, from, to)
				check("Bars", err)
				if bars != nil {
					t.Errorf("Bars, %s: %d bars with the error", c.what, len(bars))
				}
				if p, ok := src.(sources.Pager); ok {
					err := p.Pages(context.Background(), []string{c.symbol}, from, to, "", func(sources.Page) error {
						t.Errorf("Pages, %s: a page was handed", c.what)
						return nil
					})
					check("Pages", err)
				}
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("%d requests for windows no provider can answer", n)
			}
		})
	}
}

func minutes(n int) time.Duration { return time.Duration(n) * time.Minute }
