package devnet

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/internal/testbound"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig"
	"github.com/pricerig/pricerig/rig/agentrig"
	"github.com/pricerig/pricerig/rig/journal"
	"github.com/pricerig/pricerig/sources/sim"
)

// freshMinute is a regular minute of the devnet's tape whose close differs from the minute
// before's and from its provisional close, so an answer tells the three apart.
func freshMinute(t *testing.T, symbol string) (m time.Time, final, previous, provisional numeric.Scaled) {
	t.Helper()
	tape := sim.NewTape(1, func() time.Time { return time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC) })
	for m = time.Date(2026, 11, 24, 15, 30, 0, 0, time.UTC); m.Hour() < 20; m = m.Add(time.Minute) {
		b, ok1 := tape.Bar(symbol, m)
		prev, ok2 := tape.Bar(symbol, m.Add(-time.Minute))
		p, ok3 := tape.Provisional(symbol, m)
		if ok1 && ok2 && ok3 && b.Close != prev.Close && b.Close != p && prev.Close != p {
			return m, b.Close, prev.Close, p
		}
	}
	t.Fatal("no minute of the tape tells its close from the one before and its provisional one")
	return
}

// TestTheRigCommitsTheFinalPrice is issue 24's done condition on the devnet: a task ordered 2 s
// after its minute closes, against providers that publish 25–45 s late and revise a close within
// 40 s, is committed by every rig at the final price — never the previous minute's close, never
// the provisional one — because the rigs wait inside the commit window for their sources' bars
// to be final. The devnet's clock is the wall clock moved back to 2 s after that minute.
func TestTheRigCommitsTheFinalPrice(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end devnet run")
	}
	m, final, previous, provisional := freshMinute(t, "NVDA")
	offset := time.Until(m.Add(time.Minute + 2*time.Second))
	now := func() time.Time { return time.Now().Add(offset) }
	ctx, _ := testbound.Context(t, testbound.Cap)
	d, err := Start(ctx, Options{Logger: testLogger(t), Spec: []byte(testSpec), Now: now, Publications: sim.LateWorld()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ids, err := d.Order(ctx, []string{"NVDA"}, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range waitSettled(ctx, t, d, ids) {
		if rep.Phase != agentrig.PhaseSettled || !rep.Agreed || rep.Agree != 3 || rep.Answer != final.String() {
			t.Errorf("task %d: %s agreed %v (%d of %d) at %s, want 3 agreeing on the final %s", rep.TaskID, rep.Phase, rep.Agreed, rep.Agree, rep.Reveals, rep.Answer, final)
		}
		for _, r := range rep.Rigs {
			if r.Price != final.String() {
				t.Errorf("rig %d committed %s: final %s, previous minute %s, provisional %s", r.RigID, r.Price, final, previous, provisional)
			}
		}
	}
	for i := range d.Runners {
		marks, err := d.journals[i].(*journal.DBJournal).UnsettledSince(ctx, time.Time{})
		if err != nil || len(marks) != 0 {
			t.Errorf("process %d journaled unsettled answers %+v (%v): its sources were final in time", i, marks, err)
		}
	}
}

// TestAnUnsettledAnswerIsCountedAndJournaled: an answer the reconciler gives before the sources
// are final enough (its commit deadline came first) is still committed, and each rig process
// logs it, counts it by outcome and journals it with every source's provenance, for the audit.
func TestAnUnsettledAnswerIsCountedAndJournaled(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	metrics := map[int]*rig.Metrics{}
	d, ctx := startDevnet(t, Options{Layout: []int{1, 1, 1},
		Metrics: func(i int) *rig.Metrics {
			mu.Lock()
			defer mu.Unlock()
			metrics[i] = rig.NewMetrics(prometheus.NewRegistry())
			return metrics[i]
		},
		WrapPricer: func(_ int, p rig.Pricer) rig.Pricer { return unsettledPricer{p} }})
	ids, err := d.Order(ctx, []string{"SPY"}, testMinute())
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range waitSettled(ctx, t, d, ids) {
		if !rep.Agreed || rep.Agree != 3 {
			t.Errorf("task %d: agreed %v (%d)", rep.TaskID, rep.Agreed, rep.Agree)
		}
	}
	for i := range d.Runners {
		mu.Lock()
		n := testutil.ToFloat64(metrics[i].Unsettled.WithLabelValues(journal.UnsettledProvisional))
		mu.Unlock()
		if n != 1 {
			t.Errorf("process %d counted %v provisional answers, want 1", i, n)
		}
		marks, err := d.journals[i].(*journal.DBJournal).UnsettledSince(ctx, time.Time{})
		if err != nil || len(marks) != 1 {
			t.Fatalf("process %d: marks %+v, %v", i, marks, err)
		}
		mk := marks[0]
		if mk.TaskID != ids[0] || mk.Symbol != "SPY" || mk.Outcome != journal.UnsettledProvisional || mk.Price <= 0 || len(mk.Sources) == 0 {
			t.Errorf("process %d: mark %+v", i, mk)
		}
		for _, s := range mk.Sources {
			if s.Status != string(feeds.StatusPending) && s.FetchedAt.IsZero() || (s.Price > 0 && s.BarTime.IsZero()) {
				t.Errorf("process %d: source %+v lacks its provenance", i, s)
			}
		}
	}
}

// unsettledPricer says every answer came before the sources were final: as a reconciler does
// at a commit deadline (feeds.LastResort).
type unsettledPricer struct{ next rig.Pricer }

func (p unsettledPricer) Price(ctx context.Context, symbol string, minute time.Time, opts ...feeds.PriceOption) (feeds.Result, error) {
	res, err := p.next.Price(ctx, symbol, minute, opts...)
	res.Unsettled, res.Provisional = true, true
	return res, err
}
