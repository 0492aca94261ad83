package feeds

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// simSpec loads the shipped sources.yaml pointed at a simulator, with every source's pacing
// lifted and retries off, so a test never waits on a real timer.
func simSpec(t testing.TB, root string) *Spec {
	t.Helper()
	spec, err := Load(pricerig.DefaultSpec, LoadOptions{Getenv: func(string) string { return "" }, Sim: &SimTarget{Root: root, Key: sim.Key, Secret: sim.Secret}})
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Warnings) != 0 {
		t.Fatalf("warnings with sim keys: %v", spec.Warnings)
	}
	for i := range spec.Sources {
		spec.Sources[i].Rate = sources.Rate{N: 1 << 30, Per: time.Second} // zero would mean the type's default
		spec.Sources[i].Retries = -1                                      // negative: off (zero means the default); a simulated fault is final
	}
	return spec
}

// simRig is the shipped spec over an in-process simulator, both on one fake clock.
type simRig struct {
	srv   *sim.Server
	spec  *Spec
	clock *fakeClock
}

func newSimRig(t testing.TB, now time.Time) *simRig {
	t.Helper()
	clock := &fakeClock{now: now}
	srv := sim.New(sim.Options{Seed: 7, Now: clock.Now})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	return &simRig{srv: srv, spec: simSpec(t, hs.URL), clock: clock}
}

