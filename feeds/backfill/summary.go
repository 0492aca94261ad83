package backfill

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// Summary is what a backfill run did.
type Summary struct {
	From        time.Time `json:"from"`
	To          time.Time `json:"to"`
	Symbols     []string  `json:"symbols"`
	Sessions    []string  `json:"sessions"`
	Interrupted bool      `json:"interrupted"` // stopped by its context; a re-run continues
	// Windows fetched and committed this run, the HTTP requests they took, the fewest requests
	// the providers allow for them — their floor: the windows of a provider limited by its
	// window, ⌈bars ÷ page⌉ of each window of a paged one — and the 429 answers among the
	// requests.
	Windows     int   `json:"windows"`
	Failed      int   `json:"failed_windows"`
	Requests    int   `json:"requests"`
	MinRequests int   `json:"min_requests"`
	RateLimited int   `json:"rate_limited"`
	Bars        int64 `json:"bars"` // bars written this run
	// Minutes reconciled, those without an agreed answer, and those whose answer is incomplete
	// (a source's window is missing or failed, or a source was left out).
	Minutes     int `json:"minutes"`
	NoAgreement int `json:"no_agreement"`
	Incomplete  int `json:"incomplete"`
	// Kept counts the minutes left as stored: complete answers under the same rules of a symbol
	// this run fetched nothing for.
	Kept    int           `json:"kept"`
	Elapsed time.Duration `json:"-"`
	// FetchTime is the time spent fetching (lead-ins included), ReconcileTime reconciling.
	FetchTime     time.Duration   `json:"-"`
	ReconcileTime time.Duration   `json:"-"`
	Sources       []SourceSummary `json:"-"`
}

// SourceSummary is one source's part of a run.
type SourceSummary struct {
	Source string `json:"source"`
	Type   string `json:"type,omitempty"`
	// Skipped says why the source was not asked at all ("ITS_API_KEY is not set").
	Skipped string `json:"skipped,omitempty"`
	Rate    string `json:"rate,omitempty"`
	Windows int    `json:"windows"`
	LeadIns int    `json:"lead_ins"` // of Windows: fetched to carry into the range's first minutes
	// LeadInRequests are the requests of the lead-ins: a carry into the range, outside the
	// range's own floor.
	LeadInRequests int           `json:"lead_in_requests"`
	Failed         int           `json:"failed_windows"`
	Requests       int           `json:"requests"`
	MinRequests    int           `json:"min_requests"`
	RateLimited    int           `json:"rate_limited"`
	Waited         time.Duration `json:"-"`
	Bars           int64         `json:"bars"`
	Minutes        minuteStats   `json:"minutes"`
	// Gaps are the parts of the range the source did not give: before its history, not yet
	// published, failed, or the whole range when it was skipped.
	Gaps []Gap `json:"gaps"`
}

// Gap is a part of the range one source did not give for one symbol.
type Gap struct {
	Symbol string    `json:"symbol"`
	From   time.Time `json:"from"`
	To     time.Time `json:"to"`
	Reason string    `json:"reason"`
	// Kind is what kind of failure a failed window's was (rate_limited, unauthorized…), ""
	// for a gap that is no failure (before the source's history, not published yet, skipped).
	Kind sources.ErrorKind `json:"error_kind,omitempty"`
}

// MarshalJSON writes durations as whole milliseconds, which every JSON reader can use (and no
// float enters this package).
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	return json.Marshal(struct {
		plain
		ElapsedMs   int64           `json:"elapsed_ms"`
		FetchMs     int64           `json:"fetch_ms"`
		ReconcileMs int64           `json:"reconcile_ms"`
		Sources     []SourceSummary `json:"sources"`
	}{plain(s), s.Elapsed.Milliseconds(), s.FetchTime.Milliseconds(), s.ReconcileTime.Milliseconds(), s.Sources})
}

// MarshalJSON writes the wait as whole milliseconds.
func (s SourceSummary) MarshalJSON() ([]byte, error) {
	type plain SourceSummary
	return json.Marshal(struct {
		plain
		WaitedMs int64 `json:"waited_ms"`
	}{plain(s), s.Waited.Milliseconds()})
}

