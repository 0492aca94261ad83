package web

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"math/big"
	"slices"
	"time"

	"github.com/pricerig/pricerig/audit"
	"github.com/pricerig/pricerig/doctor"
	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/rig/journal"
)

// Page is everything one rendering of the page shows. Build fills it from the journal, the chain
// and the recorder; the audit report fills it from a Report. Every number is text already
// formatted from exact integers: the template never computes.
type Page struct {
	Title     string
	Static    bool // a self-contained report: no script, the style inlined
	Generated string
	Facts     []Fact // the header line: chain, contract, job, tolerance, role

	Rigs      []RigView
	RigsNote  string // why the rigs section is empty or partial
	Tasks     []TaskView
	TasksNote string // why there is no task
	Minutes   []MinuteView
	Symbols   []SymbolView // the audit report's sources, one screen per symbol (Minutes stay empty)
	Audit     *AuditView
	Doctor    *DoctorView
	Balances  []Fact
}

// Fact is one labelled value of a header line.
type Fact struct{ Label, Value string }

// RigView is one rig of this process, as the chain holds it.
type RigView struct {
	ID       uint64
	Operator string
	Owner    string
	Active   bool
	Stake    string // ETH
	Locked   string // ETH
	Credits  string // ETH the operator can withdraw
	Sender   string // the key that pays the rig's gas: the operator's, or the relayer's
	Balance  string // ETH on the sending key
	Role     string // single; leader or follower once instances share a PostgreSQL journal
	Err      string
}

// The steps of a task's life, as the step bar draws them.
var steps = []string{"ordered", "drawn", "committed", "revealed", "settled"}

// TaskView is one of our rigs on one task.
type TaskView struct {
	TaskID   uint64
	RigID    uint64
	Symbol   string
	Minute   string
	State    string // the journal's state
	Steps    template.HTML
	Answer   string
	Median   string // the stored median once settled, the expected median before
	Stored   bool   // Median is the stored one
	Distance string // bps, "" when unknown
	Bar      template.HTML
	Level    string // ok, warn (past the self-check share), bad (past the tolerance)
	GasPaid  string // ETH, "" until the journal records it
	Earned   string
	Reason   string
}

// MinuteView is one priced minute with every source's quote.
type MinuteView struct {
	Symbol   string
	Minute   string
	Answer   string
	NoAnswer bool   // the sources did not reconcile (known only for the rig's own minutes)
	Note     string // why there is no answer
	Chart    template.HTML
	Sources  []SourceView
}

// SourceView is one source's quote at one minute.
type SourceView struct {
	Name     string
	Status   string
	Bad      bool // failed or dropped: drawn red
	Latency  string
	Price    string
	Distance string // bps, "" without a price
	// Why is what the quote's error says (redacted): how a source failed, or why it was not
	// asked, so that no status is shown bare; "" for a priced source and NotAsked.
	Why   string
	centi int64
}

// AuditView is the last audit run.
type AuditView struct {
	At       string
	Healthy  bool
	Checks   []audit.CheckResult
	Findings []audit.Finding
}

// DoctorView is the last `pricerig doctor` run kept in a journal: its counts and every check,
// the failures and warnings first.
type DoctorView struct {
	At             string
	Fail, Warn, OK int
	Checks         []doctor.Check
	Unreadable     string
}

// Money is what a task cost and earned one rig, in wei; nil when not known.
type Money struct{ GasPaid, Earned *big.Int }

// limits are the tolerance and the self-check share that colour a distance.
type limits struct {
	toleranceBps uint32
	sharePercent int
}

// level says how a distance stands against the limits.
func (l limits) level(centi int64) string {
	switch {
	case l.toleranceBps == 0 || centi < 0:
		return "ok"
	case centi > int64(l.toleranceBps)*100:
		return "bad"
	case centi > int64(l.toleranceBps)*int64(l.sharePercent):
		return "warn"
	}
	return "ok"
}

