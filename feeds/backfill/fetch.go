package backfill

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/market"
	"github.com/pricerig/pricerig/redact"
	"github.com/pricerig/pricerig/sources"
)

// Retry limits of one window. The HTTP client has already retried short waits and 5xx; these
// cover a provider that asks for longer than the client waits.
const (
	maxRateRetries    = 8
	maxRateWait       = 15 * time.Minute // a longer "retry after" (a daily quota) ends the window: re-run later
	defaultRateWait   = time.Minute      // when a 429 does not say how long
	maxUnavailRetries = 1
)

// retries counts one window's retries of each kind.
type retries struct{ rate, unavailable int }

// again is the one retry policy of a window, whole (fetch) or paged (fetchPaged), after a call
// failed with err (not ErrNoData, which each takes for an empty answer). A rate limit is waited
// out up to maxRateRetries times: the pacer holds every later request of the source until the
// provider's Retry-After (a minute when it names none) has passed, and the wait shows in the
// progress estimate; a provider asking for longer than maxRateWait ends the window. An outage is
// asked again after a pause, maxUnavailRetries times. nil means ask again; otherwise the error
// ends the window.
func (b *Backfill) again(ctx context.Context, m *member, r *retries, err error) error {
	switch {
	case errors.Is(err, sources.ErrRateLimited) && r.rate < maxRateRetries:
		r.rate++
		wait := defaultRateWait
		if se, ok := errors.AsType[*sources.Error](err); ok && se.RetryAfter > 0 {
			wait = se.RetryAfter
		}
		if wait > maxRateWait {
			return fmt.Errorf("%w (the provider asks to wait %s: re-run later)", err, wait)
		}
		b.log.Info("backfill rate limited", "source", m.name, "wait", wait.String())
		if errors.Is(err, sources.ErrNotSent) {
			// the source's breaker stopped the request before the pacer, which sits in the
			// transport, saw it: wait here
			return b.clock.Sleep(ctx, wait)
		}
		m.pacer.hold(b.clock.Now().Add(wait))
		return nil
	case errors.Is(err, sources.ErrOverQuota) && r.rate < maxRateRetries:
		// an hourly or daily allowance spent: the request was not sent; wait until the
		// allowance has room, when that is soon enough, here (no request reached the pacer)
		r.rate++
		se, _ := errors.AsType[*sources.Error](err)
		if se == nil || se.RetryAfter <= 0 || se.RetryAfter > maxRateWait {
			return fmt.Errorf("%w (re-run later)", err)
		}
		b.log.Info("backfill over quota", "source", m.name, "wait", se.RetryAfter.String())
		return b.clock.Sleep(ctx, se.RetryAfter)
	case errors.Is(err, sources.ErrUnavailable) && r.unavailable < maxUnavailRetries:
		r.unavailable++
		return b.clock.Sleep(ctx, time.Duration(r.unavailable)*5*time.Second)
	}
	return err
}

// work fetches one member's jobs in order and hands each to the writer.
func (b *Backfill) work(ctx context.Context, m *member, jobs []job, out chan<- history.FetchedWindow) {
	m.mu.Lock()
	if m.started.IsZero() {
		m.started = b.clock.Now()
	}
	m.mu.Unlock()
	defer m.finished.Store(true)
	down := 0 // windows in a row the source could not be reached for
	for i, j := range jobs {
		if ctx.Err() != nil {
			return
		}
		if m.fatal.kind != "" {
			b.fail(m, j, m.fatal)
			continue
		}
		if reason, bad := m.badSymbol(j.symbols); bad {
			b.fail(m, j, failure{reason, sources.KindUnknownSymbol})
			continue
		}
		var w history.FetchedWindow
		var err error
		if m.pol.paged {
			j, err = b.fetchPaged(ctx, m, j, out)
			jobs[i] = j // on an error, what the window still missed
		} else {
			w, err = b.fetch(ctx, m, j)
		}
		if err != nil {
			if ctx.Err() != nil {
				return // interrupted: the window is not recorded, a re-run fetches it
			}
			f := failure{failReason(err), sources.KindOf(err)}
			if errors.Is(err, sources.ErrUnavailable) {
				down++
			} else {
				down = 0
			}
			switch {
			case errors.Is(err, sources.ErrUnauthorized) || errors.Is(err, sources.ErrNoKey):
				m.fatal = f
				for _, rest := range jobs[i:] {
					b.fail(m, rest, f)
				}
				return
			case down == maxDownWindows:
				// the source is down, not busy: every further window would cost the same retries
				m.fatal = failure{f.reason + fmt.Sprintf(" (%d windows in a row; not asked again this run)", down), f.kind}
				for _, rest := range jobs[i:] {
					b.fail(m, rest, m.fatal)
				}
				return
			case errors.Is(err, sources.ErrUnknownSymbol) && len(j.symbols) == 1:
				m.mu.Lock()
				m.unknown[j.symbols[0]] = f.reason
				m.mu.Unlock()
			}
			b.fail(m, j, f)
			continue
		}
		down = 0
		if m.pol.paged {
			continue // its pages went to the writer as they came
		}
		select {
		case out <- w:
		case <-ctx.Done():
			return
		}
	}
}

