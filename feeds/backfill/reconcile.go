package backfill

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/sources"
)

// minuteStats counts how one source fared over the reconciled minutes.
type minuteStats struct {
	OK         int `json:"ok"`          // its bar at the minute
	Carried    int `json:"carried"`     // an earlier bar within max_carry
	NoData     int `json:"no_data"`     // no bar within max_carry
	Outlier    int `json:"outlier"`     // a price beyond outlier_bps
	NotCovered int `json:"not_covered"` // the session, its history or its delay rules it out
	Unknown    int `json:"unknown"`     // not fetched, failed, or carry reaches into unfetched time
}

func (s *minuteStats) add(st feeds.Status) {
	switch st {
	case feeds.StatusOK:
		s.OK++
	case feeds.StatusCarried:
		s.Carried++
	case feeds.StatusNoData:
		s.NoData++
	case feeds.StatusOutlier:
		s.Outlier++
	case feeds.StatusNotCovered, feeds.StatusNoKey:
		s.NotCovered++
	default:
		s.Unknown++
	}
}

func (s *minuteStats) merge(o minuteStats) {
	s.OK += o.OK
	s.Carried += o.Carried
	s.NoData += o.NoData
	s.Outlier += o.Outlier
	s.NotCovered += o.NotCovered
	s.Unknown += o.Unknown
}

// slot is one source of a feed during the sweep of a symbol.
type slot struct {
	m     *member
	prov  string
	cov   history.Spans
	fails []failedSpan
	last  sources.Bar
	has   bool
	stats minuteStats  // of this sweep, added to the member's at its end
	run   history.Span // the covered span that held the last minute asked
}

// answersPerTx is how many minutes one answers transaction holds: big enough that commits are a
// small share of the time, small enough that memory stays flat over a year.
const answersPerTx = 4096

// minutesPerDay is the most minutes a UTC day holds, so the most a batch runs past answersPerTx.
const minutesPerDay = 24 * 60

// reconcile sweeps every symbol's minutes into answers. The sweep and the writes are a
// pipeline: one goroutine computes the next batch of answers while another writes the last one
// (SQLite's single writer is the longer of the two).
func (b *Backfill) reconcile(ctx context.Context, sum *Summary) error {
	rid, err := b.store.RulesetID(context.WithoutCancel(ctx), history.RulesText(b.opts.Spec, b.rules.Sessions))
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	end := market.Earlier(b.opts.To, b.now.Truncate(time.Minute))
	minutes := sessionMinutes(b.opts.From, end, b.rules.Sessions)
	b.total.Add(int64(minutes * len(b.symbols)))
	w := b.answerWriter(ctx, rid)
	// The symbols are swept side by side, one goroutine each up to twice the machine's cores:
	// each symbol's sweep is independent of the others', and they share the one writer. Three
	// symbols on two cores then take about half their CPU time, not two rounds of sweeps.
	var (
		mu       sync.Mutex
		firstErr error
		next     = make(chan string)
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return firstErr != nil }
	for range min(2*runtime.GOMAXPROCS(0), len(b.symbols)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sym := range next {
				part := &Summary{}
				if err := b.reconcileOne(ctx, sym, end, minutes, rid, part, w.put); err != nil {
					fail(err)
				}
				mu.Lock()
				sum.Minutes += part.Minutes
				sum.NoAgreement += part.NoAgreement
				sum.Incomplete += part.Incomplete
				sum.Kept += part.Kept
				mu.Unlock()
			}
		}()
	}
	for _, sym := range b.symbols {
		if ctx.Err() != nil || failed() {
			break
		}
		next <- sym
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return w.abort(firstErr)
	}
	return w.close()
}

// reconcileOne reconciles one symbol's minutes, or keeps them: a symbol this run fetched nothing
// for, whose every minute is stored complete under the same rules, would be reconciled to the
// very same answers.
func (b *Backfill) reconcileOne(ctx context.Context, sym string, end time.Time, minutes int, rid int64, sum *Summary, put func([]history.AnswerRow) error) error {
	if !b.touched(sym) {
		held, err := b.store.CompleteAnswers(ctx, sym, b.opts.From, end, rid)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if held == minutes {
			sum.Kept += minutes
			b.minutes.Add(int64(minutes))
			return nil
		}
	}
	return b.reconcileSymbol(ctx, sym, end, sum, put)
}

// batchWriter writes batches of answers in its own goroutine, in the order they are put.
type batchWriter struct {
	batches chan []history.AnswerRow
	failed  chan struct{} // closed when a write failed: put stops waiting
	done    chan struct{}
	err     error
}

