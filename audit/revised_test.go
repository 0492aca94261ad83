package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/journal"
)

// The revisions check on hand-made answers and revisions: which answers used a revised bar, and
// what the finding says of it.

var (
	revMinute = mustTime("2026-11-24T15:30:00Z")
	revRules  = feeds.DefaultRules()
)

func okQuote(source, price string, bar time.Time) feeds.Quote {
	return feeds.Quote{Source: source, Status: feeds.StatusOK, Price: numeric.MustPrice(price), BarTime: bar, Final: true, DistanceCentiBps: -1}
}

// nowAt is the ledger's answer at revMinute now: three sources, alpaca's bar revised to 101.
func nowAt(alpaca string) map[MinuteKey]feeds.Result {
	quotes := []feeds.Quote{okQuote("alpaca", alpaca, revMinute), okQuote("tiingo", "100.20", revMinute), okQuote("yahoo", "100.40", revMinute)}
	return map[MinuteKey]feeds.Result{KeyOf("NVDA", revMinute): feeds.Reconcile(quotes, revRules)}
}

func revision(source, old, new string, seen time.Time, oldFinal bool) history.Revision {
	return history.Revision{Source: source, Symbol: "NVDA", Minute: revMinute, Old: numeric.MustPrice(old), New: numeric.MustPrice(new),
		OldFetched: revMinute.Add(2 * time.Minute), Seen: seen, OldFinal: oldFinal}
}

func TestRevisedFindsTheAnswersThatUsedTheOldClose(t *testing.T) {
	deadline := revMinute.Add(5 * time.Minute)
	window := [2]time.Time{revMinute.Add(-10 * time.Minute), revMinute.Add(10 * time.Minute)}
	task := Answered{TaskID: 9, Symbol: "NVDA", Minute: revMinute, Price: numeric.MustPrice("100.00"), By: deadline}
	marked := task
	marked.Used = []feeds.Quote{okQuote("alpaca", "100.00", revMinute), okQuote("tiingo", "100.20", revMinute)}
	stored := Answered{Symbol: "NVDA", Minute: revMinute, Price: numeric.MustPrice("100.00"), Used: marked.Used}
	after, before := deadline.Add(time.Minute), deadline.Add(-time.Minute)
	tests := []struct {
		name    string
		answers []Answered
		rev     history.Revision
		window  [2]time.Time
		want    string // "task 9", "minute", or "" for no finding
	}{
		{"a task's final bar revised after its commit deadline", []Answered{task}, revision("alpaca", "100.00", "101.00", after, true), window, "task 9"},
		{"a task's bar revised before its commit deadline: it may have answered from the new close", []Answered{task}, revision("alpaca", "100.00", "101.00", before, true), window, "minute"},
		{"a task's bar revised before its commit deadline, outside the window", []Answered{task}, revision("alpaca", "100.00", "101.00", before, true), [2]time.Time{revMinute.Add(time.Minute), revMinute.Add(time.Hour)}, ""},
		{"a provisional bar the task's mark holds", []Answered{marked}, revision("alpaca", "100.00", "101.00", before, false), window, "task 9"},
		{"a provisional bar the task's mark does not hold", []Answered{marked}, revision("alpaca", "99.00", "101.00", before, false), window, ""},
		{"a provisional bar no answer used (the ledger answers from final bars)", nil, revision("alpaca", "100.00", "101.00", after, false), window, ""},
		{"a stored answer's quote", []Answered{stored}, revision("alpaca", "100.00", "101.00", after, true), [2]time.Time{}, "minute"},
		{"the ledger's own minute (price)", nil, revision("alpaca", "100.00", "101.00", after, true), window, "minute"},
		{"a revision of a source the answer did not use", []Answered{stored}, revision("yahoo", "100.00", "100.40", after, true), [2]time.Time{}, ""},
		{"a stored answer taken after the revision: the record, not the ledger's minute", []Answered{stored}, revision("alpaca", "99.00", "101.00", after, true), window, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cur := nowAt(tc.rev.New.String())
			if tc.rev.Source == "yahoo" {
				cur = nowAt("101.00")
			}
			got := CheckRevised(tc.answers, []history.Revision{tc.rev}, cur, tc.window[0], tc.window[1], revRules, 50)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Fatalf("findings %+v, want none", got)
			case tc.want == "":
				return
			case len(got) != 1:
				t.Fatalf("findings %+v, want one about the %s", got, tc.want)
			}
			f := got[0]
			if (tc.want == "task 9") != (f.TaskID == 9) || f.Name != Revised || f.Check != CheckRevisionsName || f.Source != tc.rev.Source ||
				!f.BarTime.Equal(revMinute) || !f.First.Equal(revMinute) || f.OldClose != tc.rev.Old.String() || f.NewClose != "101.00" {
				t.Errorf("finding %+v, want the %s's", f, tc.want)
			}
			if !strings.Contains(f.Message, "revised its 15:30 close from "+tc.rev.Old.String()+" to 101.00") {
				t.Errorf("message %q", f.Message)
			}
		})
	}
}