// maxDownWindows is how many windows in a row may fail as unavailable (timeouts, refused
// connections, 5xx after the client's retries) before the source is given up for the run.
const maxDownWindows = 3

var requestURL = regexp.MustCompile(`(Get|GET) "[^"]*": `)

// failReason is an error as a gap states it: without the request URL, which differs per window
// and would keep the gaps of consecutive windows that failed alike from reading as one.
func failReason(err error) string {
	return redact.String(requestURL.ReplaceAllString(err.Error(), ""))
}

func (b *Backfill) fail(m *member, j job, f failure) {
	m.failed.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	// the gap is the part of the range the window was for (a window may reach back before it
	// for the carry)
	from, to := market.Later(j.span.From, b.opts.From), market.Earlier(j.span.To, b.opts.To)
	for _, s := range j.symbols {
		m.failures[s] = append(m.failures[s], failedSpan{j.span, f})
		if from.Before(to) {
			m.gaps = append(m.gaps, Gap{Symbol: s, From: from, To: to, Reason: "failed: " + f.reason, Kind: f.kind})
		}
	}
	b.log.Warn("backfill window failed", "source", m.name, "symbols", strings.Join(j.symbols, ","),
		"from", j.span.From.Format(time.RFC3339), "to", j.span.To.Format(time.RFC3339), "error", f.reason, "error_kind", string(f.kind))
}

// fetch asks the source for one window, waiting out rate limits, and returns its bars raw.
func (b *Backfill) fetch(ctx context.Context, m *member, j job) (history.FetchedWindow, error) {
	before, _, _, _ := m.pacer.state()
	w := history.FetchedWindow{Source: m.name, Span: j.span, Symbols: j.symbols, LeadIn: j.leadIn}
	var r retries
	for {
		w.Fetched = b.clock.Now()
		bars, err := b.call(ctx, m, j)
		if err == nil {
			w.Bars = bars
			break
		}
		if ctx.Err() != nil {
			return w, ctx.Err()
		}
		if errors.Is(err, sources.ErrNoData) {
			w.Bars = map[string][]sources.Bar{}
			break
		}
		if err := b.again(ctx, m, &r, err); err != nil {
			return w, err
		}
	}
	after, _, _, _ := m.pacer.state()
	w.Requests = after - before
	for _, sym := range j.symbols {
		bars, err := b.clean(m, sym, j.span, w.Bars[sym])
		if err != nil {
			return w, err
		}
		w.Bars[sym] = bars
	}
	return w, nil
}

