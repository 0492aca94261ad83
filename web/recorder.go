package web

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/pricerig/pricerig/feeds"
)

// DefaultRecent is how many priced minutes a Recorder keeps for the sources section.
const DefaultRecent = 12

// Recorder sits in front of a rig's pricer and keeps the last results it saw, so the page can
// show each source's status, latency and distance for the minutes the rig priced. The journal
// keeps only the answer; the quotes behind it live here, in memory, for as long as the process.
type Recorder struct {
	keep int
	now  func() time.Time

	mu      sync.Mutex
	results []recorded // oldest first, one per symbol and minute
}

type recorded struct {
	at     time.Time
	result feeds.Result
}

// NewRecorder keeps the last keep priced minutes (DefaultRecent when keep <= 0).
func NewRecorder(keep int, now func() time.Time) *Recorder {
	if keep <= 0 {
		keep = DefaultRecent
	}
	if now == nil {
		now = time.Now
	}
	return &Recorder{keep: keep, now: now}
}

// Pricer gives the reconciled price of a symbol at a minute: the runner's pricer (rig.Pricer),
// which *feeds.Reconciler is.
type Pricer interface {
	// Price reconciles the sources' prices of symbol at minute.
	Price(ctx context.Context, symbol string, minute time.Time, opts ...feeds.PriceOption) (feeds.Result, error)
}

// Wrap returns a pricer that prices through next and records what it returned.
func (r *Recorder) Wrap(next Pricer) Pricer { return recordingPricer{r: r, next: next} }

type recordingPricer struct {
	r    *Recorder
	next Pricer
}

func (p recordingPricer) Price(ctx context.Context, symbol string, minute time.Time, opts ...feeds.PriceOption) (feeds.Result, error) {
	res, err := p.next.Price(ctx, symbol, minute, opts...)
	if err == nil || len(res.Quotes) > 0 {
		if res.Symbol == "" {
			res.Symbol = symbol
		}
		if res.Minute.IsZero() {
			res.Minute = minute
		}
		p.r.add(res)
	}
	return res, err
}

// add keeps res, replacing an earlier result of the same symbol and minute (a retry, or another
// rig process of a devnet pricing the same task).
func (r *Recorder) add(res feeds.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = slices.DeleteFunc(r.results, func(x recorded) bool {
		return x.result.Symbol == res.Symbol && x.result.Minute.Equal(res.Minute)
	})
	r.results = append(r.results, recorded{at: r.now(), result: res})
	if n := len(r.results) - r.keep; n > 0 {
		r.results = slices.Delete(r.results, 0, n)
	}
}

// Recent returns the kept results, newest first.
func (r *Recorder) Recent() []feeds.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]feeds.Result, 0, len(r.results))
	for i := len(r.results) - 1; i >= 0; i-- {
		out = append(out, r.results[i].result)
	}
	return out
}
