package backfill

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pricerig/pricerig/feeds"
	"github.com/pricerig/pricerig/feeds/history"
	"github.com/pricerig/pricerig/sources"
	"github.com/pricerig/pricerig/sources/sim"
)

// The Parquet export, read back by an independent reader (Apache Arrow's), holds every row of
// the CSV export, in the same order, with the same values, a failed quote's error kind included.
func TestParquetExportRoundTrip(t *testing.T) { eachBackend(t, testParquetExportRoundTrip) }

func testParquetExportRoundTrip(t *testing.T, be storeBackend) {
	e := newEnv(t, ny(2025, time.November, 20, 12, 0), sim.Options{})
	spec := e.spec(t, three, "1000/s")
	store := be.open(t, "export.db")
	from, to := ny(2025, time.November, 3, 0, 0), ny(2025, time.November, 6, 0, 0)
	sum := e.run(t, context.Background(), store, Options{Spec: spec, From: from, To: to, Symbols: []string{"NVDA", "TSLA", "SPY"}})
	if sum.Failed != 0 || sum.Minutes == 0 {
		t.Fatalf("backfill: %d failed, %d minutes", sum.Failed, sum.Minutes)
	}
	// one minute without an answer and one source without a price: the nulls must survive
	editAnswer(t, store, "TSLA", ny(2025, time.November, 4, 10, 0), func(a *history.Answer) {
		a.Agreed, a.Price, a.Reason = false, 0, "made up by the test"
	})
	editAnswer(t, store, "SPY", ny(2025, time.November, 5, 11, 0), func(a *history.Answer) {
		for i := range a.Quotes {
			if q := &a.Quotes[i]; q.Source == "massive" {
				q.Status, q.Price, q.BarTime, q.DistanceCentiBps, q.Err, q.Kind = "error", 0, time.Time{}, -1, "test", sources.KindRateLimited
			}
		}
	})

	var csvOut, pq bytes.Buffer
	nc, err := store.Export(context.Background(), &csvOut, history.FormatCSV, history.Query{})
	if err != nil {
		t.Fatal(err)
	}
	np, err := store.Export(context.Background(), &pq, history.FormatParquet, history.Query{})
	if err != nil || np != nc {
		t.Fatalf("parquet: %d rows (%v), csv %d", np, err, nc)
	}
	want, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want = want[1:]

	rdr, err := file.NewParquetReader(bytes.NewReader(pq.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	if rdr.NumRowGroups() < 1 || rdr.NumRows() != int64(len(want)) {
		t.Fatalf("%d rows in %d row groups, want %d rows", rdr.NumRows(), rdr.NumRowGroups(), len(want))
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1000}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	row, nullAnswers, unpriced, failed := 0, 0, 0, 0
	for rr.Next() {
		rec := rr.RecordBatch()
		col := func(name string) arrow.Array {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				t.Fatalf("no column %q in %s", name, rec.Schema())
			}
			return rec.Column(idx[0])
		}
		symbol, minute := col("symbol").(*array.String), col("minute").(*array.Timestamp)
		scaled, price := col("price_e8").(*array.Int64), col("price").(*array.String)
		agreed, complete := col("agreed").(*array.Boolean), col("complete").(*array.Boolean)
		list := col("sources").(*array.List)
		quotes := list.ListValues().(*array.Struct)
		field := func(name string) arrow.Array {
			i, ok := quotes.DataType().(*arrow.StructType).FieldIdx(name)
			if !ok {
				t.Fatalf("no field %q in the sources group", name)
			}
			return quotes.Field(i)
		}
		qSource, qStatus, qDist := field("source").(*array.String), field("status").(*array.String), field("distance_centibps").(*array.Int64)
		qScaled, qBar, qKind := field("price_e8").(*array.Int64), field("bar_time").(*array.Timestamp), field("error_kind").(*array.String)
		unit := minute.DataType().(*arrow.TimestampType).Unit
		for i := range int(rec.NumRows()) {
			w := want[row]
			got := []string{symbol.Value(i), minute.Value(i).ToTime(unit).UTC().Format(time.RFC3339), "", "", "", strconv.FormatBool(agreed.Value(i)), strconv.FormatBool(complete.Value(i)), ""}
			if !price.IsNull(i) {
				got[2], got[3] = price.Value(i), strconv.FormatInt(scaled.Value(i), 10)
			} else {
				nullAnswers++
			}
			a, b := list.ValueOffsets(i)
			var src, kinds []string
			for j := int(a); j < int(b); j++ {
				if k := qKind.Value(j); k != "" {
					kinds = append(kinds, qSource.Value(j)+":"+k)
					failed++
				}
				if qScaled.IsNull(j) {
					unpriced++
					if !qBar.IsNull(j) {
						t.Fatalf("row %d: a quote without a price has a bar time", row)
					}
				}
				if !qDist.IsNull(j) {
					src = append(src, qSource.Value(j)+":"+qStatus.Value(j)+":"+feeds.FormatCentiBps(qDist.Value(j)))
				}
			}
			got[4], got[7] = strings.Join(src, ";"), strings.Join(kinds, ";")
			if strings.Join(got, ",") != strings.Join(w, ",") {
				t.Fatalf("row %d:\nparquet %v\n    csv %v", row, got, w)
			}
			row++
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if row != len(want) || nullAnswers != 1 || unpriced == 0 || failed != 1 {
		t.Fatalf("%d rows read of %d; %d null answers (want 1), %d quotes without a price, %d with an error kind (want 1)", row, len(want), nullAnswers, unpriced, failed)
	}
}
