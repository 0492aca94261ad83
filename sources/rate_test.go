package sources

import (
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
		str  string
		bad  bool
	}{
		{in: "200/min", want: Rate{200, time.Minute}, str: "200/min"},
		{in: " 5 / minute ", want: Rate{5, time.Minute}, str: "5/min"},
		{in: "30/10s", want: Rate{30, 10 * time.Second}, str: "30/10s"},
		{in: "25/day", want: Rate{25, 24 * time.Hour}, str: "25/day"},
		{in: "50/h", want: Rate{50, time.Hour}, str: "50/h"},
		{in: "1/sec", want: Rate{1, time.Second}, str: "1/s"},
		{in: "200", bad: true},
		{in: "0/min", bad: true},
		{in: "-3/min", bad: true},
		{in: "x/min", bad: true},
		{in: "5/fortnight", bad: true},
		{in: "5/-1s", bad: true},
		{in: "5/0s", bad: true},
	} {
		got, err := ParseRate(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseRate(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		if got.String() != tc.str {
			t.Errorf("%q prints as %q, want %q", tc.in, got.String(), tc.str)
		}
		// what String prints reads back as the same rate
		if again, err := ParseRate(got.String()); err != nil || again != got {
			t.Errorf("%q does not round-trip: %v, %v", got.String(), again, err)
		}
	}
}

func TestRateZeroIsUnlimited(t *testing.T) {
	var r Rate
	if !r.IsZero() || r.Interval() != 0 || r.String() != "unlimited" {
		t.Errorf("zero rate: zero %v interval %s string %q", r.IsZero(), r.Interval(), r.String())
	}
	l := r.Limiter()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 1000 {
		if !l.AllowN(t0, 1) {
			t.Fatalf("unlimited limiter refused request %d", i)
		}
	}
}

func TestRateLimiterPacesEvenly(t *testing.T) {
	r := Rate{N: 5, Per: time.Minute}
	if r.Interval() != 12*time.Second {
		t.Fatalf("interval %s, want 12s", r.Interval())
	}
	l := r.Limiter()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// burst of one: a second request at the same instant must wait a whole interval
	if !l.AllowN(t0, 1) {
		t.Fatal("first request refused")
	}
	if l.AllowN(t0, 1) || l.AllowN(t0.Add(11*time.Second), 1) {
		t.Fatal("second request allowed before an interval passed")
	}
	if !l.AllowN(t0.Add(12*time.Second), 1) {
		t.Fatal("request refused after one interval")
	}
	// asked every second for a minute, a fresh limiter lets exactly the stated 5 through
	l = r.Limiter()
	allowed := 0
	for s := 0; s < 60; s++ {
		if l.AllowN(t0.Add(time.Duration(s)*time.Second), 1) {
			allowed++
		}
	}
	if allowed != 5 {
		t.Errorf("%d requests allowed in a minute, want 5", allowed)
	}
}

func TestRateOr(t *testing.T) {
	def := Rate{N: 60, Per: time.Minute}
	if got := (Rate{}).Or(def); got != def {
		t.Errorf("zero.Or = %v, want the default %v", got, def)
	}
	set := Rate{N: 1, Per: time.Second}
	if got := set.Or(def); got != set {
		t.Errorf("set.Or = %v, want the setting %v", got, set)
	}
}

// A rate per second or minute paces; one per hour, day or longer is an allowance (a quota).
func TestRatePaceAndAllowance(t *testing.T) {
	for _, tc := range []struct {
		text      string
		paces     bool
		allowance string
	}{{"5/min", true, "none"}, {"30/10s", true, "none"}, {"60/min", true, "none"}, {"50/h", false, "50/hour"}, {"250/day", false, "250/day"}, {"100/2h", false, "100/2h0m0s"}} {
		r, err := ParseRate(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := !r.Pace().IsZero(); got != tc.paces {
			t.Errorf("%s paces: %v, want %v", tc.text, got, tc.paces)
		}
		if got := r.Allowance().String(); got != tc.allowance {
			t.Errorf("%s's allowance: %s, want %s", tc.text, got, tc.allowance)
		}
	}
	if !(Rate{}).Pace().IsZero() || (Rate{}).Allowance() != nil {
		t.Error("the zero rate paces or allows")
	}
}

// A quota with a rate's allowance: the tighter of two limits over one period stays.
func TestQuotaWith(t *testing.T) {
	q := Quota{{N: 50, Per: QuotaHour}, {N: 1000, Per: QuotaDay}}
	for _, tc := range []struct {
		more Quota
		want string
	}{
		{nil, "50/hour, 1000/day"},
		{Quota{{N: 40, Per: QuotaHour}}, "40/hour, 1000/day"},
		{Quota{{N: 60, Per: QuotaHour}}, "50/hour, 1000/day"},
		{Quota{{N: 20000, Per: QuotaMonth}}, "50/hour, 1000/day, 20000/month"},
	} {
		if got := q.With(tc.more).String(); got != tc.want {
			t.Errorf("%s with %s: %s, want %s", q, tc.more, got, tc.want)
		}
	}
	if got := NoQuota.With(Quota{{N: 250, Per: QuotaDay}}).String(); got != "250/day" {
		t.Errorf("none with 250/day: %s", got)
	}
	if q.String() != "50/hour, 1000/day" {
		t.Errorf("With changed its receiver: %s", q)
	}
}