// stepOf places a journal state on the step bar: the index of the last step done, and whether
// the task ended short of settling.
func stepOf(s journal.State) (int, bool) {
	switch s {
	case journal.StateDrawn, journal.StateAnswered:
		return 1, false
	case journal.StateCommitted:
		return 2, false
	case journal.StateRevealed:
		return 3, false
	case journal.StateSettled:
		return 4, false
	}
	return 1, true // skipped, missed, refunded: ended without settling
}

// taskViews turns journal entries into rows, newest task first.
func taskViews(entries []journal.Entry, l limits, money func(journal.Entry) Money) []TaskView {
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b journal.Entry) int {
		return cmp.Or(cmp.Compare(b.TaskID, a.TaskID), cmp.Compare(a.RigID, b.RigID))
	})
	out := make([]TaskView, 0, len(entries))
	for _, e := range entries {
		step, short := stepOf(e.State)
		v := TaskView{TaskID: e.TaskID, RigID: e.RigID, Symbol: e.Symbol, State: string(e.State),
			Steps: stepBar(step, short, string(e.State)), Reason: e.Reason}
		if !e.Minute.IsZero() {
			v.Minute = e.Minute.UTC().Format("2006-01-02 15:04")
		}
		if e.Price != 0 {
			v.Answer = e.Price.String()
		}
		if e.Refusal != "" { // every rig answered the spec's refusal answer, not a price
			v.Answer = "refused (" + numeric.FormatScaled(numeric.AnswerInt(e.Answer)) + ")"
			if v.Reason == "" {
				v.Reason = e.Refusal
			}
		}
		centi := int64(-1)
		switch {
		case e.StoredAnswer != ([32]byte{}):
			v.Median, v.Stored = numeric.FormatScaled(numeric.AnswerInt(e.StoredAnswer)), true
			if e.Price != 0 {
				centi = e.RealizedCentiBps
			}
		case e.ExpectedMedian != 0:
			v.Median, centi = e.ExpectedMedian.String(), e.SelfCentiBps
		}
		if centi >= 0 {
			v.Distance, v.Level = feeds.FormatCentiBps(centi), l.level(centi)
			v.Bar = distanceBar(centi, l)
		}
		if money != nil {
			m := money(e)
			v.GasPaid, v.Earned = ethOrEmpty(m.GasPaid), ethOrEmpty(m.Earned)
		}
		out = append(out, v)
	}
	return out
}

