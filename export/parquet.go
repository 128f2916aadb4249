package export

import (
	"context"
	"io"
	"reflect"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/nqueens/nqueens/solver"
)

// The Parquet form of an export, written with parquet-go: one row per
// solution, in lexicographic order, with the columns
//
//	rank              INT64, the solution's 1-based rank among all the
//	                  solutions of N (unique: among the canonical ones),
//	                  as the API's rank and solutionAt count; under a
//	                  filter still the rank in the unfiltered listing, so
//	                  that a row finds its solution in the API
//	row0 … row{N-1}   INT(8, signed), the column of the queen in each row,
//	                  named as the CSV header names them
//
// Signed 8 bits is the smallest integer type Parquet has; signed rather
// than UINT_8 so that row0 - row1 in DuckDB or pandas does not overflow
// an unsigned type, and so that readers without unsigned types (Spark,
// Java) read it as it is. The row columns are dictionary encoded (N
// values, a few bits each), the rank delta encoded (it mostly steps by
// one: next to nothing); pages are compressed with snappy, which DuckDB,
// pyarrow, polars and hyparquet all read out of the box (hyparquet, in a
// browser, reads zstd only with an extra package), and which is fast to
// decode: zstd makes the dictionary-encoded pages only 3% smaller
// (docs/PERFORMANCE.md).

// ParquetRowGroupRows is the rows of a row group. A reader that wants
// part of a board (a range of ranks, a first row: both sorted, so each
// row group's statistics bound them) fetches only the row groups that
// hold it: 128 Ki rows are about 300 KB of an N=16 file, 112 row groups,
// small enough for a range read to be cheap and large enough for the
// footer to stay small and for a reader to run row groups in parallel.
const ParquetRowGroupRows = 128 << 10

// parquetBatch is the rows handed to the writer at a time.
const parquetBatch = 1024

// ParquetSchema is the schema of an export of N: rank, row0 … row{N-1},
// in that order (a struct built for N keeps its fields' order, which a
// parquet.Group, sorting by name, would not: row10 before row2).
func ParquetSchema(n int) *parquet.Schema {
	fields := make([]reflect.StructField, 0, n+1)
	fields = append(fields, reflect.StructField{Name: "Rank", Type: reflect.TypeFor[int64](), Tag: `parquet:"rank,delta"`})
	for r := range n {
		row := strconv.Itoa(r)
		fields = append(fields, reflect.StructField{
			Name: "Row" + row,
			Type: reflect.TypeFor[int8](),
			Tag:  reflect.StructTag(`parquet:"row` + row + `,dict"`),
		})
	}
	row := reflect.New(reflect.StructOf(fields)).Elem().Interface()
	return parquet.NewSchema("nqueens", parquet.SchemaOf(row))
}

// writeParquet writes the export to w as a Parquet file. Under a filter it
// lists the unfiltered solutions and keeps those the filter matches,
// counting ranks as it goes: a rank is a position in the unfiltered
// listing.
func (e *Export) writeParquet(ctx context.Context, w io.Writer) (solutions uint64, err error) {
	pw := parquet.NewWriter(w, ParquetSchema(e.N),
		parquet.Compression(&parquet.Snappy),
		parquet.MaxRowsPerRowGroup(ParquetRowGroupRows),
		parquet.KeyValueMetadata("nqueens.n", strconv.Itoa(e.N)),
		parquet.KeyValueMetadata("nqueens.unique", strconv.FormatBool(e.Unique)),
		parquet.KeyValueMetadata("nqueens.where", e.Filter.Key()),
	)
	width := e.N + 1
	values := make([]parquet.Value, parquetBatch*width)
	batch := make([]parquet.Row, 0, parquetBatch)
	var werr error
	flush := func() {
		if werr == nil && len(batch) > 0 {
			_, werr = pw.WriteRows(batch)
		}
		batch = batch[:0]
		if e.Progress != nil {
			e.Progress(solutions)
		}
	}
	keep := e.matcher()
	var rank int64
	visit := func(key []byte) {
		rank++
		if keep != nil && !keep(key) {
			return
		}
		row := values[len(batch)*width : (len(batch)+1)*width]
		row[0] = parquet.Int64Value(rank).Level(0, 0, 0)
		for r, c := range key {
			row[r+1] = parquet.Int32Value(int32(c)).Level(0, 0, r+1)
		}
		batch = append(batch, row)
		solutions++
		if len(batch) == parquetBatch {
			flush()
		}
	}
	err = e.list(ctx, solver.Filter{}, visit, func() error { return werr })
	flush()
	if err == nil {
		err = werr
	}
	if err == nil {
		err = pw.Close()
	}
	return solutions, err
}

// matcher returns what keeps a solution of the unfiltered listing under
// the request's filter (nil: every one): unique, the canonical solutions
// whose class has a member the filter matches, which are those one of the
// filter's images matches (solver.Filter.Images).
func (e *Export) matcher() func(key []byte) bool {
	if e.Filter.IsZero() {
		return nil
	}
	filters := []solver.Filter{e.Filter}
	if e.Unique {
		filters = e.Filter.Images(e.N)
	}
	p := make(solver.Placement, e.N)
	return func(key []byte) bool {
		for r, c := range key {
			p[r] = int(c)
		}
		return slices.ContainsFunc(filters, func(f solver.Filter) bool { return f.Matches(p) })
	}
}
