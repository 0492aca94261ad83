package explain

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/numeric"
)

// Report is one explanation; its JSON (`pricerig explain --json`) is documented in the README's
// JSON table, and its field names do not change.
type Report struct {
	Symbol      string         `json:"symbol"`
	Minute      time.Time      `json:"minute"`
	Effective   time.Time      `json:"effective"`
	Session     market.Session `json:"session"`
	Agreed      bool           `json:"agreed"`
	Answer      numeric.Scaled `json:"-"`
	Median      numeric.Scaled `json:"-"` // the lower median of every priced quote, before outliers
	Survivors   int            `json:"survivors"`
	MinSources  int            `json:"min_sources"`
	OutlierBps  uint32         `json:"outlier_bps"`
	Provisional bool           `json:"provisional"` // counts bars not final (the rig's last resort)
	Reason      string         `json:"reason,omitempty"`
	Sources     []Source       `json:"sources"`
	Task        *TaskReport    `json:"task,omitempty"`
	Revisions   []Revision     `json:"revisions"`
}

// Source is what one source said of the minute and how its quote was derived.
type Source struct {
	Source    string         `json:"source"`
	Status    feeds.Status   `json:"status"`
	Price     numeric.Scaled `json:"-"`
	BarTime   time.Time      `json:"-"`
	Carried   bool           `json:"carried"`
	Final     bool           `json:"final"`
	FetchedAt time.Time      `json:"-"`
	// Used says the price counted in the answer (ok or carried, not an outlier).
	Used             bool   `json:"used"`
	Why              string `json:"why"`
	DistanceCentiBps int64  `json:"-"`
	Bars             []Bar  `json:"bars"`
}

// Bar is a bar as the ledger holds it.
type Bar struct {
	Time      time.Time      `json:"time"`
	Close     numeric.Scaled `json:"-"`
	Volume    int64          `json:"volume"`
	FetchedAt time.Time      `json:"-"`
	Final     bool           `json:"final"`
	Used      bool           `json:"used"` // the bar the source's quote is the close of
}

// TaskReport is a task's answer as the rig kept it, against the one derived again.
type TaskReport struct {
	ID         uint64         `json:"id"`
	Symbol     string         `json:"-"`
	Minute     time.Time      `json:"-"`
	Committed  numeric.Scaled `json:"-"`
	AnsweredAt time.Time      `json:"-"`
	Evidence   bool           `json:"evidence"`  // the ledger keeps the task's evidence
	Rederived  bool           `json:"rederived"` // the answer derived again equals the committed one
	// Counted is the sources the answer was reconciled from, as its evidence keeps them: the
	// derivation again counts these alone (an early quorum answers before the slower sources,
	// whose bars reach the ledger afterwards). Empty when the evidence does not say (none is
	// kept, or it was kept before the ledger's schema 6): every source the ledger holds counts.
	Counted []string    `json:"counted,omitempty"`
	Refusal string      `json:"refusal,omitempty"`
	Rigs    []RigAnswer `json:"rigs"`
	// EvidenceDiffers names the evidence's price and every commit or reveal of one of our rigs
	// (the journal's, with a chain the contract's) that is another price: the evidence kept is
	// not the answer given (issue 33: a task priced again after its answer failed to record).
	EvidenceDiffers string `json:"evidence_differs,omitempty"`
	// With a chain: the stored answer, whether the task agreed, and every drawn rig's reveal.
	StoredMedian *numeric.Scaled `json:"-"`
	Agreed       *bool           `json:"agreed,omitempty"`
	Reveals      []Reveal        `json:"reveals,omitempty"`
}

// Reveal is one drawn rig's answer on chain and its distance to the stored median.
type Reveal struct {
	Rig              uint64          `json:"rig"`
	Revealed         *numeric.Scaled `json:"-"`
	DistanceCentiBps int64           `json:"-"`
}

// MarshalJSON adds the answer revealed ("" when none was) and its distance.
func (r Reveal) MarshalJSON() ([]byte, error) {
	type plain Reveal
	dist := distText(r.DistanceCentiBps)
	return json.Marshal(struct {
		plain
		Revealed    string `json:"revealed,omitempty"`
		DistanceBps string `json:"distance_bps,omitempty"`
	}{plain(r), ptrText(r.Revealed), dist})
}