func (s *simRig) reconciler(t testing.TB) *Reconciler {
	t.Helper()
	r, err := New(s.spec, Deps{Deps: sources.Deps{Now: s.clock.Now}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// expected is the price-at-minute rule applied to the simulator's raw tape.
func (s *simRig) expected(t *testing.T, symbol string, m time.Time) (numeric.Scaled, time.Time) {
	t.Helper()
	rules := s.spec.Rules
	eff := m
	if !market.InSessions(m, rules.Sessions) {
		var ok bool
		if eff, ok = market.PrevSessionMinute(m, rules.Sessions, rules.MaxCarry); !ok {
			t.Fatalf("no session minute before %s", m)
		}
	}
	for x := eff; !x.Before(m.Add(-rules.MaxCarry)); x = x.Add(-time.Minute) {
		if !market.InSessions(x, rules.Sessions) {
			continue
		}
		if b, ok := s.srv.Tape().Bar(symbol, x); ok {
			return b.Close, x
		}
	}
	t.Fatalf("the tape has no %s bar within max_carry of %s", symbol, m)
	return 0, time.Time{}
}

// agreeing checks that every priced quote is the expected price exactly, and that the answer is.
func agreeing(t *testing.T, res Result, want numeric.Scaled) {
	t.Helper()
	if !res.Agreed || res.Price != want {
		t.Errorf("%s at %s: answer %s (agreed %v, %s), want %s", res.Symbol, res.Minute.Format(time.RFC3339), res.Price, res.Agreed, res.Reason, want)
	}
	for _, q := range res.Quotes {
		if q.Status.Priced() && q.Price != want {
			t.Errorf("%s: %s %s at %s, want %s", q.Source, q.Status, q.Price, q.BarTime.Format(time.RFC3339), want)
		}
	}
}

func statuses(res Result) map[string]Status {
	out := map[string]Status{}
	for _, q := range res.Quotes {
		out[q.Source] = q.Status
	}
	return out
}

var allProviders = []string{"yahoo", "alpaca", "massive", "twelvedata", "alphavantage", "tiingo", "pyth", "finnhub", "fmp"}

func TestSimHappyPathAllFeeds(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	s := newSimRig(t, m.Add(25*time.Hour)) // past the free plans' 24 h delay of massive and alphavantage
	r := s.reconciler(t)
	for _, symbol := range []string{"NVDA", "TSLA", "SPY"} {
		t.Run(symbol, func(t *testing.T) {
			want, _ := s.expected(t, symbol, m)
			res, err := r.Price(context.Background(), symbol, m, WaitAll())
			if err != nil {
				t.Fatal(err)
			}
			agreeing(t, res, want)
			for _, p := range allProviders {
				if st := statuses(res)[p]; !st.Priced() {
					t.Errorf("%s: %s (%s)", p, st, quoteOf(t, res, p).Err)
				}
			}
			// the default early quorum gives the same answer
			early, err := r.Price(context.Background(), symbol, m)
			if err != nil || early.Price != want {
				t.Errorf("early quorum: %s, %v", early.Price, err)
			}
		})
	}
}

func TestSimRecentMinuteSkipsDelayedPlans(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	s := newSimRig(t, m.Add(5*time.Minute))
	res, err := s.reconciler(t).Price(context.Background(), "NVDA", m, WaitAll())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := s.expected(t, "NVDA", m)
	agreeing(t, res, want)
	st := statuses(res)
	if st["massive"] != StatusNotCovered || st["alphavantage"] != StatusNotCovered || !st["yahoo"].Priced() {
		t.Errorf("statuses %v", st)
	}
}

func TestSimFaults(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	tests := []struct {
		name    string
		setup   func(s *sim.Server)
		wantErr bool
		want    map[string]Status
		kinds   map[string]sources.ErrorKind // of the failed quotes
	}{
		{
			name:  "an outlier source",
			setup: func(s *sim.Server) { s.SetDriftBps("tiingo", 100) },
			want:  map[string]Status{"tiingo": StatusOutlier, "alpaca": StatusOK},
		},
		{
			name: "an even number of sources takes the lower middle",
			setup: func(s *sim.Server) {
				for _, p := range []string{"yahoo", "massive", "twelvedata", "alphavantage", "finnhub"} {
					s.SetFault(p, sim.FaultUnauthorized)
				}
				s.SetDriftBps("alpaca", -10) // −10, 0 (pyth), +10, +20: the lower middle is pyth's
				s.SetDriftBps("tiingo", 10)
				s.SetDriftBps("fmp", 20)
			},
			want: map[string]Status{"yahoo": StatusError, "pyth": StatusOK, "alpaca": StatusOK, "fmp": StatusOK},
		},
		{
			name: "a quorum that fails",
			setup: func(s *sim.Server) {
				for _, p := range allProviders[2:] {
					s.SetFault(p, sim.FaultUnauthorized)
				}
				s.SetDriftBps("alpaca", 60)
			},
			wantErr: true,
			want:    map[string]Status{"yahoo": StatusOK, "alpaca": StatusOutlier, "pyth": StatusError},
		},
		{
			name: "all sources down",
			setup: func(s *sim.Server) {
				for i, p := range allProviders {
					s.SetFault(p, []sim.Fault{sim.FaultUnauthorized, sim.FaultErrorIn200, sim.FaultTruncated, sim.FaultWrongSymbol}[i%4])
				}
			},
			wantErr: true,
			want:    map[string]Status{"yahoo": StatusError, "alpaca": StatusError, "massive": StatusError, "twelvedata": StatusError},
			kinds: map[string]sources.ErrorKind{"yahoo": sources.KindUnauthorized, "alpaca": sources.KindUnavailable,
				"massive": sources.KindBadResponse, "twelvedata": sources.KindBadResponse},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSimRig(t, m.Add(25*time.Hour))
			tc.setup(s.srv)
			want, _ := s.expected(t, "NVDA", m)
			res, err := s.reconciler(t).Price(context.Background(), "NVDA", m, WaitAll())
			if tc.wantErr {
				if !errors.Is(err, ErrNoAnswer) || res.Agreed {
					t.Fatalf("err %v agreed %v", err, res.Agreed)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if res.Price != want {
					t.Errorf("answer %s, want %s", res.Price, want)
				}
			}
			for p, st := range tc.want {
				if q := quoteOf(t, res, p); q.Status != st {
					t.Errorf("%s: %s (%s), want %s", p, q.Status, q.Err, st)
				}
			}
			for _, q := range res.Quotes {
				if want, ok := tc.kinds[q.Source]; ok && q.Kind != want {
					t.Errorf("%s: kind %q (%s), want %q", q.Source, q.Kind, q.Err, want)
				}
				if (q.Status == StatusError && q.Kind == "") || (q.Kind != "" && q.Status.Priced()) {
					t.Errorf("%s: status %s with kind %q: a kind goes with every failed request, never with a price", q.Source, q.Status, q.Kind)
				}
			}
		})
	}
}

func TestSimCalendar(t *testing.T) {
	tests := []struct {
		name, minute, eff string
		now               string // default minute + 25 h
		sessions          []market.Session
		maxCarry          time.Duration
		wantErr           error
		want              map[string]Status
		oneRequest        bool
	}{
		{name: "a Saturday after an early close, one request per source", minute: "2026-11-28T15:30:00Z", eff: "2026-11-27T21:59:00Z",
			want:       map[string]Status{"alpaca": StatusCarried, "twelvedata": StatusNotCovered, "pyth": StatusCarried},
			oneRequest: true},
		{name: "an early-close day's after-hours minute", minute: "2026-11-27T22:30:00Z", eff: "2026-11-27T21:59:00Z",
			want: map[string]Status{"alpaca": StatusCarried, "finnhub": StatusNotCovered}},
		{name: "a holiday", minute: "2026-11-26T16:00:00Z", eff: "2026-11-26T00:59:00Z",
			want: map[string]Status{"tiingo": StatusCarried, "fmp": StatusNotCovered}},
		{name: "DST week, EST Monday 14:00Z is pre-market", minute: "2026-11-02T14:00:00Z", eff: "2026-11-02T14:00:00Z",
			want: map[string]Status{"twelvedata": StatusNotCovered, "finnhub": StatusNotCovered}},
		{name: "DST week, EDT Friday 14:00Z is regular", minute: "2026-10-30T14:00:00Z", eff: "2026-10-30T14:00:00Z"},
		{name: "DST week, EST Monday 14:30Z opens", minute: "2026-11-02T14:30:00Z", eff: "2026-11-02T14:30:00Z"},
		{name: "an overnight minute without overnight in sessions", minute: "2026-11-24T07:00:00Z", eff: "2026-11-24T00:59:00Z",
			want: map[string]Status{"pyth": StatusCarried, "alpaca": StatusCarried}},
		{name: "an overnight minute with overnight in sessions", minute: "2026-11-24T07:00:00Z",
			sessions: allDay, wantErr: ErrNoAnswer,
			want: map[string]Status{"alpaca": StatusNotCovered, "yahoo": StatusNotCovered}},
		{name: "a carry past max_carry", minute: "2026-11-28T15:30:00Z", maxCarry: 2 * time.Hour, wantErr: ErrNoAnswer,
			want: map[string]Status{"alpaca": StatusNotCovered}},
		{name: "a minute that has not closed", minute: "2026-11-24T15:30:00Z", now: "2026-11-24T15:30:30Z", wantErr: ErrNotClosed},
		{name: "older than yahoo's 29 days and the only keyless source is out", minute: "2026-09-01T15:30:00Z", now: "2026-11-24T15:30:00Z",
			eff: "2026-09-01T15:30:00Z", want: map[string]Status{"yahoo": StatusNotCovered, "alpaca": StatusOK}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustTime(tc.minute)
			now := m.Add(25 * time.Hour)
			if tc.now != "" {
				now = mustTime(tc.now)
			}
			s := newSimRig(t, now)
			if tc.sessions != nil {
				s.spec.Rules.Sessions = tc.sessions
			}
			if tc.maxCarry != 0 {
				s.spec.Rules.MaxCarry, s.spec.Rules.Window = tc.maxCarry, min(s.spec.Rules.Window, tc.maxCarry)
			}
			res, err := s.reconciler(t).Price(context.Background(), "NVDA", m, WaitAll())
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				want, _ := s.expected(t, "NVDA", m)
				agreeing(t, res, want)
				if !res.Effective.Equal(mustTime(tc.eff)) || res.Effective.Location() != time.UTC {
					t.Errorf("effective %s, want %s", res.Effective, tc.eff)
				}
			}
			for p, st := range tc.want {
				if q := quoteOf(t, res, p); q.Status != st {
					t.Errorf("%s: %s (%s), want %s", p, q.Status, q.Err, st)
				}
			}
			if tc.oneRequest {
				for _, q := range res.Quotes {
					if q.Status.Priced() && (q.Requests != 1 || s.srv.Requests(q.Source) != 1) {
						t.Errorf("%s: %d requests (simulator saw %d), want 1", q.Source, q.Requests, s.srv.Requests(q.Source))
					}
				}
			}
		})
	}
}

// TestSimSplitDay prices NVDA around its 10:1 split with yahoo (split-adjusted only) in the mix:
// feeds brings it back to the shares of the minute, and it agrees exactly with the raw sources.
func TestSimSplitDay(t *testing.T) {
	for _, minute := range []string{"2024-06-07T19:59:00Z", "2024-06-08T15:00:00Z", "2024-06-10T13:31:00Z"} {
		t.Run(minute, func(t *testing.T) {
			m := mustTime(minute)
			s := newSimRig(t, mustTime("2024-06-20T15:00:00Z"))
			res, err := s.reconciler(t).Price(context.Background(), "NVDA", m, WaitAll())
			if err != nil {
				t.Fatal(err)
			}
			want, _ := s.expected(t, "NVDA", m)
			agreeing(t, res, want)
			if st := statuses(res)["yahoo"]; !st.Priced() {
				t.Errorf("yahoo %s", st)
			}
		})
	}
	// TSLA's 3:1, the day before and the day of.
	for _, minute := range []string{"2022-08-24T17:00:00Z", "2022-08-25T17:00:00Z"} {
		t.Run("TSLA "+minute, func(t *testing.T) {
			m := mustTime(minute)
			s := newSimRig(t, mustTime("2022-09-01T15:00:00Z"))
			res, err := s.reconciler(t).Price(context.Background(), "TSLA", m, WaitAll())
			if err != nil {
				t.Fatal(err)
			}
			want, _ := s.expected(t, "TSLA", m)
			agreeing(t, res, want)
			if st := statuses(res)["yahoo"]; !st.Priced() {
				t.Errorf("yahoo %s", st)
			}
		})
	}
}

// A quote's Latency is the time its fetch spent asking the source (the JSON's latency_ms, the
// audit's latency), not zero: a quote derived from the ledger after a request is returned with
// the request's time added (it was lost when the quote came from the ledger, issue 26).
func TestQuoteLatencyIsTheFetchsTime(t *testing.T) {
	s := newSimRig(t, benchMinute.Add(25*time.Hour))
	r := s.reconciler(t)
	res, err := r.Price(context.Background(), "NVDA", benchMinute, WaitAll())
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for _, q := range res.Quotes {
		if q.Requests > 0 {
			asked++
			if q.Latency <= 0 {
				t.Errorf("%s made %d requests and reports a latency of %s", q.Source, q.Requests, q.Latency)
			}
		}
	}
	if asked < 4 {
		t.Fatalf("only %d sources were asked: %+v", asked, res.Quotes)
	}
}
