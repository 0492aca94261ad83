package audit

import (
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/sources"
)

// Status is how one source fared at one minute, in the audit's words.
type Status string

// The statuses, from healthy to broken (see rank).
const (
	StatusSkipped      Status = "skipped"      // not asked (outside its coverage, its publication delay, not in the feed, held back by its own rate: paced), or not final yet
	StatusOK           Status = "ok"           // a price within the outlier cut
	StatusStale        Status = "stale"        // a price from a bar much older than the minute
	StatusNoData       Status = "no_data"      // asked, and no bar within max_carry
	StatusOutlier      Status = "outlier"      // a price dropped by the outlier cut
	StatusNoKey        Status = "no_key"       // its key variable is unset
	StatusRateLimited  Status = "rate_limited" // the provider answered 429
	StatusOverQuota    Status = "over_quota"   // not asked: its quota was used up
	StatusUnauthorized Status = "unauthorized" // the provider refused the key
	StatusDown         Status = "down"         // timed out, 5xx, a malformed body, an unknown symbol
)

var statusRank = map[Status]int{
	StatusSkipped: 0, StatusOK: 1, StatusStale: 2, StatusNoData: 3, StatusOutlier: 4,
	StatusNoKey: 5, StatusRateLimited: 6, StatusOverQuota: 7, StatusUnauthorized: 8, StatusDown: 9,
}

// Worse reports whether s is worse than t (for a summary's headline status).
func (s Status) Worse(t Status) bool { return statusRank[s] > statusRank[t] }

// Priced reports whether the source gave a price.
func (s Status) Priced() bool { return s == StatusOK || s == StatusStale || s == StatusOutlier }

// Failed reports whether the source failed to answer when it was asked.
func (s Status) Failed() bool {
	return s == StatusNoKey || s == StatusRateLimited || s == StatusOverQuota || s == StatusUnauthorized || s == StatusDown || s == StatusNoData
}

// Sample is one reconciled minute of one symbol, as the sources check reads it. Each failed
// quote carries its kind of failure (feeds.Quote.Kind).
type Sample struct {
	Result feeds.Result
}

// Thresholds are the limits past which the checks report.
type Thresholds struct {
	// DriftCentiBps: a source whose median distance to the answer over the window is at least
	// this (hundredths of a bp) has drifted. Default half of outlier_bps.
	DriftCentiBps int64
	// StaleAfter: a carried bar older than this before the minute is stale. Default 15m.
	StaleAfter time.Duration
	// NearMissPercent: a settled answer farther from the stored median than this share of the
	// tolerance is a near miss. Default 50.
	NearMissPercent int
	// PendingMargin: a commit or reveal not yet mined this close to its deadline is reported.
	// Default 2m (half of a 4-minute window).
	PendingMargin time.Duration
}

// Defaults of the thresholds.
const (
	DefaultStaleAfter      = 15 * time.Minute
	DefaultNearMissPercent = 50
	DefaultPendingMargin   = 2 * time.Minute
)

// WithDefaults fills the zero thresholds; outlierBps is the spec's.
func (t Thresholds) WithDefaults(outlierBps uint32) Thresholds {
	if t.DriftCentiBps <= 0 {
		t.DriftCentiBps = int64(outlierBps) * 100 / 2
		if t.DriftCentiBps <= 0 {
			t.DriftCentiBps = 1250
		}
	}
	if t.StaleAfter <= 0 {
		t.StaleAfter = DefaultStaleAfter
	}
	if t.NearMissPercent <= 0 {
		t.NearMissPercent = DefaultNearMissPercent
	}
	if t.PendingMargin <= 0 {
		t.PendingMargin = DefaultPendingMargin
	}
	return t
}

// Observation is one source's quote for one symbol at one minute.
type Observation struct {
	Source  string
	Symbol  string
	Minute  time.Time
	Status  Status
	Price   numeric.Scaled // 0 without a price
	BarTime time.Time      // start of the bar Price is the close of
	// DistanceCentiBps is the distance to the answer (or to the median without an answer) in
	// hundredths of a bp; -1 without a price.
	DistanceCentiBps int64
	Latency          time.Duration
	Err              string
	Kind             sources.ErrorKind // of a failed request (feeds.Quote.Kind)
}

