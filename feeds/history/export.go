package history

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pricerig/pricerig/feeds"
)

// Export formats.
const (
	FormatCSV   = "csv"
	FormatJSONL = "jsonl"
)

// ExportHeader is the CSV header: one row per symbol and minute.
var ExportHeader = []string{"symbol", "minute", "price", "price_e8", "sources", "agreed", "complete", "error_kind"}

// Export writes the stored answers a query selects, streaming, as CSV, JSON lines or Parquet
// (see ParquetRow), and returns how many it wrote. price is the decimal answer and scaled the
// integer × 10^8 (both empty when the sources did not agree); sources lists each priced quote as
// name:status:distance_bps in CSV, and every quote with its price, bar time, distance, error and
// error_kind in JSON lines. The CSV's error_kind lists each quote whose request failed as
// name:kind (sources.ErrorKind), empty when none did.
func (s *Store) Export(ctx context.Context, w io.Writer, format string, q Query) (int, error) {
	if format == FormatParquet {
		return s.exportParquet(ctx, w, q)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	n := 0
	var write func(Answer) error
	finish := func() error { return nil }
	switch format {
	case FormatCSV:
		cw := csv.NewWriter(bw)
		if err := cw.Write(ExportHeader); err != nil {
			return 0, err
		}
		write = func(a Answer) error {
			price, scaled := "", ""
			if a.Agreed {
				price, scaled = a.Price.String(), strconv.FormatInt(int64(a.Price), 10)
			}
			var src, kinds []string
			for _, q := range a.Quotes {
				if q.DistanceCentiBps >= 0 {
					src = append(src, q.Source+":"+string(q.Status)+":"+feeds.FormatCentiBps(q.DistanceCentiBps))
				}
				if q.Kind != "" {
					kinds = append(kinds, q.Source+":"+string(q.Kind))
				}
			}
			if err := cw.Write([]string{a.Symbol, a.Minute.Format(time.RFC3339), price, scaled, strings.Join(src, ";"),
				strconv.FormatBool(a.Agreed), strconv.FormatBool(a.Complete), strings.Join(kinds, ";")}); err != nil {
				return err
			}
			return cw.Error()
		}
		finish = func() error { cw.Flush(); return cw.Error() }
	case FormatJSONL:
		enc := json.NewEncoder(bw)
		write = func(a Answer) error { return enc.Encode(exportLine(a)) }
	default:
		return 0, fmt.Errorf("bad input: export format %q (want csv, jsonl or parquet)", format)
	}
	err := s.Answers(ctx, q, func(a Answer) error {
		n++
		return write(a)
	})
	if err == nil {
		err = finish()
	}
	if err == nil {
		err = bw.Flush()
	}
	return n, err
}

// jsonQuote is a quote in an export line; prices are decimal text, never a float.
type jsonQuote struct {
	Source      string `json:"source"`
	Status      string `json:"status"`
	Price       string `json:"price,omitempty"`
	Scaled      int64  `json:"price_e8,omitempty"`
	Bar         string `json:"bar_time,omitempty"`
	DistanceBps string `json:"distance_bps,omitempty"`
	Err         string `json:"error,omitempty"`
	ErrorKind   string `json:"error_kind,omitempty"`
}

type jsonLine struct {
	Symbol   string      `json:"symbol"`
	Minute   string      `json:"minute"`
	Price    *string     `json:"price"`
	Scaled   *int64      `json:"price_e8"`
	Sources  []jsonQuote `json:"sources"`
	Agreed   bool        `json:"agreed"`
	Complete bool        `json:"complete"`
	Reason   string      `json:"reason,omitempty"`
}

func exportLine(a Answer) jsonLine {
	l := jsonLine{Symbol: a.Symbol, Minute: a.Minute.Format(time.RFC3339), Agreed: a.Agreed, Complete: a.Complete, Reason: a.Reason, Sources: []jsonQuote{}}
	if a.Agreed {
		p, v := a.Price.String(), int64(a.Price)
		l.Price, l.Scaled = &p, &v
	}
	for _, q := range a.Quotes {
		j := jsonQuote{Source: q.Source, Status: string(q.Status), Err: q.Err, ErrorKind: string(q.Kind)}
		if q.Price > 0 {
			j.Price, j.Scaled = q.Price.String(), int64(q.Price)
			j.Bar = q.BarTime.Format(time.RFC3339)
		}
		if q.DistanceCentiBps >= 0 {
			j.DistanceBps = feeds.FormatCentiBps(q.DistanceCentiBps)
		}
		l.Sources = append(l.Sources, j)
	}
	return l
}
