package feeds

import (
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

func TestPriceAt(t *testing.T) {
	m := mustTime("2026-11-24T15:30:00Z")
	bar := func(at string, price string) sources.Bar {
		return sources.Bar{Start: mustTime(at), Close: numeric.MustPrice(price)}
	}
	tests := []struct {
		name        string
		bars        []sources.Bar
		maxCarry    time.Duration
		wantOK      bool
		wantCarried bool
		wantPrice   string
	}{
		{"the bar at the minute", []sources.Bar{bar("2026-11-24T15:29:00Z", "1"), bar("2026-11-24T15:30:00Z", "2"), bar("2026-11-24T15:31:00Z", "3")}, time.Hour, true, false, "2"},
		{"order does not matter", []sources.Bar{bar("2026-11-24T15:31:00Z", "3"), bar("2026-11-24T15:30:00Z", "2"), bar("2026-11-24T15:28:00Z", "1")}, time.Hour, true, false, "2"},
		{"carry the latest earlier bar", []sources.Bar{bar("2026-11-24T15:20:00Z", "1"), bar("2026-11-24T15:27:00Z", "5"), bar("2026-11-24T15:31:00Z", "3")}, time.Hour, true, true, "5"},
		{"a carry exactly max_carry old counts", []sources.Bar{bar("2026-11-24T14:30:00Z", "7")}, time.Hour, true, true, "7"},
		{"a carry past max_carry does not", []sources.Bar{bar("2026-11-24T14:29:00Z", "7")}, time.Hour, false, false, ""},
		{"only later bars", []sources.Bar{bar("2026-11-24T15:31:00Z", "3")}, time.Hour, false, false, ""},
		{"no bars", nil, time.Hour, false, false, ""},
		{"a zero close is no price", []sources.Bar{bar("2026-11-24T15:29:00Z", "4"), {Start: m}}, time.Hour, true, true, "4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, carried, ok := PriceAt(tc.bars, m, tc.maxCarry)
			if ok != tc.wantOK || carried != tc.wantCarried {
				t.Fatalf("ok=%v carried=%v, want %v %v", ok, carried, tc.wantOK, tc.wantCarried)
			}
			if ok && got.Close != numeric.MustPrice(tc.wantPrice) {
				t.Errorf("price %s, want %s", got.Close, tc.wantPrice)
			}
		})
	}
}

func priced(name, price string) Quote {
	return Quote{Source: name, Status: StatusOK, Price: numeric.MustPrice(price)}
}

func TestReconcile(t *testing.T) {
	rules := Rules{MinSources: 2, OutlierBps: 25}
	tests := []struct {
		name       string
		quotes     []Quote
		rules      Rules
		wantAgreed bool
		wantPrice  string
		wantMedian string
		wantStatus []Status
		wantDist   []string
		reason     string
	}{
		{
			name:       "three agree",
			quotes:     []Quote{priced("a", "100.00"), priced("b", "100.10"), priced("c", "99.95")},
			rules:      rules,
			wantAgreed: true, wantPrice: "100.00", wantMedian: "100.00",
			wantStatus: []Status{StatusOK, StatusOK, StatusOK},
			wantDist:   []string{"0.00", "10.00", "5.00"},
		},
		{
			name:       "an outlier is dropped and the median re-taken",
			quotes:     []Quote{priced("a", "100.00"), priced("b", "100.20"), priced("c", "101.00"), priced("d", "100.10")},
			rules:      rules,
			wantAgreed: true, wantPrice: "100.10", wantMedian: "100.10",
			wantStatus: []Status{StatusOK, StatusOK, StatusOutlier, StatusOK},
			wantDist:   []string{"9.99", "9.99", "89.91", "0.00"},
		},
		{
			name: "the re-taken median moves when the outlier was above",
			// first median (lower of 4) = 100.00; 100.30 is 30 bps off → outlier; survivors
			// 99.90, 100.00, 100.20 → 100.00
			quotes:     []Quote{priced("a", "99.90"), priced("b", "100.00"), priced("c", "100.30"), priced("d", "100.20")},
			rules:      rules,
			wantAgreed: true, wantPrice: "100.00", wantMedian: "100.00",
			wantStatus: []Status{StatusOK, StatusOK, StatusOutlier, StatusOK},
		},
		{
			name:       "even count takes the lower middle",
			quotes:     []Quote{priced("a", "100.04"), priced("b", "100.00"), priced("c", "100.02"), priced("d", "100.06")},
			rules:      rules,
			wantAgreed: true, wantPrice: "100.02", wantMedian: "100.02",
		},
		{
			name:       "exactly outlier_bps away survives",
			quotes:     []Quote{priced("a", "100.00"), priced("b", "100.25")},
			rules:      rules,
			wantAgreed: true, wantPrice: "100.00",
			wantStatus: []Status{StatusOK, StatusOK},
		},
		{
			name:       "a quorum that fails: two sources disagree",
			quotes:     []Quote{priced("a", "100.00"), priced("b", "100.26")},
			rules:      rules,
			wantAgreed: false, wantMedian: "100.00",
			wantStatus: []Status{StatusOK, StatusOutlier},
			reason:     "2 sources gave a price but only 1 agreed within outlier_bps; min_sources is 2",
		},
		{
			name:       "too few priced",
			quotes:     []Quote{priced("a", "100.00"), {Source: "b", Status: StatusError, Err: "boom"}, {Source: "c", Status: StatusNoKey}},
			rules:      rules,
			wantAgreed: false,
			wantStatus: []Status{StatusOK, StatusError, StatusNoKey},
			wantDist:   []string{"0.00", "", ""},
			reason:     "1 source gave a price; min_sources is 2",
		},
		{
			name:       "all down",
			quotes:     []Quote{{Source: "a", Status: StatusError}, {Source: "b", Status: StatusPending}},
			rules:      rules,
			wantAgreed: false,
			reason:     "no source gave a price",
		},
		{
			name:       "a stale outlier mark is judged afresh",
			quotes:     []Quote{priced("a", "100.00"), {Source: "b", Status: StatusOutlier, Price: numeric.MustPrice("100.01"), Carried: true}},
			rules:      rules,
			wantAgreed: true, wantPrice: "100.00",
			wantStatus: []Status{StatusOK, StatusCarried},
		},
		{
			name:       "min_sources 1",
			quotes:     []Quote{priced("a", "100.00")},
			rules:      Rules{MinSources: 1, OutlierBps: 25},
			wantAgreed: true, wantPrice: "100.00",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := make([]Status, len(tc.quotes))
			for i, q := range tc.quotes {
				before[i] = q.Status
			}
			res := Reconcile(tc.quotes, tc.rules)
			for i, q := range tc.quotes {
				if q.Status != before[i] {
					t.Errorf("Reconcile changed its argument: quote %d %s → %s", i, before[i], q.Status)
				}
			}
			if res.Agreed != tc.wantAgreed {
				t.Fatalf("agreed=%v (%s), want %v", res.Agreed, res.Reason, tc.wantAgreed)
			}
			if tc.wantPrice != "" && res.Price != numeric.MustPrice(tc.wantPrice) {
				t.Errorf("price %s, want %s", res.Price, tc.wantPrice)
			}
			if !tc.wantAgreed && res.Price != 0 {
				t.Errorf("no answer must leave Price zero, got %s", res.Price)
			}
			if tc.wantMedian != "" && res.Median != numeric.MustPrice(tc.wantMedian) {
				t.Errorf("median %s, want %s", res.Median, tc.wantMedian)
			}
			for i, s := range tc.wantStatus {
				if res.Quotes[i].Status != s {
					t.Errorf("quote %d status %s, want %s", i, res.Quotes[i].Status, s)
				}
			}
			for i, d := range tc.wantDist {
				if got := res.Quotes[i].DistanceBps(); got != d {
					t.Errorf("quote %d distance %q, want %q", i, got, d)
				}
			}
			if tc.reason != "" && res.Reason != tc.reason {
				t.Errorf("reason %q, want %q", res.Reason, tc.reason)
			}
		})
	}
}