// Summary is one source's record for one symbol over the window.
type Summary struct {
	Source   string
	Symbol   string
	Status   Status         // the worst status seen
	Statuses map[Status]int // how many minutes had each status
	// MaxDistanceCentiBps and MedianDistanceCentiBps are over the priced minutes; -1 when none.
	MaxDistanceCentiBps    int64
	MedianDistanceCentiBps int64
	Latency                time.Duration // the longest
}

// Up reports whether the source answered every minute it was asked and priced at least one;
// ok is false when it was never asked.
func (s Summary) Up() (up, ok bool) {
	asked, priced, failed := 0, 0, 0
	for st, n := range s.Statuses {
		if st == StatusSkipped {
			continue
		}
		asked += n
		if st.Priced() {
			priced += n
		}
		if st.Failed() {
			failed += n
		}
	}
	if asked == 0 {
		return false, false
	}
	return failed == 0 && priced > 0, true
}

// SourcesReport is what the sources check found.
type SourcesReport struct {
	Observations []Observation // by symbol, minute, then spec order
	Summaries    []Summary     // by source (first-seen order), then symbol
	Findings     []Finding
}

// StatusOf maps a reconciled quote to the audit's status, a failed request by its kind
// (q.Kind); effective is the minute the sources were read at.
func StatusOf(q feeds.Quote, effective time.Time, staleAfter time.Duration) Status {
	switch q.Status {
	case feeds.StatusOK:
		return StatusOK
	case feeds.StatusCarried:
		if !q.BarTime.IsZero() && effective.Sub(q.BarTime) > staleAfter {
			return StatusStale
		}
		return StatusOK
	case feeds.StatusOutlier:
		return StatusOutlier
	case feeds.StatusNoData:
		return StatusNoData
	case feeds.StatusNoKey:
		return StatusNoKey
	case feeds.StatusNotCovered, feeds.StatusNotFinal, feeds.StatusPaced:
		// not asked (its coverage, or its rate: the audit's own pace), or asked before its bar
		// was final: no verdict on it yet
		return StatusSkipped
	case feeds.StatusOverQuota:
		return StatusOverQuota
	case feeds.StatusPending:
		return StatusDown // no answer within the deadline: a hanging source
	}
	switch q.Kind {
	case sources.KindUnauthorized:
		return StatusUnauthorized
	case sources.KindRateLimited:
		return StatusRateLimited
	case sources.KindNoKey:
		return StatusNoKey
	case sources.KindNoData:
		return StatusNoData
	}
	return StatusDown
}

// sourceWide are the failures that say something about the source, not about a symbol: one
// finding per source.
var sourceWide = map[Status]string{
	StatusDown:         SourceDown,
	StatusUnauthorized: SourceUnauthorized,
	StatusRateLimited:  SourceRateLimited,
	StatusOverQuota:    SourceOverQuota,
	StatusNoKey:        MissingKey,
}

