package audit

import (
	"context"
	"time"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
)

// StoreHistory reads the backfill's store (feeds/history).
type StoreHistory struct{ Store *history.Store }

// Answered implements History: a stored quote failed when its request did (its status is error,
// or it carries a kind).
func (h StoreHistory) Answered(ctx context.Context, symbol string, from, to time.Time) ([]Stored, error) {
	var out []Stored
	err := h.Store.Answers(ctx, history.Query{Symbols: []string{symbol}, From: from, To: to}, func(a history.Answer) error {
		s := Stored{Minute: a.Minute}
		for _, q := range a.Quotes {
			if q.Status == feeds.StatusError || q.Kind != "" {
				s.Failed = append(s.Failed, FailedQuote{Source: q.Source, Kind: q.Kind})
			}
		}
		out = append(out, s)
		return nil
	})
	return out, err
}