// TestReconcileOrderIndependent checks that the answer does not depend on the order of the quotes.
func TestReconcileOrderIndependent(t *testing.T) {
	qs := []Quote{priced("a", "100.00"), priced("b", "100.20"), priced("c", "101.00"), priced("d", "100.10"), priced("e", "99.99")}
	want := Reconcile(qs, Rules{MinSources: 2, OutlierBps: 25})
	for shift := 1; shift < len(qs); shift++ {
		rot := append(append([]Quote{}, qs[shift:]...), qs[:shift]...)
		got := Reconcile(rot, Rules{MinSources: 2, OutlierBps: 25})
		if got.Price != want.Price || got.Survivors != want.Survivors || got.Median != want.Median {
			t.Errorf("rotation %d: %s/%d, want %s/%d", shift, got.Price, got.Survivors, want.Price, want.Survivors)
		}
	}
}

func TestFormatCentiBps(t *testing.T) {
	for c, want := range map[int64]string{0: "0.00", 5: "0.05", 99: "0.99", 1234: "12.34", 1_000_000: "10000.00"} {
		if got := FormatCentiBps(c); got != want {
			t.Errorf("%d → %q, want %q", c, got, want)
		}
	}
	if (Quote{DistanceCentiBps: -1}).DistanceBps() != "" {
		t.Errorf("no price must have no distance")
	}
}

// TestReconcileOwnedMatchesReconcile checks that the in-place reconcile gives Reconcile's result
// and that Reconcile leaves its argument alone; also past 16 sources, beyond the stack buffers.
func TestReconcileOwnedMatchesReconcile(t *testing.T) {
	many := []Quote{{Source: "x", Status: StatusNoData, DistanceCentiBps: -1}}
	for i := range 20 {
		many = append(many, priced(string(rune('a'+i)), "100."+strconv.Itoa(10+i*3)))
	}
	outlier := priced("o", "100.00")
	outlier.Status = StatusOutlier
	for _, qs := range [][]Quote{
		{priced("a", "100.00"), priced("b", "100.20"), priced("c", "101.00"), outlier},
		many,
	} {
		before := slices.Clone(qs)
		want := Reconcile(qs, Rules{MinSources: 2, OutlierBps: 25})
		if !reflect.DeepEqual(qs, before) {
			t.Fatalf("Reconcile changed its argument")
		}
		got := ReconcileOwned(slices.Clone(qs), Rules{MinSources: 2, OutlierBps: 25})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ReconcileOwned = %+v, Reconcile = %+v", got, want)
		}
		if want.Survivors == 0 || want.Survivors == len(qs) {
			t.Fatalf("the case should keep some quotes and drop others: %d survivors of %d", want.Survivors, len(qs))
		}
	}
}