// TestRevisedMeasuresTheAnswerAgainstTheTolerance: the answer given against the one the final
// bars give now: a warning inside the tolerance, an alert past it; an answer that was not
// recorded (price's) is the ledger's with every old close it held final.
func TestRevisedMeasuresTheAnswerAgainstTheTolerance(t *testing.T) {
	after := revMinute.Add(time.Hour)
	// three sources at 100.00, 100.20, 100.40: the answer is their lower median, 100.20
	for _, tc := range []struct {
		name, given, alpacaNow string
		severity               Severity
		value, rederived       string
	}{
		{"the same answer", "100.20", "100.10", Warn, "0.00", "100.20"},
		{"moved inside the tolerance", "100.00", "100.10", Warn, "20.00", "100.20"},
		{"moved past the tolerance", "99.00", "100.10", Alert, "121.21", "100.20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Answered{TaskID: 3, Symbol: "NVDA", Minute: revMinute, Price: numeric.MustPrice(tc.given), By: revMinute.Add(5 * time.Minute)}
			got := CheckRevised([]Answered{a}, []history.Revision{revision("alpaca", "100.00", tc.alpacaNow, after, true)}, nowAt(tc.alpacaNow), time.Time{}, time.Time{}, revRules, 50)
			if len(got) != 1 {
				t.Fatalf("findings %+v", got)
			}
			f := got[0]
			if f.Severity != tc.severity || f.Value != tc.value || f.Limit != "50.00" || f.Answer != tc.given || f.Rederived != tc.rederived {
				t.Errorf("severity %s value %s limit %s answer %s re-derived %s, want %s %s 50.00 %s %s", f.Severity, f.Value, f.Limit, f.Answer, f.Rederived,
					tc.severity, tc.value, tc.given, tc.rederived)
			}
		})
	}

	t.Run("price's answer, every source revised", func(t *testing.T) {
		// the ledger held 99.00, 99.20 and 100.40 final and answered 99.00 (100.40 is past
		// outlier_bps from their median, 99.20); alpaca and tiingo moved up a dollar
		revs := []history.Revision{revision("alpaca", "99.00", "100.00", after, true), revision("tiingo", "99.20", "100.20", after, true)}
		got := CheckRevised(nil, revs, nowAt("100.00"), revMinute, revMinute.Add(time.Minute), revRules, 50)
		if len(got) != 2 {
			t.Fatalf("findings %+v", got)
		}
		for _, f := range got {
			if f.TaskID != 0 || f.Answer != "99.00" || f.Rederived != "100.20" || f.Value != "121.21" || f.Severity != Alert {
				t.Errorf("%s: answer %s re-derived %s value %s %s, want 99.00 100.20 121.21 alert", f.Source, f.Answer, f.Rederived, f.Value, f.Severity)
			}
		}
	})

	t.Run("an early-quorum answer, measured on the sources it counted", func(t *testing.T) {
		// the task counted alpaca (100.00) and tiingo (100.20) and answered their lower median,
		// 100.00; yahoo's 100.40 reached the ledger after it. alpaca moved to 100.10: counting the
		// same two the answer is now 100.10, 10 bps away; counting yahoo too it would be 100.20.
		a := Answered{TaskID: 3, Symbol: "NVDA", Minute: revMinute, Price: numeric.MustPrice("100.00"), By: revMinute.Add(5 * time.Minute),
			Counted: []string{"alpaca", "tiingo"}}
		got := CheckRevised([]Answered{a}, []history.Revision{revision("alpaca", "100.00", "100.10", after, true)}, nowAt("100.10"), time.Time{}, time.Time{}, revRules, 50)
		if len(got) != 1 || got[0].Rederived != "100.10" || got[0].Value != "10.00" {
			t.Fatalf("findings %+v, want one re-derived 100.10, 10.00 bps", got)
		}
		// a revision of yahoo, which the answer did not count, is no finding of it
		if got := CheckRevised([]Answered{a}, []history.Revision{revision("yahoo", "100.30", "100.40", after, true)}, nowAt("100.00"), time.Time{}, time.Time{}, revRules, 50); len(got) != 0 {
			t.Fatalf("findings %+v for a source the answer did not count", got)
		}
	})

	t.Run("no answer now", func(t *testing.T) {
		a := Answered{TaskID: 3, Symbol: "NVDA", Minute: revMinute, Price: numeric.MustPrice("100.00"), By: revMinute.Add(5 * time.Minute)}
		cur := map[MinuteKey]feeds.Result{KeyOf("NVDA", revMinute): {Reason: "too few sources agree",
			Quotes: []feeds.Quote{okQuote("alpaca", "101.00", revMinute)}}}
		got := CheckRevised([]Answered{a}, []history.Revision{revision("alpaca", "100.00", "101.00", after, true)}, cur, time.Time{}, time.Time{}, revRules, 50)
		if len(got) != 1 || got[0].Severity != Warn || got[0].Rederived != "" || !strings.Contains(got[0].Message, "no answer now (too few sources agree)") {
			t.Fatalf("findings %+v", got)
		}
	})
}