// answerWriter starts the writer of a reconcile. Its writes outlive a cancel of ctx: a batch
// computed is a batch kept (each is one transaction), and a re-run redoes the rest.
func (b *Backfill) answerWriter(ctx context.Context, rid int64) *batchWriter {
	w := &batchWriter{batches: make(chan []history.AnswerRow, 2), failed: make(chan struct{}), done: make(chan struct{})}
	bg := context.WithoutCancel(ctx)
	go func() {
		defer close(w.done)
		for batch := range w.batches {
			if w.err != nil {
				continue
			}
			if err := b.store.PutAnswers(bg, rid, batch); err != nil {
				w.err = fmt.Errorf("store: %w", err)
				close(w.failed)
				continue
			}
			b.minutes.Add(int64(len(batch)))
		}
	}()
	return w
}

// put hands a batch to the writer; it fails once a write has failed.
func (w *batchWriter) put(batch []history.AnswerRow) error {
	select {
	case w.batches <- batch:
		return nil
	case <-w.failed:
		return errors.New("store: an earlier write failed")
	}
}

// abort ends the writer after err stopped the sweep: a failed write is the error to report (the
// sweep only saw that the writer had stopped).
func (w *batchWriter) abort(err error) error {
	if werr := w.close(); werr != nil {
		return werr
	}
	return err
}

// close waits for the batches put so far to be written and reports the first write error.
func (w *batchWriter) close() error {
	close(w.batches)
	<-w.done
	return w.err
}

// touched reports whether this run fetched, or failed to fetch, a window of the symbol.
func (b *Backfill) touched(symbol string) bool {
	for _, m := range b.members {
		m.mu.Lock()
		hit := m.fetched[symbol] || len(m.failures[symbol]) > 0
		m.mu.Unlock()
		if hit {
			return true
		}
	}
	return false
}

// reconcileSymbol walks the minutes of the sessions in the range in order, keeps each source's
// latest bar as it goes (the bars stream from the store sorted by minute, starting max_carry
// before the range so the first minutes can carry), and reconciles each minute exactly as the
// live reconciler would: feeds.PriceAt's carry rule, then feeds.Reconcile.
func (b *Backfill) reconcileSymbol(ctx context.Context, sym string, end time.Time, sum *Summary, put func([]history.AnswerRow) error) error {
	feed := b.feeds[sym]
	var slots []*slot
	bySource := map[string]*slot{}
	for _, m := range b.members {
		prov, in := feed.ProviderSymbol(m.name)
		if !in {
			continue
		}
		s := &slot{m: m, prov: prov}
		if m.missing == "" {
			raw, err := b.store.Coverage(ctx, m.name, sym)
			if err != nil {
				return err
			}
			s.cov = history.Merge(raw, m.sessions)
			m.mu.Lock()
			s.fails = slices.Clone(m.failures[sym])
			m.mu.Unlock()
		}
		slots = append(slots, s)
		bySource[m.name] = s
	}
	sweepFrom := b.opts.From.Add(-b.rules.MaxCarry)
	bars, err := b.store.ReadBars(ctx, sym, "", sweepFrom, end)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer bars.Close()
	peek, havePeek := bars.Next()
	defer func() {
		for _, s := range slots {
			s.m.mu.Lock()
			s.m.stats.merge(s.stats)
			s.m.mu.Unlock()
		}
	}()

	// A batch ends with a whole day, so it holds up to a day more than answersPerTx: sized for
	// that, it never grows (growing copied every answer once more, a seventh of the sweep). The
	// minutes' quotes are cut from one slab a batch, and every answer shares the one list of
	// the slots' places in the spec (nothing writes to it).
	ords := make([]int, len(slots))
	for i, s := range slots {
		ords[i] = s.m.ord
	}
	const batchCap = answersPerTx + minutesPerDay
	batch := make([]history.AnswerRow, 0, batchCap)
	slab := make([]feeds.Quote, 0, batchCap*len(slots))
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := put(batch)
		// the writer owns the batch and the slab it was handed
		batch = make([]history.AnswerRow, 0, batchCap)
		slab = make([]feeds.Quote, 0, batchCap*len(slots))
		return err
	}
	var stop error
	market.WalkSessions(sweepFrom, end, b.rules.Sessions, func(sp market.SessionSpan) bool {
		for t := sp.From; t.Before(sp.To); t = t.Add(time.Minute) {
			// bars before t that were not taken at their own minute lie outside the sessions
			for havePeek && peek.Start.Before(t) {
				peek, havePeek = bars.Next()
			}
			for havePeek && peek.Start.Equal(t) {
				if s := bySource[peek.Source]; s != nil {
					s.last, s.has = peek.Bar, true
				}
				peek, havePeek = bars.Next()
			}
			if err := bars.Err(); err != nil {
				stop = fmt.Errorf("store: %w", err)
				return false
			}
			if t.Before(b.opts.From) {
				continue
			}
			// a transaction ends with a whole day, so no later one merges into its last block
			if len(batch) >= answersPerTx && history.DayOf(t.Unix()) != history.DayOf(batch[len(batch)-1].Minute.Unix()) {
				if ctx.Err() != nil {
					return false // stop at a transaction boundary; a re-run redoes the answers
				}
				if stop = flush(); stop != nil {
					return false
				}
			}
			quotes := slab[len(slab) : len(slab)+len(slots) : len(slab)+len(slots)]
			slab = slab[:len(slab)+len(slots)]
			batch = append(batch, history.AnswerRow{})
			b.reconcileMinute(&batch[len(batch)-1], sym, t, sp.Session, slots, quotes, ords, sum)
		}
		return true
	})
	if stop != nil {
		return stop
	}
	if ctx.Err() != nil {
		return nil
	}
	return flush()
}