// CheckSources turns reconciled samples into observations, per-source summaries and findings:
// a source failing (down, unauthorized, rate-limited, no key: one finding per source), a source
// with no bar or a stale bar at in-session minutes, a source whose median distance to the
// answer is past the drift threshold, or — instead of drift — one whose prices sit at a
// near-integer ratio of the answer (a probable unrecorded split), and minutes with no answer.
func CheckSources(samples []Sample, th Thresholds) SourcesReport {
	var rep SourcesReport
	type key struct{ source, symbol string }
	bySS := map[key][]Observation{}
	var order []key
	bySource := map[string][]Observation{}
	var sourceOrder []string
	noAnswer := map[string][]feeds.Result{}
	var symbolOrder []string
	for _, s := range samples {
		res := s.Result
		eff := res.Effective
		if eff.IsZero() {
			eff = res.Minute
		}
		if _, seen := noAnswer[res.Symbol]; !seen {
			symbolOrder = append(symbolOrder, res.Symbol)
			noAnswer[res.Symbol] = nil
		}
		// a minute some sources had not said their last word on yet (just closed) is no verdict
		// on the sources: they are skipped, and the minute is audited again on the next run
		if !res.Agreed && len(res.NotFinal()) == 0 {
			noAnswer[res.Symbol] = append(noAnswer[res.Symbol], res)
		}
		for _, q := range res.Quotes {
			o := Observation{
				Source: q.Source, Symbol: res.Symbol, Minute: res.Minute,
				Status:  StatusOf(q, eff, th.StaleAfter),
				BarTime: q.BarTime, DistanceCentiBps: -1, Latency: q.Latency, Err: q.Err, Kind: q.Kind,
			}
			if q.Status.Priced() {
				o.Price, o.DistanceCentiBps = q.Price, q.DistanceCentiBps
			}
			if q.Status == feeds.StatusNotCovered && q.Symbol == "" {
				continue // not in this symbol's feed: nothing to say
			}
			rep.Observations = append(rep.Observations, o)
			k := key{q.Source, res.Symbol}
			if _, ok := bySS[k]; !ok {
				order = append(order, k)
			}
			bySS[k] = append(bySS[k], o)
			if _, ok := bySource[q.Source]; !ok {
				sourceOrder = append(sourceOrder, q.Source)
			}
			bySource[q.Source] = append(bySource[q.Source], o)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		return slices.Index(sourceOrder, order[i].source) < slices.Index(sourceOrder, order[j].source)
	})

	// Source-wide failures first: they explain the rest.
	for _, src := range sourceOrder {
		obs := bySource[src]
		for _, st := range []Status{StatusNoKey, StatusUnauthorized, StatusRateLimited, StatusOverQuota, StatusDown} {
			var hit []Observation
			for _, o := range obs {
				if o.Status == st {
					hit = append(hit, o)
				}
			}
			if len(hit) == 0 {
				continue
			}
			rep.Findings = append(rep.Findings, sourceWideFinding(src, st, hit, len(asked(obs))))
		}
	}
	for _, k := range order {
		obs := bySS[k]
		rep.Summaries = append(rep.Summaries, summarize(k.source, k.symbol, obs))
		rep.Findings = append(rep.Findings, symbolFindings(k.source, k.symbol, obs, samplesOf(samples, k.symbol), th)...)
	}
	for _, sym := range symbolOrder {
		if bad := noAnswer[sym]; len(bad) > 0 {
			total := 0
			for _, s := range samples {
				if s.Result.Symbol == sym {
					total++
				}
			}
			f := Finding{
				Check: CheckSourcesName, Name: NoAnswer, Severity: Alert, Symbol: sym,
				Count: len(bad), Of: total, First: bad[0].Minute, Last: bad[len(bad)-1].Minute,
				Message: fmt.Sprintf("%s: no answer at %d of %s: %s", sym, len(bad), plural(total, "minute"), bad[len(bad)-1].Reason),
			}
			rep.Findings = append(rep.Findings, f)
		}
	}
	return rep
}

func asked(obs []Observation) []Observation {
	var out []Observation
	for _, o := range obs {
		if o.Status != StatusSkipped {
			out = append(out, o)
		}
	}
	return out
}

func samplesOf(samples []Sample, symbol string) []feeds.Result {
	var out []feeds.Result
	for _, s := range samples {
		if s.Result.Symbol == symbol {
			out = append(out, s.Result)
		}
	}
	return out
}

func sourceWideFinding(src string, st Status, hit []Observation, of int) Finding {
	name := sourceWide[st]
	f := Finding{
		Check: CheckSourcesName, Name: name, Severity: Alert, Source: src,
		Count: len(hit), Of: of, First: hit[0].Minute, Last: hit[0].Minute,
	}
	var symbols []string
	for _, o := range hit {
		if o.Minute.Before(f.First) {
			f.First = o.Minute
		}
		if o.Minute.After(f.Last) {
			f.Last = o.Minute
		}
		if !slices.Contains(symbols, o.Symbol) {
			symbols = append(symbols, o.Symbol)
		}
	}
	last := hit[len(hit)-1].Err
	switch st {
	case StatusNoKey:
		f.Severity = Warn // a choice the operator may have made; the source is skipped, not failing
		f.Message = fmt.Sprintf("%s is skipped: %s", src, last)
	case StatusUnauthorized:
		f.Message = fmt.Sprintf("%s refused the key for %s (%d of %s): %s", src, strings.Join(symbols, ", "), len(hit), plural(of, "quote"), last)
	case StatusRateLimited:
		f.Message = fmt.Sprintf("%s is rate-limiting %s (%d of %s): %s", src, strings.Join(symbols, ", "), len(hit), plural(of, "quote"), last)
	case StatusOverQuota:
		f.Message = fmt.Sprintf("%s was not asked for %s, its quota used up (%d of %s): %s", src, strings.Join(symbols, ", "), len(hit), plural(of, "quote"), last)
	default:
		f.Message = fmt.Sprintf("%s is down for %s (%d of %s): %s", src, strings.Join(symbols, ", "), len(hit), plural(of, "quote"), last)
	}
	return f
}