// fetchPaged asks a paged provider for one window whole and hands each page to the writer as it
// arrives: the page's bars and the part of the window it proves, for each symbol, are committed
// in one transaction, so an interruption loses at most the page in flight and a re-run asks
// only for what no committed page proved. A rate limit or an outage mid-window is waited out the
// way fetch does, and the window is asked again from where its pages stopped. On an error the job
// returned is what the window still missed.
func (b *Backfill) fetchPaged(ctx context.Context, m *member, j job, out chan<- history.FetchedWindow) (left job, err error) {
	full := j
	windowBars, windowRequests, pages := j.doneBars, j.doneRequests, 0
	defer func() {
		// progress counted the most pages the window could take: it took pages (and one
		// more item, failed, when it failed)
		took := pages
		if err != nil {
			took++
		}
		m.planned.Add(int64(took - max(full.pages, 1)))
	}()
	// send commits a page: its bars and, by symbol, what the call's pages prove so far.
	send := func(w history.FetchedWindow) error {
		windowRequests += w.Requests
		w.Source, w.Span, w.Symbols, w.LeadIn, w.Page = m.name, full.span, full.symbols, full.leadIn, true
		w.WindowBars, w.WindowRequests = windowBars, windowRequests
		select {
		case out <- w:
			pages++
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var r retries
	for {
		provs := make([]string, len(j.symbols))
		for i, sym := range j.symbols {
			provs[i], _ = b.feeds[sym].ProviderSymbol(m.name)
		}
		proven := map[string]history.Span{} // by symbol: what this call's pages prove
		before, _, _, _ := m.pacer.state()
		err = m.pager.Pages(ctx, provs, j.span.From, j.span.To, j.resume, func(p sources.Page) error {
			now, _, _, _ := m.pacer.state()
			w := history.FetchedWindow{Bars: map[string][]sources.Bar{}, Cover: map[string]history.Span{}, Requests: now - before, Next: p.Next, Fetched: b.clock.Now()}
			j.resume = p.Next
			before = now
			for i, sym := range j.symbols {
				bars, err := b.clean(m, sym, j.span, p.Bars[provs[i]])
				if err != nil {
					return err
				}
				w.Bars[sym] = bars
				windowBars += len(bars)
				if c, ok := p.Proven[provs[i]]; ok {
					proven[sym] = history.Span{From: c.From.UTC(), To: c.To.UTC()}
					w.Cover[sym] = proven[sym]
				}
				w.More = w.More || proven[sym] != j.span
			}
			return send(w)
		})
		if err == nil {
			return j, nil
		}
		if ctx.Err() != nil {
			return j, ctx.Err()
		}
		if j.resume == "" {
			// asked again for what the pages did not prove (with a token, the same request
			// goes on from the page after the last one kept)
			j = remaining(j, proven)
		}
		if len(j.symbols) == 0 {
			return j, nil
		}
		if errors.Is(err, sources.ErrNoData) {
			// nothing in what is left: proven empty, as fetch stores an empty window
			now, _, _, _ := m.pacer.state()
			w := history.FetchedWindow{Bars: map[string][]sources.Bar{}, Cover: map[string]history.Span{}, Requests: now - before, Fetched: b.clock.Now()}
			for _, sym := range j.symbols {
				w.Cover[sym] = j.span
			}
			return j, send(w)
		}
		if err := b.again(ctx, m, &r, err); err != nil {
			return j, err
		}
	}
}

// remaining is the part of a paged window its committed pages did not prove: the symbols not
// proven whole, over the span that still misses something for any of them (pages prove a span
// from the window's start, or to its end when the provider pages backwards).
func remaining(j job, proven map[string]history.Span) job {
	out := job{leadIn: j.leadIn, pages: j.pages}
	for _, sym := range j.symbols {
		c, ok := proven[sym]
		var left history.Span
		switch {
		case !ok:
			left = j.span
		case c.From.After(j.span.From):
			left = history.Span{From: j.span.From, To: c.From}
		case c.To.Before(j.span.To):
			left = history.Span{From: c.To, To: j.span.To}
		default:
			continue // proven whole
		}
		if len(out.symbols) == 0 {
			out.span = left
		} else {
			out.span = history.Span{From: market.Earlier(out.span.From, left.From), To: market.Later(out.span.To, left.To)}
		}
		out.symbols = append(out.symbols, sym)
	}
	return out
}

// call makes the source call of one job: one symbol, or a batch.
func (b *Backfill) call(ctx context.Context, m *member, j job) (map[string][]sources.Bar, error) {
	out := map[string][]sources.Bar{}
	if len(j.symbols) == 1 || m.multi == nil {
		for _, sym := range j.symbols {
			prov, _ := b.feeds[sym].ProviderSymbol(m.name)
			bars, err := m.src.Bars(ctx, prov, j.span.From, j.span.To)
			if err != nil {
				return nil, err
			}
			out[sym] = bars
		}
		return out, nil
	}
	provs := make([]string, len(j.symbols))
	for i, sym := range j.symbols {
		provs[i], _ = b.feeds[sym].ProviderSymbol(m.name)
	}
	got, err := m.multi.BarsMulti(ctx, provs, j.span.From, j.span.To)
	if err != nil {
		return nil, err
	}
	for i, sym := range j.symbols {
		out[sym] = got[provs[i]]
	}
	return out, nil
}

// clean brings a window's bars to what the store holds: inside the window, positive closes, raw
// (a split-adjusted source's prices multiplied back by the splits after each bar, as the live
// reconciler does).
func (b *Backfill) clean(m *member, symbol string, span history.Span, bars []sources.Bar) ([]sources.Bar, error) {
	if m.adjusted {
		var err error
		if bars, err = feeds.Unadjust(bars, b.opts.Spec.Splits[symbol], b.now); err != nil {
			return nil, fmt.Errorf("%s %s: %w", m.name, symbol, err)
		}
	}
	keep := func(bar sources.Bar) bool {
		return !bar.Start.Before(span.From) && bar.Start.Before(span.To) && bar.Close > 0 && bar.Volume >= 0 && feeds.Aligned(bar.Start)
	}
	// Nearly always every bar is kept: then the adapter's slice is the window's, not copied
	// (the copy was a page's worth of allocation and GC work). Only a window that drops a bar
	// gets a new slice, so the source's own slice is never rewritten.
	all := true
	for i := range bars {
		if bars[i].Start.Location() != time.UTC || !keep(bars[i]) {
			all = false
			break
		}
	}
	if all && bars != nil {
		return bars, nil
	}
	out := make([]sources.Bar, 0, len(bars))
	dropped := 0
	for _, bar := range bars {
		bar.Start = bar.Start.UTC()
		if keep(bar) {
			out = append(out, bar)
		} else {
			dropped++
		}
	}
	if dropped > 0 {
		b.log.Warn("backfill dropped bars outside the window or without a price", "source", m.name, "symbol", symbol, "dropped", dropped)
	}
	return out, nil
}
