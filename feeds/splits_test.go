package feeds

import (
	"testing"
	"time"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// The shipped split table, as sources.yaml writes it.
func shippedSplits(t *testing.T) Splits {
	t.Helper()
	mk := func(date string, ratio int64) Split {
		d, err := ParseSplitDate(date)
		if err != nil {
			t.Fatal(err)
		}
		return Split{Date: d, Ratio: ratio}
	}
	return Splits{
		"NVDA": sortSplits([]Split{mk("2021-07-20", 4), mk("2024-06-10", 10)}),
		"TSLA": sortSplits([]Split{mk("2020-08-31", 5), mk("2022-08-25", 3)}),
	}
}

func TestSplitEffective(t *testing.T) {
	s := shippedSplits(t)
	// 2024-06-10 is EDT: pre-market opens 08:00Z. 2020-08-31 too.
	if got := s["NVDA"][0].Effective(); !got.Equal(mustTime("2024-06-10T08:00:00Z")) {
		t.Errorf("NVDA 10:1 effective %s", got)
	}
	if got := s["TSLA"][1].Effective(); !got.Equal(mustTime("2020-08-31T08:00:00Z")) {
		t.Errorf("TSLA 5:1 effective %s", got)
	}
}

func TestFactor(t *testing.T) {
	s := shippedSplits(t)
	now := mustTime("2026-11-30T15:00:00Z")
	tests := []struct {
		name   string
		symbol string
		at     string
		now    time.Time
		want   int64
	}{
		{"NVDA Friday before the 10:1, last regular minute", "NVDA", "2024-06-07T19:59:00Z", now, 10},
		{"NVDA Friday before, last post minute", "NVDA", "2024-06-07T23:59:00Z", now, 10},
		{"NVDA overnight before the split day is still old shares", "NVDA", "2024-06-10T07:59:00Z", now, 10},
		{"NVDA split day pre-market open", "NVDA", "2024-06-10T08:00:00Z", now, 1},
		{"NVDA split day regular", "NVDA", "2024-06-10T13:30:00Z", now, 1},
		{"NVDA before both splits", "NVDA", "2021-07-19T19:59:00Z", now, 40},
		{"NVDA between the splits", "NVDA", "2021-07-20T13:30:00Z", now, 10},
		{"NVDA before both, seen before the 10:1 happened", "NVDA", "2021-07-19T19:59:00Z", mustTime("2024-06-09T12:00:00Z"), 4},
		{"NVDA the instant the 10:1 takes effect counts as happened", "NVDA", "2024-06-07T19:59:00Z", mustTime("2024-06-10T08:00:00Z"), 10},
		{"TSLA day before the 3:1", "TSLA", "2022-08-24T19:59:00Z", now, 3},
		{"TSLA 3:1 day", "TSLA", "2022-08-25T13:30:00Z", now, 1},
		{"TSLA before both", "TSLA", "2020-08-28T19:59:00Z", now, 15},
		{"SPY has no splits", "SPY", "2020-08-28T19:59:00Z", now, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Factor(s[tc.symbol], mustTime(tc.at), tc.now)
			if err != nil || got != tc.want {
				t.Errorf("Factor = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

func TestUnadjust(t *testing.T) {
	s := shippedSplits(t)
	now := mustTime("2026-11-30T15:00:00Z")
	// Yahoo-style split-adjusted closes around the NVDA 10:1: Friday 2024-06-07 closed at
	// 1208.88 raw, 120.888 adjusted; Monday traded at ~121.
	in := []sources.Bar{
		{Start: mustTime("2024-06-07T19:59:00Z"), Close: numeric.MustPrice("120.888"), Volume: 50},
		{Start: mustTime("2024-06-10T13:30:00Z"), Close: numeric.MustPrice("120.37"), Volume: 70},
	}
	out, err := Unadjust(in, s["NVDA"], now)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Close != numeric.MustPrice("1208.88") || out[1].Close != numeric.MustPrice("120.37") {
		t.Errorf("unadjusted %s %s", out[0].Close, out[1].Close)
	}
	if out[0].Volume != 50 || !out[0].Start.Equal(in[0].Start) {
		t.Errorf("start or volume changed: %+v", out[0])
	}
	if in[0].Close != numeric.MustPrice("120.888") {
		t.Errorf("Unadjust changed its argument")
	}

	// TSLA across both splits: 1/15 of the raw 2213.40 is 147.56.
	out, err = Unadjust([]sources.Bar{{Start: mustTime("2020-08-28T19:59:00Z"), Close: numeric.MustPrice("147.56")}}, s["TSLA"], now)
	if err != nil || out[0].Close != numeric.MustPrice("2213.40") {
		t.Errorf("TSLA: %v %v", out, err)
	}

	// A product past the largest price is an error, not a wrapped integer.
	_, err = Unadjust([]sources.Bar{{Start: mustTime("2020-08-28T19:59:00Z"), Close: numeric.MustPrice("900000000")}}, s["TSLA"], now)
	if err == nil {
		t.Errorf("overflowing product accepted")
	}
}