func summarize(src, symbol string, obs []Observation) Summary {
	s := Summary{Source: src, Symbol: symbol, Status: StatusSkipped, Statuses: map[Status]int{}, MaxDistanceCentiBps: -1, MedianDistanceCentiBps: -1}
	var dist []int64
	for _, o := range obs {
		s.Statuses[o.Status]++
		if o.Status.Worse(s.Status) {
			s.Status = o.Status
		}
		if o.DistanceCentiBps >= 0 {
			dist = append(dist, o.DistanceCentiBps)
		}
		s.Latency = max(s.Latency, o.Latency)
	}
	if len(dist) > 0 {
		slices.Sort(dist)
		s.MaxDistanceCentiBps = dist[len(dist)-1]
		s.MedianDistanceCentiBps = dist[(len(dist)-1)/2]
	}
	return s
}

// symbolFindings are the findings of one source on one symbol: stale and missing bars, then a
// probable split or, failing that, drift.
func symbolFindings(src, symbol string, obs []Observation, results []feeds.Result, th Thresholds) []Finding {
	var out []Finding
	for _, st := range []Status{StatusStale, StatusNoData} {
		var hit []Observation
		for _, o := range obs {
			if o.Status == st {
				hit = append(hit, o)
			}
		}
		if len(hit) == 0 {
			continue
		}
		f := Finding{
			Check: CheckSourcesName, Severity: Warn, Source: src, Symbol: symbol,
			Count: len(hit), Of: len(asked(obs)), First: hit[0].Minute, Last: hit[len(hit)-1].Minute,
		}
		if st == StatusStale {
			worst := time.Duration(0)
			for _, o := range hit {
				worst = max(worst, o.Minute.Sub(o.BarTime))
			}
			f.Name, f.Value, f.Limit = SourceStale, worst.String(), th.StaleAfter.String()
			f.Message = fmt.Sprintf("%s %s: carried a bar up to %s old at %d of %s (stale after %s)", src, symbol, worst, len(hit), plural(f.Of, "minute"), th.StaleAfter)
		} else {
			f.Name = SourceNoData
			f.Message = fmt.Sprintf("%s %s: no bar within max_carry at %d of %s", src, symbol, len(hit), plural(f.Of, "minute"))
		}
		out = append(out, f)
	}

	// The reference of each priced minute: the answer, or the median when there was none.
	var priced []Observation
	var refs []numeric.Scaled
	for _, o := range obs {
		if !o.Status.Priced() || o.Price <= 0 {
			continue
		}
		ref := referenceAt(results, o.Minute)
		if ref <= 0 {
			continue
		}
		priced = append(priced, o)
		refs = append(refs, ref)
	}
	if len(priced) == 0 {
		return out
	}
	if r, n := splitRatio(priced, refs); n*2 > len(priced) {
		out = append(out, Finding{
			Check: CheckSourcesName, Name: ProbableSplit, Severity: Alert, Source: src, Symbol: symbol,
			Count: n, Of: len(priced), First: priced[0].Minute, Last: priced[len(priced)-1].Minute,
			Value: r.String(),
			Message: fmt.Sprintf("%s %s prices are %s of the answer at %d of %s: probably a split or adjustment the spec does not record (%s)",
				src, symbol, r, n, plural(len(priced), "minute"), r.explain(symbol)),
		})
		return out
	}
	dist := make([]int64, len(priced))
	for i, o := range priced {
		dist[i] = o.DistanceCentiBps
	}
	sorted := slices.Clone(dist)
	slices.Sort(sorted)
	median, worst := sorted[(len(sorted)-1)/2], sorted[len(sorted)-1]
	if median >= th.DriftCentiBps {
		beyond := 0
		for _, o := range priced {
			if o.DistanceCentiBps >= th.DriftCentiBps {
				beyond++
			}
		}
		sev := Warn
		outliers := 0
		for _, o := range priced {
			if o.Status == StatusOutlier {
				outliers++
			}
		}
		note := "still inside the outlier cut"
		if outliers > 0 {
			sev, note = Alert, fmt.Sprintf("dropped as an outlier at %s", plural(outliers, "minute"))
		}
		out = append(out, Finding{
			Check: CheckSourcesName, Name: SourceDrift, Severity: sev, Source: src, Symbol: symbol,
			Count: beyond, Of: len(priced), First: priced[0].Minute, Last: priced[len(priced)-1].Minute,
			Value: feeds.FormatCentiBps(median), Limit: feeds.FormatCentiBps(th.DriftCentiBps),
			Message: fmt.Sprintf("%s %s is %s bps from the answer (median over %s, up to %s bps; drift threshold %s bps), %s",
				src, symbol, feeds.FormatCentiBps(median), plural(len(priced), "minute"), feeds.FormatCentiBps(worst), feeds.FormatCentiBps(th.DriftCentiBps), note),
		})
	}
	return out
}

