package web

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/numeric"
)

// revisedReport is an audit run with two revised findings as the audit makes them: a rig's
// task whose answer a revision moves past the tolerance, and a minute of the ledger.
func revisedReport(t *testing.T) audit.Report {
	t.Helper()
	m := time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC)
	quote := func(source, price string) feeds.Quote {
		return feeds.Quote{Source: source, Status: feeds.StatusOK, Price: numeric.MustPrice(price), BarTime: m, Final: true, DistanceCentiBps: -1}
	}
	cur := feeds.Result{Symbol: "NVDA", Minute: m, Agreed: true, Price: numeric.MustPrice("101.00"),
		Quotes: []feeds.Quote{quote("alpaca", "101.00"), quote("tiingo", "101.00")}}
	rules := feeds.DefaultRules()
	answers := []audit.Answered{{TaskID: 7, Symbol: "NVDA", Minute: m, Price: numeric.MustPrice("100.00"),
		Used: []feeds.Quote{quote("alpaca", "100.00"), quote("tiingo", "100.00")}}}
	revs := []history.Revision{{Source: "alpaca", Symbol: "NVDA", Minute: m, Old: numeric.MustPrice("100.00"), New: numeric.MustPrice("101.00"),
		Seen: m.Add(10 * time.Minute), OldFinal: true}}
	findings := audit.CheckRevised(answers, revs, map[audit.MinuteKey]feeds.Result{audit.KeyOf("NVDA", m): cur}, m, m.Add(time.Hour), rules, 50)
	if len(findings) != 1 {
		t.Fatalf("findings %+v", findings)
	}
	return audit.Report{At: m.Add(15 * time.Minute), Findings: findings,
		Checks: []audit.CheckResult{{Name: audit.CheckRevisionsName, State: audit.CheckFindings, Findings: 1}}}
}

// TestRevisedFindingsAreShown: the operator's page (the report `audit --journal` kept) and the
// `audit --html` report show a revised finding with its bar, old and new close, and the answer
// given against the one the final bars give.
func TestRevisedFindingsAreShown(t *testing.T) {
	rep := revisedReport(t)
	s, j := testServer(t)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	j.audit = b
	var live bytes.Buffer
	if err := Render(&live, s.Build(context.Background())); err != nil {
		t.Fatal(err)
	}
	html, err := WriteAuditHTML(rep, ReportOptions{ToleranceBps: 50})
	if err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string]string{"the operator's page": live.String(), "audit --html": string(html)} {
		for _, want := range []string{`data-name="revised"`, "task 7", "bar 15:30 close", `<span class="old">100.00</span> → <span class="new">101.00</span>`,
			`answer <span class="answer">100.00</span> → <span class="rederived">101.00</span>`, "outside the 50 bps tolerance"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if !strings.Contains(page, `class="finding alert" data-name="revised"`) {
			t.Errorf("%s: the revised finding is not an alert", name)
		}
	}
}
