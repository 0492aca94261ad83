package feeds

import (
	"context"
	"testing"
	"time"

	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// A minute priced live (its bars kept in the ledger) is answered again from the ledger alone
// with every source down: the same answer, median, survivors and each source's status, price
// and bar; a minute the ledger holds nothing of has no answer offline (nothing was fetched).
func TestRederiveFromTheLedgerAloneIsPrice(t *testing.T) {
	for _, tc := range []struct{ name, minute string }{
		{"regular minute", "2026-03-10T15:31:00Z"},
		{"a Saturday minute, carried from Friday's close", "2026-03-14T15:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			minute := mustTime(tc.minute)
			s := newSimRig(t, minute.Add(72*time.Hour))
			ledger := NewMemoryLedger()
			live, err := New(s.spec, Deps{Deps: sources.Deps{Now: s.clock.Now}, Ledger: ledger})
			if err != nil {
				t.Fatal(err)
			}
			want, err := live.Price(context.Background(), "NVDA", minute, WaitAll())
			if err != nil {
				t.Fatal(err)
			}
			live.Drain()
			for _, p := range sim.Providers() {
				s.srv.SetFault(p, sim.Fault5xx) // every source down: nothing may be asked
			}
			off, err := Offline(s.spec, ledger)
			if err != nil {
				t.Fatal(err)
			}
			got, err := off.Rederive(context.Background(), "NVDA", minute, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := got.Result
			if !g.Agreed || g.Price != want.Price || g.Median != want.Median || g.Survivors != want.Survivors || !g.Effective.Equal(want.Effective) {
				t.Fatalf("rederived %v %s (median %s, %d survivors, effective %s), priced %v %s (median %s, %d, %s)",
					g.Agreed, g.Price, g.Median, g.Survivors, g.Effective, want.Agreed, want.Price, want.Median, want.Survivors, want.Effective)
			}
			used := 0
			for i, q := range g.Quotes {
				w := want.Quotes[i]
				if q.Status != w.Status || q.Price != w.Price || !q.BarTime.Equal(w.BarTime) || q.Carried != w.Carried {
					t.Errorf("%s: rederived %s %s at %s, priced %s %s at %s", q.Source, q.Status, q.Price, q.BarTime, w.Status, w.Price, w.BarTime)
				}
				tr := got.Traces[i]
				if q.Status.Priced() {
					used++
					if !tr.Asked || !tr.Derivation.Found || !tr.Derivation.Bar.Start.Equal(q.BarTime) || len(tr.Near) == 0 {
						t.Errorf("%s: trace %+v does not hold the bar used (%s)", q.Source, tr, q.BarTime)
					}
				}
			}
			if used < s.spec.Rules.MinSources {
				t.Errorf("%d sources priced", used)
			}
			if sp := got.Span(); !sp.From.Before(g.Effective) || !sp.To.After(g.Effective) {
				t.Errorf("span read %+v misses the effective minute %s", sp, g.Effective)
			}

			// counting the sources an answer counted (its evidence's Counted) gives that answer
			// back; the sources it did not count are traced, left pending, and say why
			if again, err := off.Rederive(context.Background(), "NVDA", minute, want.Counted()); err != nil || again.Result.Price != want.Price || again.Result.Survivors != want.Survivors {
				t.Errorf("rederived with the answer's counted sources: %+v (%v), want %s of %d", again.Result, err, want.Price, want.Survivors)
			}
			two := want.Counted()[:2]
			fewer, err := off.Rederive(context.Background(), "NVDA", minute, two)
			if err != nil {
				t.Fatal(err)
			}
			if c := fewer.Result.Counted(); len(c) != 2 || c[0] != two[0] || c[1] != two[1] {
				t.Errorf("counting %v, the result counted %v", two, c)
			}
			for i, q := range fewer.Result.Quotes {
				if got.Result.Quotes[i].Status.Priced() && q.Source != two[0] && q.Source != two[1] &&
					(q.Status != StatusPending || q.Err != NotCounted || !fewer.Traces[i].Derivation.Found) {
					t.Errorf("%s, not counted: %s %q, trace found %v", q.Source, q.Status, q.Err, fewer.Traces[i].Derivation.Found)
				}
			}

			empty, err := Offline(s.spec, NewMemoryLedger())
			if err != nil {
				t.Fatal(err)
			}
			if got, err := empty.Rederive(context.Background(), "NVDA", minute, nil); err != nil || got.Result.Agreed {
				t.Errorf("an empty ledger answered %+v (%v)", got.Result, err)
			}
		})
	}
}
