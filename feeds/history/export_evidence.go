package history

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// EvidenceHeader is the CSV header of ExportEvidence: one row per bar an answer read.
var EvidenceHeader = []string{"task", "symbol", "minute", "answered_at", "price", "price_e8", "source", "time", "close", "close_e8", "volume", "fetched_at", "final", "counted"}

// evidenceBar is a bar of an evidence line; prices are decimal text, never a float.
type evidenceBar struct {
	Source      string `json:"source"`
	Bar         string `json:"time"`
	Close       string `json:"close"`
	CloseScaled int64  `json:"close_e8"`
	Volume      int64  `json:"volume"`
	Fetched     string `json:"fetched_at,omitempty"`
	Final       bool   `json:"final"`
}

type evidenceLine struct {
	Task     uint64 `json:"task"`
	Symbol   string `json:"symbol"`
	Minute   string `json:"minute"`
	Answered string `json:"answered_at"`
	Answer   string `json:"price"`
	Scaled   int64  `json:"price_e8"`
	// Counted is the sources the answer was reconciled from (absent for evidence kept before
	// the ledger's schema 6); the CSV says per bar whether its source was counted.
	Counted []string      `json:"counted,omitempty"`
	Bars    []evidenceBar `json:"bars"`
}

// ExportEvidence writes the evidence the ledger keeps (`backfill export --evidence`): each
// committed answer a query selects (by symbol and minute) with the bars of every source its
// derivation read, as JSON lines (one line a task) or CSV (one row a bar), and returns how many
// answers it wrote.
func (s *Store) ExportEvidence(ctx context.Context, w io.Writer, format string, q Query) (int, error) {
	if format != FormatCSV && format != FormatJSONL {
		return 0, fmt.Errorf("bad input: the evidence exports as csv or jsonl, not %q", format)
	}
	all, err := s.Evidences(ctx)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	cw, enc := csv.NewWriter(bw), json.NewEncoder(bw)
	if format == FormatCSV {
		if err := cw.Write(EvidenceHeader); err != nil {
			return 0, err
		}
	}
	n := 0
	for _, e := range all {
		if (len(q.Symbols) > 0 && !slices.Contains(q.Symbols, e.Symbol)) || (!q.From.IsZero() && e.Minute.Before(q.From)) || (!q.To.IsZero() && !e.Minute.Before(q.To)) {
			continue
		}
		line := evidenceLine{Task: e.Task, Symbol: e.Symbol, Minute: e.Minute.Format(time.RFC3339), Answered: e.Answered.Format(time.RFC3339),
			Answer: e.Price.String(), Scaled: int64(e.Price), Counted: e.Counted, Bars: []evidenceBar{}}
		err := s.Bars(ctx, e.Symbol, "", e.Span.From, e.Span.To, func(b StoredBar) error {
			eb := evidenceBar{Source: b.Source, Bar: b.Start.Format(time.RFC3339), Close: b.Close.String(), CloseScaled: int64(b.Close), Volume: b.Volume, Final: b.Final}
			if !b.Fetched.IsZero() {
				eb.Fetched = b.Fetched.UTC().Format(time.RFC3339)
			}
			line.Bars = append(line.Bars, eb)
			return nil
		})
		if err != nil {
			return n, err
		}
		n++
		if format == FormatJSONL {
			if err := enc.Encode(line); err != nil {
				return n, err
			}
			continue
		}
		for _, b := range line.Bars {
			if err := cw.Write([]string{strconv.FormatUint(line.Task, 10), line.Symbol, line.Minute, line.Answered, line.Answer, strconv.FormatInt(line.Scaled, 10),
				b.Source, b.Bar, b.Close, strconv.FormatInt(b.CloseScaled, 10), strconv.FormatInt(b.Volume, 10), b.Fetched, strconv.FormatBool(b.Final),
				countedText(line.Counted, b.Source)}); err != nil {
				return n, err
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// countedText is the CSV's counted column of a bar of source: "" when the evidence does not say.
func countedText(counted []string, source string) string {
	if len(counted) == 0 {
		return ""
	}
	return strconv.FormatBool(slices.Contains(counted, source))
}
