package history

import (
	"context"
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// FormatParquet is the Parquet export: one row per symbol and minute, sorted by symbol then
// minute, with every source's quote as a repeated group.
const FormatParquet = "parquet"

// parquetRowGroup is the rows of one row group: about a quarter of a symbol's year of minutes, a
// few MiB compressed — large enough for scans to read column chunks whole, small enough that a
// reader filtering on symbol and minute skips most of the file by the row groups' statistics.
const parquetRowGroup = 64 << 10

// parquetPage is the size of the pages the writer fills before it compresses them (parquet-go's
// default, named here because the compressor's window is sized for it).
const parquetPage = 256 << 10

// parquetZstd is the export's zstd codec. parquet-go's own (compress/zstd) makes its encoders
// with zstd's default 8 MiB window, and each keeps a 16 MiB history however small the page it
// compresses; its pool of them is emptied by every other GC and filled again, so a year's export
// held 32 MiB of histories and allocated 128 MiB of them (heap profile, BENCHMARKS.md). A window
// of one page sees every match a page holds, so the pages compress as before, from a 1 MiB
// history. The file says ZSTD either way: readers need nothing of the window.
type parquetZstd struct {
	pqzstd.Codec // its name, format code and Decode
	enc          *zstd.Encoder
}

func newParquetZstd() (*parquetZstd, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithWindowSize(parquetPage),
		zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false))
	if err != nil {
		return nil, err
	}
	return &parquetZstd{enc: enc}, nil
}

// Encode compresses one page; EncodeAll is safe for concurrent use.
func (c *parquetZstd) Encode(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}

// ParquetRow is one exported minute. Times are UTC timestamps in milliseconds; prices are the
// integer × 10^8 (price_e8) and its exact decimal text — never a float.
type ParquetRow struct {
	Symbol string `parquet:"symbol,dict,zstd"`
	Minute int64  `parquet:"minute,timestamp(millisecond),delta"`
	// Scaled and Price are null when the sources did not agree.
	Scaled *int64  `parquet:"price_e8,optional"`
	Price  *string `parquet:"price,optional"`
	// Agreed: at least min_sources agreed; SourcesAgreed is how many survived the outlier cut.
	Agreed        bool           `parquet:"agreed"`
	SourcesAgreed int32          `parquet:"sources_agreed"`
	Complete      bool           `parquet:"complete"`
	Reason        string         `parquet:"reason,dict,zstd"`
	Session       string         `parquet:"session,dict"`
	Sources       []ParquetQuote `parquet:"sources,list"`
}

// ParquetQuote is one source's part in a minute: its status, and with a price, the price, the
// start of the bar it closes and its distance to the answer in hundredths of a basis point;
// without one, why (error) and, when its request failed, the failure's kind (error_kind, a
// sources.ErrorKind: empty otherwise).
type ParquetQuote struct {
	Source           string  `parquet:"source,dict"`
	Status           string  `parquet:"status,dict"`
	Scaled           *int64  `parquet:"price_e8,optional"`
	Price            *string `parquet:"price,optional"`
	Bar              *int64  `parquet:"bar_time,optional,timestamp(millisecond)"`
	DistanceCentiBps *int64  `parquet:"distance_centibps,optional"`
	Err              string  `parquet:"error,dict,zstd"`
	ErrorKind        string  `parquet:"error_kind,dict"`
}

// parquetBatch is a batch of rows and what they point at: their quotes and the values of their
// optional fields, cut from slices the batch keeps. The writer copies every value into its column
// buffers, so a batch it has written is filled again: the export allocates a few batches, not a
// quotes slice a row and four values a quote (a fifth of the export's allocations, which set how
// often the collector runs).
type parquetBatch struct {
	rows   []ParquetRow
	quotes []ParquetQuote
	ints   []int64
	texts  []string
}

const parquetBatchRows = 4096

func newParquetBatch() *parquetBatch {
	return &parquetBatch{rows: make([]ParquetRow, 0, parquetBatchRows), quotes: make([]ParquetQuote, 0, 4*parquetBatchRows),
		ints: make([]int64, 0, 16*parquetBatchRows), texts: make([]string, 0, 5*parquetBatchRows)}
}

