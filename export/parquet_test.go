package export_test

import (
	"bytes"
	"slices"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/solver"
)

// checkParquet reads a Parquet export of N back with parquet-go, checks
// its columns (rank, then row0 … row{N-1} as signed 8-bit integers), its
// codec and every row's rank (its position in the solver's unfiltered
// enumeration), and returns its placements.
func checkParquet(t *testing.T, n int, unique bool, data []byte) []solver.Placement {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("N=%d: parquet-go cannot open the export: %v", n, err)
	}
	fields := f.Schema().Fields()
	want := append([]string{"rank"}, rowNames(n)...)
	if got := fieldNames(fields); !slices.Equal(got, want) {
		t.Fatalf("N=%d: columns %v, want %v", n, got, want)
	}
	for _, field := range fields[1:] {
		if it, ok := field.Type().LogicalType().Value.(*format.IntType); !ok || it.BitWidth != 8 || !it.IsSigned {
			t.Fatalf("N=%d: column %s is %v, want INT(8, signed)", n, field.Name(), field.Type())
		}
	}
	if k := fields[0].Type().Kind(); k != parquet.Int64 {
		t.Fatalf("N=%d: rank is %v, want INT64", n, k)
	}
	for _, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if c.MetaData.Codec != format.Snappy {
				t.Fatalf("N=%d: column %v compressed with %v, want snappy", n, c.MetaData.PathInSchema, c.MetaData.Codec)
			}
		}
	}
	if got, _ := f.Lookup("nqueens.n"); got != strconv.Itoa(n) {
		t.Errorf("N=%d: metadata nqueens.n = %q", n, got)
	}

	ranks := map[string]int64{}
	for i, p := range enumerate(n, unique, solver.Filter{}) {
		ranks[p.String()] = int64(i + 1)
	}
	k, rows, err := export.ReadParquet(bytes.NewReader(data), int64(len(data)))
	if err != nil || k != n {
		t.Fatalf("N=%d: reading the rows: N=%d, %v", n, k, err)
	}
	var got []solver.Placement
	for _, row := range rows {
		if want := ranks[row.Placement.String()]; row.Rank != want {
			t.Fatalf("N=%d unique=%t: %v has rank %d, want %d", n, unique, row.Placement, row.Rank, want)
		}
		got = append(got, row.Placement)
	}
	return got
}

func fieldNames(fields []parquet.Field) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name()
	}
	return names
}

// TestParquetRowGroups exports N=14 (365,596 solutions) from the solver:
// row groups of ParquetRowGroupRows rows, each with its range of ranks in
// its statistics, so that a reader asking for some ranks (or some first
// rows: both sorted) reads only the row groups that hold them.
func TestParquetRowGroups(t *testing.T) {
	t.Parallel()
	const n, total = 14, 365_596
	e, err := export.Plan(t.Context(), nil, export.Request{N: n, Format: export.Parquet}, n)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if k, err := e.WriteTo(t.Context(), &out); err != nil || k != total {
		t.Fatalf("export of N=%d: %d solutions, %v; want %d", n, k, err, total)
	}
	f, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	groups := f.Metadata().RowGroups
	if want := (total + export.ParquetRowGroupRows - 1) / export.ParquetRowGroupRows; len(groups) != want || f.NumRows() != total {
		t.Fatalf("%d rows in %d row groups, want %d in %d", f.NumRows(), len(groups), total, want)
	}
	first := int64(1)
	for i, g := range groups {
		stats := g.Columns[0].MetaData.Statistics
		lo, hi := int64Of(stats.MinValue), int64Of(stats.MaxValue)
		if lo != first || hi != first+g.NumRows-1 {
			t.Errorf("row group %d: ranks %d..%d in its statistics, want %d..%d", i, lo, hi, first, first+g.NumRows-1)
		}
		first += g.NumRows
	}
}

// int64Of reads a statistics value of an INT64 column (8 bytes, little
// endian, as the format stores them).
func int64Of(b []byte) int64 {
	if len(b) != 8 {
		return -1
	}
	var v int64
	for i := 7; i >= 0; i-- {
		v = v<<8 | int64(b[i])
	}
	return v
}