// LedgerMoney reads the gas and earned columns from journals' ledgers: the gas a task cost a
// rig once one of its transactions is mined, and what it earned once its entry is final (0 for a
// task that paid the rig nothing).
func LedgerMoney(ledgers ...journal.Ledger) func(journal.Entry) Money {
	return func(e journal.Entry) Money {
		var out Money
		for _, l := range ledgers {
			m, ok := l.Task(e.TaskID, e.RigID)
			if !ok {
				continue
			}
			if m.Txs > 0 {
				out.GasPaid = new(big.Int).Add(orZero(out.GasPaid), m.GasPaid)
			}
			if e.State.Final() {
				out.Earned = new(big.Int).Add(orZero(out.Earned), m.Earned)
			}
		}
		if out.Earned == nil && e.State.Final() {
			out.Earned = new(big.Int)
		}
		return out
	}
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

func ethOrEmpty(wei *big.Int) string {
	if wei == nil {
		return ""
	}
	return audit.FormatETH(wei)
}

// minuteViews turns reconciled results into the sources section: every source of the symbol's
// feed, one that could not see the minute (its sessions, its history, its publishing delay) as
// not_covered.
func minuteViews(results []feeds.Result, l limits) []MinuteView {
	out := make([]MinuteView, 0, len(results))
	for _, r := range results {
		m := MinuteView{Symbol: r.Symbol, Minute: r.Minute.UTC().Format("2006-01-02 15:04")}
		if r.Agreed {
			m.Answer = r.Price.String()
		} else {
			m.NoAnswer, m.Note = true, r.Reason
		}
		for _, q := range r.Quotes {
			if q.Status == feeds.StatusNotCovered && q.Symbol == "" {
				continue // not in this symbol's feed
			}
			// A pending source was still on its way when the fetch ended (or never asked, when an
			// early quorum ended it), a not_final one had not published its last word yet, a
			// not_covered one cannot see the minute, and a paced one was held back by its own
			// rate (the process asked it for another symbol first): none of them is a failure.
			waiting := q.Status == feeds.StatusPending || q.Status == feeds.StatusNotFinal || q.Status == feeds.StatusNotCovered ||
				q.Status == feeds.StatusPaced
			s := SourceView{Name: q.Source, Status: sourceStatus(r, q), centi: q.DistanceCentiBps, Distance: q.DistanceBps(),
				Bad: (!q.Status.Priced() && !waiting) || q.Status == feeds.StatusOutlier}
			if !q.Status.Priced() && s.Status != NotAsked {
				s.Why = redact.String(q.Err)
			}
			if q.Requests > 0 {
				s.Latency = fmt.Sprintf("%d ms", q.Latency.Milliseconds())
			}
			if q.Status.Priced() {
				s.Price = q.Price.String()
			}
			m.Sources = append(m.Sources, s)
		}
		m.Chart = sourceChart(m.Sources, l)
		out = append(out, m)
	}
	return out
}

// NotAsked is what the sources section says of a source the reconciler stopped waiting for
// because an early quorum of the others agreed: its answer was never taken, and never will be.
const NotAsked = "not asked: quorum reached early"

// sourceStatus is a quote's status as the page says it. A pending quote of a fetch that stopped
// on an early quorum (r.Early) was not asked for good, not a failure: NotAsked. "pending" stays
// for a source still on its way when the fetch stopped for another reason (its deadline).
func sourceStatus(r feeds.Result, q feeds.Quote) string {
	if q.Status == feeds.StatusPending && r.Early {
		return NotAsked
	}
	return string(q.Status)
}

// auditRecord is what the page reads of a recorded audit report (the JSON `audit --json`
// prints).
type auditRecord struct {
	At       time.Time           `json:"at"`
	Healthy  bool                `json:"healthy"`
	Checks   []audit.CheckResult `json:"checks"`
	Findings []audit.Finding     `json:"findings"`
}

// doctorViewOf reads a kept doctor report (the JSON `doctor --json` prints).
func doctorViewOf(at time.Time, report []byte) *DoctorView {
	var r struct {
		Checks []doctor.Check `json:"checks"`
	}
	v := &DoctorView{At: at.UTC().Format(time.RFC3339)}
	if err := json.Unmarshal(report, &r); err != nil {
		v.Unreadable = "the last doctor report in the journal is not readable: " + err.Error()
		return v
	}
	rank := map[doctor.Verdict]int{doctor.Fail: 0, doctor.Warn: 1, doctor.OK: 2}
	slices.SortStableFunc(r.Checks, func(a, b doctor.Check) int { return cmp.Compare(rank[a.Verdict], rank[b.Verdict]) })
	for _, c := range r.Checks {
		switch c.Verdict {
		case doctor.Fail:
			v.Fail++
		case doctor.Warn:
			v.Warn++
		default:
			v.OK++
		}
	}
	v.Checks = r.Checks
	return v
}

func auditViewOf(report []byte) (*AuditView, error) {
	var r auditRecord
	if err := json.Unmarshal(report, &r); err != nil {
		return nil, fmt.Errorf("the last audit report in the journal is not readable: %w", err)
	}
	return &AuditView{At: r.At.UTC().Format(time.RFC3339), Healthy: r.Healthy, Checks: r.Checks, Findings: r.Findings}, nil
}
