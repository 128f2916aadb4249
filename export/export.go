// Package export streams every solution of a board, or those that meet a
// filter, as CSV, NDJSON, placement lines or Parquet: for notebooks (pandas,
// DuckDB, R) and scripts. The solutions come from the store when the board
// is stored (one streaming query, store.Reader.Walk), else from the
// solver's ordered enumeration. cmd/nqueens (nqueens export) and server
// (GET /export/{n}.csv) wire it; neither holds any of its logic.
//
// The formats, one solution a line in lexicographic order:
//
//	csv        header row0,row1,…,row{N-1}; then the 0-based column of the
//	           queen in each row: 1,3,0,2
//	ndjson     {"n":4,"placement":[1,3,0,2]}
//	placement  1 3 0 2 (as nqueens solve prints it)
//
// and Parquet, one row per solution: its rank, then row0 … row{N-1} as
// CSV names them (parquet.go).
package export

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Format is the form of the output.
type Format int

const (
	CSV Format = iota
	NDJSON
	Placement
	Parquet
)

var formatNames = [...]string{CSV: "csv", NDJSON: "ndjson", Placement: "placement", Parquet: "parquet"}

// FormatNames lists the formats as ParseFormat reads them.
func FormatNames() []string { return formatNames[:] }

func (f Format) String() string {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// ParseFormat is the inverse of Format.String.
func ParseFormat(name string) (Format, error) {
	for i, s := range formatNames {
		if s == name {
			return Format(i), nil
		}
	}
	return 0, nqueens.Errorf(nqueens.EINVALID, "unknown format %q; formats are %s", name, strings.Join(formatNames[:], ", "))
}

// Request is what to export.
type Request struct {
	N int
	// Unique exports the canonical solutions only, one per symmetry class:
	// under a filter, the classes with a matching member (as unique pages
	// list them, store.WalkRequest.Filter).
	Unique bool
	Filter solver.Filter
	Format Format
}

// Check checks the request: EINVALID with what is allowed.
func (r Request) Check() error {
	if r.N < 1 || r.N > solver.MaxSearchN {
		return nqueens.Errorf(nqueens.EINVALID, "N must be between 1 and %d, got %d", solver.MaxSearchN, r.N)
	}
	if err := r.Filter.Validate(r.N); err != nil {
		return nqueens.Errorf(nqueens.EINVALID, "filter: %v", err)
	}
	if r.Format < 0 || int(r.Format) >= len(formatNames) {
		return nqueens.Errorf(nqueens.EINVALID, "unknown format %d", int(r.Format))
	}
	return nil
}

// Store is what an export reads from a store: store.Reader has both.
type Store interface {
	Board(ctx context.Context, n int) (store.Board, error)
	Walk(ctx context.Context, req store.WalkRequest, visit func(placement []byte) error) error
}

// Source is where an export's solutions come from.
type Source int

const (
	FromStore Source = iota
	FromSolver
)

func (s Source) String() string {
	if s == FromStore {
		return "store"
	}
	return "solver"
}

// Export is a checked request and its source, ready to write.
type Export struct {
	Request
	Source Source
	// Progress, when set, is told how many solutions a Parquet export has
	// written so far, every thousand or so (the text formats count their
	// lines instead).
	Progress func(solutions uint64)
	st       Store
}

// Plan checks req and picks its source: the store when it holds the board
// done with its solutions, else the solver for N up to solverMaxN (an
// enumeration of N=16 takes seconds, of N=17 minutes); beyond it EINVALID,
// saying so. st may be nil: the solver only.
func Plan(ctx context.Context, st Store, req Request, solverMaxN int) (*Export, error) {
	if err := req.Check(); err != nil {
		return nil, err
	}
	if st != nil {
		b, err := st.Board(ctx, req.N)
		switch {
		case err == nil && b.State == store.Done && b.StoresSolutions:
			return &Export{Request: req, Source: FromStore, st: st}, nil
		case err != nil && nqueens.ErrorCode(err) != nqueens.ENOTFOUND:
			return nil, err
		}
	}
	if req.N > solverMaxN {
		return nil, nqueens.Errorf(nqueens.EINVALID, "N=%d is not stored, and boards that are not are exported up to N=%d", req.N, solverMaxN)
	}
	return &Export{Request: req, Source: FromSolver}, nil
}

// bufferSize is the output buffer: large writes, few system calls.
const bufferSize = 256 << 10

// WriteTo writes the export to w: the header (CSV), then one line per
// solution, through a buffer of its own; or a Parquet file (parquet.go).
// It returns how many solutions it wrote. ctx stops it (a cancelled
// download); so does the first error of w.
func (e *Export) WriteTo(ctx context.Context, w io.Writer) (solutions uint64, err error) {
	if e.Format == Parquet {
		return e.writeParquet(ctx, w)
	}
	bw := bufio.NewWriterSize(w, bufferSize)
	if e.Format == CSV {
		bw.Write(appendCSVHeader(bw.AvailableBuffer(), e.N))
	}
	line := lineWriter(e.Format, e.N)
	err = e.list(ctx, e.Filter, func(key []byte) {
		bw.Write(line(bw.AvailableBuffer(), key))
		solutions++
	}, func() error { return writerErr(bw) })
	if err != nil {
		return solutions, err
	}
	return solutions, bw.Flush()
}

// list calls visit with every solution of the export's listing under
// filter f (which need not be the request's), in lexicographic order, and
// stops with the error of check, which it calls every so often: the
// output's first error.
func (e *Export) list(ctx context.Context, f solver.Filter, visit func(key []byte), check func() error) error {
	if e.Source == FromSolver {
		return e.fromSolver(ctx, f, visit, check)
	}
	var listed uint64
	return e.st.Walk(ctx, store.WalkRequest{N: e.N, Unique: e.Unique, Filter: f}, func(key []byte) error {
		visit(key)
		listed++
		// A write error (the reader gone) or a cancelled ctx stops
		// the query at once: the driver notices ctx only between
		// its own steps, and may have read the last row by then.
		if listed%1024 == 0 {
			if err := check(); err != nil {
				return err
			}
			return ctx.Err()
		}
		return nil
	})
}

// solverPage is how many solutions the solver path asks for at a time: a
// page resumes at its cursor, and ctx is checked inside the search, so a
// filter that keeps few solutions still stops soon when cancelled.
const solverPage = 4096

// fromSolver lists the solutions under f with the solver's filtered
// search (which prunes by the filter, rather than listing all and
// dropping most), page after page.
func (e *Export) fromSolver(ctx context.Context, f solver.Filter, visit func([]byte), check func() error) error {
	key := make([]byte, e.N)
	var cursor solver.Placement
	for {
		page, err := solver.Page(ctx, solver.PageQuery{N: e.N, Cursor: cursor, Limit: solverPage, Unique: e.Unique, Filter: f})
		if err != nil {
			return err
		}
		for _, p := range page {
			for r, c := range p {
				key[r] = byte(c)
			}
			visit(key)
		}
		if err := check(); err != nil {
			return err
		}
		if len(page) < solverPage {
			return ctx.Err()
		}
		cursor = page[len(page)-1]
	}
}

// writerErr is the error a bufio.Writer keeps after a failed write: a
// zero-length write returns it without writing.
func writerErr(bw *bufio.Writer) error {
	_, err := bw.Write(nil)
	return err
}
