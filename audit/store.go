package audit

import (
	"context"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
)

// StoreHistory reads the backfill's store (feeds/history).
type StoreHistory struct{ Store *history.Store }

// Answered implements History. A minute stored incomplete (a source's window is missing or
// failed) is not answered: a re-run of the backfill would fill it, so it counts as a gap.
func (h StoreHistory) Answered(ctx context.Context, symbol string, from, to time.Time) ([]time.Time, error) {
	var out []time.Time
	err := h.Store.Answers(ctx, history.Query{Symbols: []string{symbol}, From: from, To: to}, func(a history.Answer) error {
		if a.Complete {
			out = append(out, a.Minute)
		}
		return nil
	})
	return out, err
}