// fill totals the members into the summary.
func (b *Backfill) fill(sum *Summary) {
	sum.Sources = sum.Sources[:0]
	sum.Windows, sum.Failed, sum.Requests, sum.MinRequests, sum.RateLimited, sum.Bars = 0, 0, 0, 0, 0, 0
	for _, m := range b.members {
		if !m.selected {
			continue
		}
		s := SourceSummary{Source: m.name, Type: m.typ}
		m.mu.Lock()
		s.Gaps = mergeGaps(m.gaps, m.sessions)
		s.Minutes = m.stats
		s.Windows, s.LeadIns, s.LeadInRequests, s.MinRequests = m.windows, m.leadIns, m.leadInReq, m.minReq
		m.mu.Unlock()
		if m.src == nil {
			s.Skipped = m.missing
		} else {
			s.Rate = m.rate.String()
			s.Requests, s.RateLimited, s.Waited, _ = m.pacer.state()
		}
		s.Failed = int(m.failed.Load())
		s.Bars = m.bars.Load()
		sum.Windows += s.Windows
		sum.Failed += s.Failed
		sum.Requests += s.Requests
		sum.MinRequests += s.MinRequests
		sum.RateLimited += s.RateLimited
		sum.Bars += s.Bars
		sum.Sources = append(sum.Sources, s)
	}
}

// mergeGaps sorts gaps by symbol and time and joins those of the same reason and kind that touch
// or lie apart by time holding no minute of the sessions (consecutive failed windows read as one
// gap).
func mergeGaps(in []Gap, sessions []market.Session) []Gap {
	g := slices.Clone(in)
	slices.SortStableFunc(g, func(a, b Gap) int {
		if a.Symbol != b.Symbol {
			if a.Symbol < b.Symbol {
				return -1
			}
			return 1
		}
		return a.From.Compare(b.From)
	})
	out := []Gap{}
	for _, x := range g {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.Symbol == x.Symbol && last.Reason == x.Reason && last.Kind == x.Kind && (!x.From.After(last.To) || !market.HasSessionMinute(last.To, x.From, sessions)) {
				last.To = market.Later(last.To, x.To)
				continue
			}
		}
		out = append(out, x)
	}
	return out
}

// SourceProgress is where one source stands during a run.
type SourceProgress struct {
	Source      string
	Windows     int // planned so far (lead-ins are added after the main windows)
	Done        int
	Failed      int
	Bars        int64
	Requests    int
	RateLimited int
	// Waiting is how long until the source's current rate-limit wait ends (0: not waiting).
	Waiting time.Duration
	// ETA estimates the time to the source's last window: its remaining windows at the pace it
	// has kept (or its rate's, before the first window), plus the wait in progress.
	ETA      time.Duration
	Finished bool
}

// Progress is a snapshot of a run, safe to take from another goroutine (the progress display).
type Progress struct {
	Phase   string // plan, fetch, lead-in, reconcile, done
	Sources []SourceProgress
	// Minutes reconciled so far, of MinutesTotal (0 until the reconcile phase starts).
	Minutes, MinutesTotal int64
}

// Progress takes a snapshot of the run.
func (b *Backfill) Progress() Progress {
	p := Progress{Phase: b.phase.Load().(string), Minutes: b.minutes.Load(), MinutesTotal: b.total.Load()}
	now := b.clock.Now()
	for _, m := range b.members {
		if !m.selected || m.src == nil {
			continue
		}
		sp := SourceProgress{
			Source: m.name, Windows: int(m.planned.Load()), Done: int(m.done.Load()), Failed: int(m.failed.Load()),
			Bars: m.bars.Load(), Finished: m.finished.Load(),
		}
		var until time.Time
		sp.Requests, sp.RateLimited, _, until = m.pacer.state()
		if until.After(now) {
			sp.Waiting = until.Sub(now)
		}
		left := sp.Windows - sp.Done - sp.Failed
		if left > 0 {
			per := m.rate.Pace().Interval()
			m.mu.Lock()
			started := m.started
			m.mu.Unlock()
			if done := sp.Done + sp.Failed; done > 0 && !started.IsZero() {
				per = max(per, now.Sub(started)/time.Duration(done))
			}
			sp.ETA = time.Duration(left)*per + sp.Waiting
		}
		p.Sources = append(p.Sources, sp)
	}
	return p
}
