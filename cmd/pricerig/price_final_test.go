package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources/sim"
)

// lateSpec is the built-in spec with every source's rate raised: the rate limiters pace on the
// real clock, and a fake one that jumps to each source's final_after would have them hold a
// second request for seconds of real time.
func lateSpec(t *testing.T) string {
	t.Helper()
	spec := regexp.MustCompile(`(?m)^    rate: .*$`).ReplaceAllString(string(pricerig.DefaultSpec), "    rate: 100/s")
	if spec == string(pricerig.DefaultSpec) {
		t.Fatal("the built-in spec sets no rate to raise")
	}
	file := filepath.Join(t.TempDir(), "sources.yaml")
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// startLateSim serves the simulator in issue 24's late world (sim.LateWorld: providers 25–45 s
// late that revise within 40 s) with the commands' clock at now; waiting moves the clock.
func startLateSim(t *testing.T, now time.Time) (*sim.Server, *testClock, string) {
	t.Helper()
	clock := &testClock{t: now}
	srv := sim.New(sim.Options{Seed: 3, Now: clock.Now})
	for p, pub := range sim.LateWorld() {
		srv.SetPublication(p, pub)
	}
	hs := httptest.NewServer(srv)
	oldNow, oldWait := priceNow, priceWait
	priceNow, priceWait = clock.Now, clock.Until
	t.Cleanup(func() { priceNow, priceWait = oldNow, oldWait; srv.Close(); hs.Close() })
	return srv, clock, hs.URL
}

// lateMinute is a regular minute whose close differs from the minute before's and from its
// provisional close (its open), so an answer tells them apart.
func lateMinute(t *testing.T) (m time.Time, final, previous, provisional numeric.Scaled) {
	t.Helper()
	probe := sim.New(sim.Options{Seed: 3, Now: func() time.Time { return time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC) }})
	for m = time.Date(2026, 11, 24, 15, 30, 0, 0, time.UTC); m.Hour() < 20; m = m.Add(time.Minute) {
		b, ok1 := probe.Tape().Bar("NVDA", m)
		prev, ok2 := probe.Tape().Bar("NVDA", m.Add(-time.Minute))
		o, ok3 := probe.Tape().Provisional("NVDA", m)
		if ok1 && ok2 && ok3 && b.Close != prev.Close && b.Close != o && prev.Close != o {
			return m, b.Close, prev.Close, o
		}
	}
	t.Fatal("no minute of the tape tells its close from the one before and its open")
	return
}

// TestPriceTwoSecondsAfterTheMinuteIsFinal is issue 24's done condition for `pricerig price`:
// asked 2 s after a minute closes, against providers that publish 25–45 s late and revise a close
// within 40 s, it answers the final price (waiting), or says the minute is not final yet
// (--no-wait): never the previous minute's close, never the provisional one. Before finality it
// carried the minute before from every source and answered that at once.
func TestPriceTwoSecondsAfterTheMinuteIsFinal(t *testing.T) {
	noEnv(t)
	m, final, previous, provisional := lateMinute(t)
	asked := m.Add(time.Minute + 2*time.Second)

	t.Run("no wait", func(t *testing.T) {
		_, clock, url := startLateSim(t, asked)
		code, out, stderr := runCLI(t, "price", "--no-wait", "--json", "--sim", url, "NVDA", m.Format(time.RFC3339))
		if code != exitFailure || !strings.Contains(stderr, "not final yet") {
			t.Fatalf("exit %d stderr %q, want 1 and not final yet", code, stderr)
		}
		p := decodePrice(t, out)
		if p.Agreed || p.Price != "" || len(p.NotFinal) == 0 {
			t.Fatalf("answered %q (agreed %v), not final %v", p.Price, p.Agreed, p.NotFinal)
		}
		for _, q := range p.Sources {
			if q.Price != nil || q.Status == string(feeds.StatusCarried) || q.Final {
				t.Errorf("%s: %s price %v final %v", q.Name, q.Status, q.Price, q.Final)
			}
			if q.Status == string(feeds.StatusNotFinal) && (q.ErrorKind != "not_final" || q.FetchedAt != asked.Format(time.RFC3339)) {
				t.Errorf("%s: error_kind %q fetched_at %q", q.Name, q.ErrorKind, q.FetchedAt)
			}
			if strings.Contains(strings.Join(p.NotFinal, ","), q.Name) != (q.Status == string(feeds.StatusNotFinal)) {
				t.Errorf("%s: %s, not_final lists %v", q.Name, q.Status, p.NotFinal)
			}
		}
		if !clock.Now().Equal(asked) {
			t.Errorf("--no-wait waited until %v", clock.Now())
		}
	})

	t.Run("waits for the final price", func(t *testing.T) {
		_, clock, url := startLateSim(t, asked)
		code, out, stderr := runCLI(t, "price", "--json", "--config", lateSpec(t), "--sim", url, "NVDA", m.Format(time.RFC3339))
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		p := decodePrice(t, out)
		if p.Price != final.String() || p.Price == previous.String() || p.Price == provisional.String() {
			t.Fatalf("answered %s: final %s, previous minute %s, provisional %s", p.Price, final, previous, provisional)
		}
		for _, q := range p.Sources {
			if q.Price != nil && (!q.Final || *q.Price != final.String() || *q.BarTime != m.Format(time.RFC3339)) {
				t.Errorf("%s: %s at %v final %v", q.Name, *q.Price, *q.BarTime, q.Final)
			}
		}
		// it answered once enough sources were final (the spec's 60 s where providers document
		// nothing), not at the end of its --wait
		if waited := clock.Now().Sub(m.Add(time.Minute)); waited != time.Minute {
			t.Errorf("answered %s after the minute closed, want when the sources were final (1m)", waited)
		}
		// and it said so first: what it waits for and until when, not a silent pause (issue 37)
		until := m.Add(2 * time.Minute).Format("15:04:05 UTC")
		if !strings.Contains(stderr, "pricerig price: waiting ") || !strings.Contains(stderr, "until "+until) || !strings.Contains(stderr, "to be final") {
			t.Errorf("price waited in silence, or did not say until %s:\n%s", until, stderr)
		}
	})
}
