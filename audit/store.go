package audit

import (
	"context"
	"time"

	"github.com/pricerig/pricerig/feeds/history"
)

// StoreHistory reads the backfill's store (feeds/history).
type StoreHistory struct{ Store *history.Store }

// Answered implements History.
func (h StoreHistory) Answered(ctx context.Context, symbol string, from, to time.Time) ([]time.Time, error) {
	var out []time.Time
	err := h.Store.Answers(ctx, history.Query{Symbols: []string{symbol}, From: from, To: to}, func(a history.Answer) error {
		out = append(out, a.Minute)
		return nil
	})
	return out, err
}
