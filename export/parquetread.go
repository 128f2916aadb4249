package export

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/nqueens/nqueens/solver"
)

// ParquetRow is one row of a Parquet export.
type ParquetRow struct {
	Rank      int64
	Placement solver.Placement
}

// ReadParquet reads a Parquet export of size bytes back with parquet-go,
// checking that its columns are an export's (rank, row0 … row{N-1}): the
// tests' and tools' way to check what a command or the server wrote.
func ReadParquet(data io.ReaderAt, size int64) (n int, rows []ParquetRow, err error) {
	f, err := parquet.OpenFile(data, size)
	if err != nil {
		return 0, nil, err
	}
	fields := f.Schema().Fields()
	n = len(fields) - 1
	want := []string{"rank"}
	for r := range n {
		want = append(want, "row"+strconv.Itoa(r))
	}
	names := make([]string, len(fields))
	for i, field := range fields {
		names[i] = field.Name()
	}
	if !slices.Equal(names, want) {
		return 0, nil, fmt.Errorf("columns %v, want %v", names, want)
	}
	r := parquet.NewReader(f)
	defer r.Close()
	buf := make([]parquet.Row, 512)
	for {
		k, err := r.ReadRows(buf)
		for _, row := range buf[:k] {
			p := make(solver.Placement, n)
			for r := range p {
				p[r] = int(row[r+1].Int32())
			}
			rows = append(rows, ParquetRow{Rank: row[0].Int64(), Placement: p})
		}
		if errors.Is(err, io.EOF) {
			return n, rows, nil
		}
		if err != nil {
			return n, rows, err
		}
	}
}
