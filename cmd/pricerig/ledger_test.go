package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// Issue 26's measure: 48 `pricerig price` calls at 48 different minutes of three trading days,
// on one store, cost each source at most twice its floor — one request for each symbol and
// provider window (the date; Alpha Vantage's month) — and every answer is exact: the tape's close
// at the minute, which every simulated provider serves. Before the ledger they cost 48 requests
// to every source.
func TestFortyEightPricesCostTheFloor(t *testing.T) {
	srv, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	db := filepath.Join(t.TempDir(), "bars.db")
	days := []time.Time{nyNoon(2025, time.November, 17), nyNoon(2025, time.November, 18), nyNoon(2025, time.November, 19)}
	symbols := []string{"NVDA", "TSLA"}
	units := map[string]map[string]bool{} // by provider: the distinct (symbol, window) of the calls
	covs := map[string]sources.Coverage{
		"alpaca": {}, "massive": {}, "alphavantage": {Cut: sources.CutMonth}, // how each cuts its windows
	}
	for i := range 48 {
		day, symbol := days[i%3], symbols[(i/3)%2]
		open, _, _ := market.Day(day.Year(), day.Month(), day.Day()).Bounds(market.Regular)
		minute := open.Add(time.Duration(7+i*8) * time.Minute).UTC()
		code, out, stderr := runCLI(t, "price", "--config", config, "--sim", url, "--db", db, "--json", symbol, minute.Format(time.RFC3339))
		if code != exitOK {
			t.Fatalf("price %s %s: exit %d: %s", symbol, minute, code, stderr)
		}
		var got struct {
			Scaled int64 `json:"price_e8"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		// the close at the minute, or the last before it (a minute without a trade carries)
		truth, ok := srv.Tape().Bar(symbol, minute)
		for back := minute; !ok && back.After(minute.Add(-time.Hour)); back = back.Add(-time.Minute) {
			truth, ok = srv.Tape().Bar(symbol, back)
		}
		if !ok || got.Scaled != int64(truth.Close) {
			t.Errorf("%s %s: answered %d, the tape's close is %s", symbol, minute, got.Scaled, numeric.Scaled(truth.Close))
		}
		for p, cov := range covs {
			if units[p] == nil {
				units[p] = map[string]bool{}
			}
			units[p][symbol+" "+feeds.Unit(cov, minute).From.String()] = true
		}
	}
	for p := range covs {
		floor, n := len(units[p]), srv.Requests(p)
		t.Logf("%s: %d requests, floor %d", p, n, floor)
		if n > 2*floor {
			t.Errorf("%s was asked %d times for 48 prices, more than twice its floor of %d", p, n, floor)
		}
	}
}

func nyNoon(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 12, 0, 0, 0, market.NewYork)
}

// A source declared quota: 5/day is asked at most 5 times across the processes on one store,
// each a command of its own: the sixth day's price finds it over quota (its own status and
// error_kind), and the others answer without it.
func TestAQuotaHoldsAcrossProcesses(t *testing.T) {
	srv, url, config := backfillSim(t, time.Date(2025, 11, 20, 17, 0, 0, 0, time.UTC))
	spec, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	quoted := strings.Replace(string(spec), "massive: {type: massive,", "massive: {type: massive, quota: 5/day,", 1)
	if err := os.WriteFile(config, []byte(quoted), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "bars.db")
	over := 0
	// eight dates: each costs massive a request while its quota lasts
	for i, day := range []int{6, 7, 10, 11, 12, 13, 14, 17} {
		minute := time.Date(2025, 11, day, 15, 30, 0, 0, time.UTC)
		code, out, stderr := runCLI(t, "price", "--config", config, "--sim", url, "--db", db, "--json", "--no-wait", "SPY", minute.Format(time.RFC3339))
		if code != exitOK {
			t.Fatalf("price %d: exit %d: %s", i, code, stderr)
		}
		var got priceOutput
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		for _, q := range got.Sources {
			if q.Name == "massive" && q.Status == string(feeds.StatusOverQuota) {
				over++
				if q.ErrorKind != sources.KindOverQuota || !strings.Contains(q.Error, "5/day") {
					t.Errorf("over quota as %q: %s", q.ErrorKind, q.Error)
				}
			}
		}
	}
	// every date needs massive once: five were sent, the rest refused before they went (a price
	// may answer on an early quorum before massive's refusal is in)
	if n := srv.Requests("massive"); n != 5 {
		t.Errorf("massive was asked %d times; its quota is 5 a day, and 8 dates needed it", n)
	}
	if over == 0 {
		t.Error("no price found massive over quota")
	}
}