// RigAnswer is one of our rigs' answer to the task, from the journal.
type RigAnswer struct {
	Rig              uint64          `json:"rig"`
	State            string          `json:"state"`
	Committed        numeric.Scaled  `json:"-"`
	Revealed         *numeric.Scaled `json:"-"`
	StoredMedian     *numeric.Scaled `json:"-"`
	DistanceCentiBps int64           `json:"-"`
	Agreed           *bool           `json:"agreed,omitempty"`
	Inside           *bool           `json:"inside,omitempty"`
}

// Revision is a bar of the span read whose close a later fetch changed.
type Revision struct {
	Source      string         `json:"source"`
	Minute      time.Time      `json:"minute"`
	Old         numeric.Scaled `json:"-"`
	New         numeric.Scaled `json:"-"`
	OldFetched  time.Time      `json:"-"`
	Seen        time.Time      `json:"seen"`
	OldFinal    bool           `json:"old_final"`
	Used        bool           `json:"used"`         // the bar a source's quote uses
	AfterAnswer bool           `json:"after_answer"` // revised after the task was answered
}

// reportOf turns a rederivation into the report's sources and answer.
func reportOf(d feeds.Rederivation, rules feeds.Rules) Report {
	res := d.Result
	rep := Report{Symbol: res.Symbol, Minute: res.Minute, Effective: res.Effective, Session: res.Session, Agreed: res.Agreed,
		Answer: res.Price, Median: res.Median, Survivors: res.Survivors, MinSources: rules.MinSources, OutlierBps: rules.OutlierBps,
		Provisional: res.Provisional, Reason: res.Reason, Revisions: []Revision{}}
	for i, q := range res.Quotes {
		s := Source{Source: q.Source, Status: q.Status, Price: q.Price, BarTime: q.BarTime, Carried: q.Carried, Final: q.Final,
			FetchedAt: q.FetchedAt, DistanceCentiBps: q.DistanceCentiBps, Bars: []Bar{}}
		s.Used = res.Agreed && (q.Status == feeds.StatusOK || q.Status == feeds.StatusCarried)
		s.Why = why(q, res, rules)
		for _, b := range d.Traces[i].Near {
			s.Bars = append(s.Bars, Bar{Time: b.Start, Close: b.Close, Volume: b.Volume, FetchedAt: b.Fetched, Final: b.Final,
				Used: q.Price > 0 && b.Start.Equal(q.BarTime)})
		}
		rep.Sources = append(rep.Sources, s)
	}
	return rep
}

// why says in a line how a source's quote came about.
func why(q feeds.Quote, res feeds.Result, rules feeds.Rules) string {
	switch q.Status {
	case feeds.StatusOK:
		return fmt.Sprintf("the close of its %s bar, final", q.BarTime.Format("15:04"))
	case feeds.StatusCarried:
		if q.BarTime.Equal(res.Effective) {
			// the minute is outside the sessions: the bar is the effective minute's own
			return fmt.Sprintf("the minute is outside the sessions; carried from its %s bar, the last minute of the sessions before it (%s before, within max_carry %s)",
				q.BarTime.Format("2006-01-02 15:04"), res.Minute.Sub(q.BarTime), rules.MaxCarry)
		}
		return fmt.Sprintf("no bar at %s; carried from its %s bar (%s before, within max_carry %s), no bar between known final",
			res.Effective.Format("15:04"), q.BarTime.Format("2006-01-02 15:04"), res.Minute.Sub(q.BarTime), rules.MaxCarry)
	case feeds.StatusOutlier:
		return fmt.Sprintf("dropped: %s bps from the lower median %s, beyond outlier_bps %d", q.DistanceBps(), res.Median, rules.OutlierBps)
	case feeds.StatusNotFinal:
		if q.Price > 0 && res.Provisional {
			return "counted provisional (the rig's last resort): " + q.Err
		}
		return q.Err
	}
	if q.Err != "" {
		return q.Err
	}
	return string(q.Status)
}