// reconcileMinute builds each source's quote for minute t into quotes (one per slot, this
// minute's own) and reconciles them into row, in place: an answer is written once, where the
// batch holds it. ords are the slots' places in the spec.
func (b *Backfill) reconcileMinute(row *history.AnswerRow, sym string, t time.Time, session market.Session, slots []*slot, quotes []feeds.Quote, ords []int, sum *Summary) {
	incomplete := ""
	for i, s := range slots {
		q := &quotes[i]
		b.quote(q, s, t, session)
		if incomplete == "" && !definite(s, q, t) {
			incomplete = s.m.name + ": " + q.Err
		}
	}
	*row = history.AnswerRow{Symbol: sym, Minute: t, Session: session, Result: feeds.ReconcileOwned(quotes, b.rules), Complete: incomplete == "", Ords: ords}
	res := &row.Result
	row.Reason = res.Reason
	if incomplete != "" {
		row.Reason = strings.TrimPrefix(row.Reason+"; incomplete: "+incomplete, "; ")
	}
	for i, s := range slots {
		s.stats.add(res.Quotes[i].Status)
	}
	sum.Minutes++
	if !res.Agreed {
		sum.NoAgreement++
	}
	if incomplete != "" {
		sum.Incomplete++
	}
}

// definite reports whether a quote is the one the live reconciler would get: a status from
// data, not from what this run did not fetch or could not fetch yet.
func definite(s *slot, q *feeds.Quote, t time.Time) bool {
	switch q.Status {
	case feeds.StatusPending, feeds.StatusError:
		return false
	case feeds.StatusNotCovered:
		// not published yet: the live answer will soon differ
		return t.Before(s.m.ready)
	}
	return true
}

// quote is one source's quote for minute t, from what the store holds. Where the store covers
// the minute, its bars decide, whenever the reconcile runs: a source's history aging out of
// its lookback does not make the bars it gave wrong. Only an uncovered minute asks why.
func (b *Backfill) quote(q *feeds.Quote, s *slot, t time.Time, session market.Session) {
	m := s.m
	*q = feeds.Quote{Source: m.name, Symbol: s.prov, DistanceCentiBps: -1}
	switch {
	case m.missing != "":
		q.Status, q.Err = feeds.StatusNoKey, m.missing
		return
	case !m.cov.Covers(session):
		q.Status, q.Err = feeds.StatusNotCovered, fmt.Sprintf("covers %s, not the %s session", sessionNames(m.cov.Sessions), session)
		return
	}
	// the sweep asks minute after minute: the span of the last minute usually holds this one
	run, ok := s.run, !s.run.From.After(t) && s.run.To.After(t)
	if !ok {
		if run, ok = s.cov.Find(t); ok {
			s.run = run
		}
	}
	if !ok {
		switch {
		case !m.liveLB.IsZero() && t.Before(m.liveLB):
			q.Status, q.Err = feeds.StatusNotCovered, "its 1-minute history "+m.reach()
		case !t.Before(m.ready):
			q.Status, q.Err = feeds.StatusNotCovered, m.unready()+"; this minute is not yet"
		case !m.selected:
			q.Status, q.Err = feeds.StatusPending, "not fetched: left out of this backfill (--sources)"
		default:
			q.Status, q.Err = feeds.StatusPending, "not fetched"
			for _, f := range s.fails {
				if !t.Before(f.From) && t.Before(f.To) {
					q.Status, q.Err, q.Kind = feeds.StatusError, "fetch failed: "+f.reason, f.kind
				}
			}
		}
		return
	}
	reach := b.reachStart(m, t, time.Time{})
	var bars []sources.Bar
	if s.has {
		bars = []sources.Bar{s.last}
	}
	bar, carried, found := feeds.PriceAt(bars, t, t.Sub(reach))
	switch {
	case found && (!carried || !bar.Start.Before(run.From)):
		q.Status, q.Price, q.BarTime, q.Carried = feeds.StatusOK, bar.Close, bar.Start, carried
		if carried {
			q.Status = feeds.StatusCarried
		}
	case !run.From.After(reach) || (!m.planLB.IsZero() && !run.From.After(m.planLB)):
		// the store holds every minute from the edge of the carry (or from the oldest minute
		// the source serves) to t, and none has a bar
		q.Status, q.Err = feeds.StatusNoData, fmt.Sprintf("no bar in the %s before %s", b.rules.MaxCarry, t.Format(time.RFC3339))
	default:
		q.Status, q.Err = feeds.StatusPending, "its carry reaches before the fetched history"
	}
}