// referenceAt is what a source's price is compared with at a minute: the answer, or the lower
// median of every price when there was no answer.
func referenceAt(results []feeds.Result, minute time.Time) numeric.Scaled {
	for _, r := range results {
		if r.Minute.Equal(minute) {
			if r.Agreed {
				return r.Price
			}
			return r.Median
		}
	}
	return 0
}

// Ratio is a source's price over the reference, as a fraction.
type Ratio struct{ Num, Den int64 }

func (r Ratio) String() string {
	if r.Den == 1 {
		return fmt.Sprint(r.Num)
	}
	return fmt.Sprintf("%d/%d", r.Num, r.Den)
}

// explain says which way the source is off.
func (r Ratio) explain(symbol string) string {
	if r.Num < r.Den {
		return fmt.Sprintf("the source divides by %s: it has adjusted for a %d-for-%d split of %s that the spec's splits do not list, or the spec's adjustment is wrong for it", Ratio{r.Den, r.Num}, r.Den, r.Num, symbol)
	}
	return fmt.Sprintf("the source multiplies by %s: the spec undoes a %d-for-%d split of %s the source never applied, or the source serves another share class", r, r.Num, r.Den, symbol)
}

// splitRatios are the ratios a split or reverse split leaves between two prices: N-for-1 and
// the common fractional ones. Ratios closer to 1 than 3:2 are left to the drift check: a wild
// price is likelier there than a split.
var splitRatios = func() []Ratio {
	var out []Ratio
	for _, n := range []int64{2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 50, 100} {
		out = append(out, Ratio{n, 1}, Ratio{1, n})
	}
	return append(out, Ratio{3, 2}, Ratio{2, 3}, Ratio{5, 2}, Ratio{2, 5})
}()

// splitTolerancePct is how close to the ratio a price must be: wide enough for an adjusted
// provider's rounding and a little drift, far narrower than the gap between any two ratios.
const splitTolerancePct = 2

// splitRatio finds the split ratio most of the priced minutes sit at, and how many do.
func splitRatio(priced []Observation, refs []numeric.Scaled) (Ratio, int) {
	best, bestN := Ratio{}, 0
	for _, r := range splitRatios {
		n := 0
		for i, o := range priced {
			if nearRatio(o.Price, refs[i], r) {
				n++
			}
		}
		if n > bestN {
			best, bestN = r, n
		}
	}
	return best, bestN
}

// nearRatio reports whether price/ref is within splitTolerancePct of r, exactly:
// |price·den − ref·num| · 100 ≤ ref·num · splitTolerancePct.
func nearRatio(price, ref numeric.Scaled, r Ratio) bool {
	a := new(big.Int).Mul(price.Big(), big.NewInt(r.Den))
	b := new(big.Int).Mul(ref.Big(), big.NewInt(r.Num))
	d := new(big.Int).Sub(a, b)
	d.Abs(d).Mul(d, big.NewInt(100))
	return d.Cmp(b.Mul(b, big.NewInt(splitTolerancePct))) <= 0
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