func (b *parquetBatch) reset() {
	b.rows, b.quotes, b.ints, b.texts = b.rows[:0], b.quotes[:0], b.ints[:0], b.texts[:0]
}

// An append that outgrows a slice moves it: what earlier rows point at stays in the old array,
// unchanged, so their pointers stay good.
func (b *parquetBatch) int64p(v int64) *int64 {
	b.ints = append(b.ints, v)
	return &b.ints[len(b.ints)-1]
}

func (b *parquetBatch) textp(v string) *string {
	b.texts = append(b.texts, v)
	return &b.texts[len(b.texts)-1]
}

// add appends the exported row of a stored answer.
func (b *parquetBatch) add(a Answer) {
	r := ParquetRow{Symbol: a.Symbol, Minute: a.Minute.UnixMilli(), Agreed: a.Agreed, SourcesAgreed: int32(a.Survivors),
		Complete: a.Complete, Reason: a.Reason, Session: string(a.Session)}
	if a.Agreed {
		r.Scaled, r.Price = b.int64p(int64(a.Price)), b.textp(a.Price.String())
	}
	first := len(b.quotes)
	for _, q := range a.Quotes {
		pq := ParquetQuote{Source: q.Source, Status: string(q.Status), Err: q.Err, ErrorKind: string(q.Kind)}
		if q.Price > 0 {
			pq.Scaled, pq.Price, pq.Bar = b.int64p(int64(q.Price)), b.textp(q.Price.String()), b.int64p(q.BarTime.UnixMilli())
		}
		if q.DistanceCentiBps >= 0 {
			pq.DistanceCentiBps = b.int64p(q.DistanceCentiBps)
		}
		b.quotes = append(b.quotes, pq)
	}
	r.Sources = b.quotes[first:len(b.quotes):len(b.quotes)]
	b.rows = append(b.rows, r)
}

// exportParquet streams the answers a query selects into a Parquet file, a batch of rows at a
// time: a year of answers never sits in memory as rows, only as the current row group's pages.
// Reading the store and encoding the file are a pipeline: one goroutine reads the next batch of
// answers and makes their rows while another encodes and compresses the last (the two halves
// cost about the same, BENCHMARKS.md); three batches go round between them.
func (s *Store) exportParquet(ctx context.Context, w io.Writer, q Query) (int, error) {
	codec, err := newParquetZstd()
	if err != nil {
		return 0, err
	}
	defer codec.enc.Close()
	pw := parquet.NewGenericWriter[ParquetRow](w,
		parquet.MaxRowsPerRowGroup(parquetRowGroup),
		parquet.PageBufferSize(parquetPage),
		parquet.Compression(codec),
		parquet.CreatedBy("pricerig", "", ""),
	)
	const inFlight = 3 // one filled, one waiting, one written
	free := make(chan *parquetBatch, inFlight)
	for range inFlight {
		free <- newParquetBatch()
	}
	full := make(chan *parquetBatch, inFlight)
	failed := make(chan struct{})
	var writeErr error
	written := make(chan struct{})
	go func() {
		defer close(written)
		for b := range full {
			if writeErr == nil {
				if _, err := pw.Write(b.rows); err != nil {
					writeErr = err
					close(failed)
				}
			}
			b.reset() // written: the writer holds none of it
			free <- b
		}
	}()
	n := 0
	b := <-free
	send := func() error {
		full <- b // never blocks: there are only inFlight batches
		select {
		case b = <-free:
			return nil
		case <-failed:
			return errors.New("the Parquet writer stopped")
		}
	}
	err = s.Answers(ctx, q, func(a Answer) error {
		n++
		b.add(a)
		if len(b.rows) == parquetBatchRows {
			return send()
		}
		return nil
	})
	if err == nil && len(b.rows) > 0 {
		err = send()
	}
	close(full)
	<-written
	if writeErr != nil {
		err = writeErr
	}
	if cerr := pw.Close(); err == nil {
		err = cerr
	}
	return n, err
}