// MarshalJSON writes the report as `pricerig explain --json` prints it: every price as a decimal
// string and as an integer × 10^8 (price_e8, close_e8, …), times in RFC 3339.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		plain
		Answer   string `json:"price"`
		AnswerE8 int64  `json:"price_e8"`
		Median   string `json:"median"`
		MedianE8 int64  `json:"median_e8"`
	}{plain(r), price(r.Answer, r.Agreed), e8(r.Answer, r.Agreed), r.Median.String(), int64(r.Median)})
}

// distText is a distance in bps as --json prints it, "" when there is none (negative).
func distText(centiBps int64) string {
	if centiBps < 0 {
		return ""
	}
	return feeds.FormatCentiBps(centiBps)
}

func price(p numeric.Scaled, ok bool) string {
	if !ok {
		return ""
	}
	return p.String()
}

func e8(p numeric.Scaled, ok bool) int64 {
	if !ok {
		return 0
	}
	return int64(p)
}

// MarshalJSON adds the source's price, bar time, fetch time and distance.
func (s Source) MarshalJSON() ([]byte, error) {
	type plain Source
	dist := distText(s.DistanceCentiBps)
	return json.Marshal(struct {
		plain
		Price       string     `json:"price"`
		PriceE8     int64      `json:"price_e8"`
		BarTime     *time.Time `json:"bar_time,omitempty"`
		FetchedAt   *time.Time `json:"fetched_at,omitempty"`
		DistanceBps string     `json:"distance_bps,omitempty"`
	}{plain(s), price(s.Price, s.Price > 0), int64(s.Price), timePtr(s.BarTime), timePtr(s.FetchedAt), dist})
}

// MarshalJSON adds the bar's close and fetch time.
func (b Bar) MarshalJSON() ([]byte, error) {
	type plain Bar
	return json.Marshal(struct {
		plain
		Close     string     `json:"close"`
		CloseE8   int64      `json:"close_e8"`
		FetchedAt *time.Time `json:"fetched_at,omitempty"`
	}{plain(b), b.Close.String(), int64(b.Close), timePtr(b.FetchedAt)})
}

// MarshalJSON adds the committed answer and when.
func (t TaskReport) MarshalJSON() ([]byte, error) {
	type plain TaskReport
	return json.Marshal(struct {
		plain
		Symbol       string     `json:"symbol"`
		Minute       time.Time  `json:"minute"`
		Committed    string     `json:"committed"`
		CommittedE8  int64      `json:"committed_e8"`
		AnsweredAt   *time.Time `json:"answered_at,omitempty"`
		StoredMedian string     `json:"stored_median,omitempty"`
	}{plain(t), t.Symbol, t.Minute, t.Committed.String(), int64(t.Committed), timePtr(t.AnsweredAt), ptrText(t.StoredMedian)})
}

// MarshalJSON adds the rig's answers and its distance to the stored median.
func (r RigAnswer) MarshalJSON() ([]byte, error) {
	type plain RigAnswer
	var dist string
	if r.DistanceCentiBps >= 0 && r.StoredMedian != nil {
		dist = feeds.FormatCentiBps(r.DistanceCentiBps)
	}
	return json.Marshal(struct {
		plain
		Committed    string `json:"committed"`
		Revealed     string `json:"revealed,omitempty"`
		StoredMedian string `json:"stored_median,omitempty"`
		DistanceBps  string `json:"distance_bps,omitempty"`
	}{plain(r), r.Committed.String(), ptrText(r.Revealed), ptrText(r.StoredMedian), dist})
}

// MarshalJSON adds both closes and the old one's fetch time.
func (r Revision) MarshalJSON() ([]byte, error) {
	type plain Revision
	return json.Marshal(struct {
		plain
		Old        string     `json:"old"`
		New        string     `json:"new"`
		OldFetched *time.Time `json:"old_fetched,omitempty"`
	}{plain(r), closeText(r.Old), closeText(r.New), timePtr(r.OldFetched)})
}

// closeText is a revision's close as text: "" for no bar (one that appeared where an earlier
// fetch saw none has no old close, one a later fetch no longer returns no new one).
func closeText(c numeric.Scaled) string {
	if c == 0 {
		return ""
	}
	return c.String()
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func ptrText(p *numeric.Scaled) string {
	if p == nil {
		return ""
	}
	return p.String()
}