// TestRevisedReadsTheRigsMarks: a task's mark gives the quotes it was answered from; one answer
// per task however many of our rigs were drawn; refusals and unanswered entries are no answer.
func TestRevisedReadsTheRigsMarks(t *testing.T) {
	deadline := revMinute.Add(5 * time.Minute)
	entries := []journal.Entry{
		{TaskID: 1, RigID: 1, Symbol: "NVDA", Minute: revMinute, Price: numeric.MustPrice("100.00"), CommitDeadline: deadline, State: journal.StateCommitted},
		{TaskID: 1, RigID: 2, Symbol: "NVDA", Minute: revMinute, Price: numeric.MustPrice("100.00"), CommitDeadline: deadline, State: journal.StateCommitted},
		{TaskID: 2, RigID: 1, Symbol: "NVDA", Minute: revMinute, Price: numeric.MustPrice("1.00"), Refusal: "the minute is in the future"},
		{TaskID: 3, RigID: 1, Symbol: "NVDA", Minute: revMinute, State: journal.StateSkipped},
	}
	marks := []journal.UnsettledMark{{TaskID: 1, Symbol: "NVDA", Minute: revMinute, Outcome: journal.UnsettledProvisional,
		Sources: []journal.MarkedSource{{Name: "alpaca", Status: "not_final", Price: numeric.MustPrice("100.00"), BarTime: revMinute}}}}
	got := answeredOf(entries, marks)
	if len(got) != 1 || got[0].TaskID != 1 || !got[0].By.Equal(deadline) || len(got[0].Used) != 1 || got[0].Used[0].Price != numeric.MustPrice("100.00") {
		t.Fatalf("answers %+v", got)
	}
}

// TestRevisedFindsABarThatAppearedOverACarriedMinute: an answer that carried an earlier bar over
// a minute whose bar the source published later (history.Revision with old close 0) is a
// finding, as a changed close is (issue 33); one that used a bar at that very minute is not.
func TestRevisedFindsABarThatAppearedOverACarriedMinute(t *testing.T) {
	deadline := revMinute.Add(5 * time.Minute)
	appeared := history.Revision{Source: "alpaca", Symbol: "NVDA", Minute: revMinute, New: numeric.MustPrice("101.00"),
		OldFetched: revMinute.Add(2 * time.Minute), Seen: deadline.Add(10 * time.Minute), OldFinal: true}
	carried := okQuote("alpaca", "99.00", revMinute.Add(-3*time.Minute))
	carried.Status, carried.Carried = feeds.StatusCarried, true
	task := Answered{TaskID: 9, Symbol: "NVDA", Minute: revMinute, Price: numeric.MustPrice("100.00"), By: deadline,
		Used: []feeds.Quote{carried, okQuote("tiingo", "100.20", revMinute)}}
	got := CheckRevised([]Answered{task}, []history.Revision{appeared}, nowAt("101.00"), time.Time{}, time.Time{}, revRules, 50)
	if len(got) != 1 || got[0].TaskID != 9 || got[0].OldClose != "" || got[0].NewClose != "101.00" ||
		!strings.Contains(got[0].Message, "alpaca published a 15:30 bar (close 101.00)") {
		t.Fatalf("findings %+v, want one of task 9's carried alpaca quote", got)
	}
	task.Used[0] = okQuote("alpaca", "100.00", revMinute)
	if got := CheckRevised([]Answered{task}, []history.Revision{appeared}, nowAt("101.00"), time.Time{}, time.Time{}, revRules, 50); len(got) != 0 {
		t.Errorf("findings %+v for an answer that did not carry over the minute", got)
	}
}
