package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nqueens/nqueens/internal/boardsvg"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Hand-written models bound in gqlgen.yml; the rest is in models_gen.go.

// BigInt is a count or a rank: 64 bits, serialized as a decimal string
// (see the scalar's description in scalars.graphqls).
type BigInt uint64

// MarshalGQL writes the number as a JSON string of decimal digits.
func (b BigInt) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, `"`+strconv.FormatUint(uint64(b), 10)+`"`)
}

// UnmarshalGQL reads a decimal string or an integer.
func (b *BigInt) UnmarshalGQL(v any) error {
	const allowed = `a BigInt is a whole number from 0 to 18446744073709551615, written as a decimal string ("1000000") or an Int`
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case json.Number:
		s = string(v)
	case int:
		s = strconv.Itoa(v)
	case int64:
		s = strconv.FormatInt(v, 10)
	case float64:
		if v != math.Trunc(v) || v < 0 || v > 1<<53 {
			return badInput("%v is not allowed: %s", v, allowed)
		}
		*b = BigInt(v)
		return nil
	default:
		return badInput("%s is not allowed: %s", describeValue(v), allowed)
	}
	u, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		shown := s
		if len(shown) > 40 {
			shown = shown[:40] + "…"
		}
		return badInput("%q is not allowed: %s", shown, allowed)
	}
	*b = BigInt(u)
	return nil
}

func bigPtr(u uint64) *BigInt {
	b := BigInt(u)
	return &b
}

// Board is the GraphQL Board: the store's row of board N (state
// store.Unknown when it has none); counts and connections are resolved on
// demand (board.resolvers.go). The fields that change while a board is
// computed note it in the request's CacheHint.
type Board struct {
	N      int
	row    store.Board
	source Source // where its pages come from
	// squares are its statistics, read once for both fields that show
	// them.
	squares *lazySquareCounts
}

// ID is the board's global id.
func (b *Board) ID() string { return BoardID(b.N) }

// GetID implements Node.
func (b *Board) GetID() string { return b.ID() }

// IsNode implements Node.
func (*Board) IsNode() {}

// volatile notes in ctx that the board may still change: nothing about a
// done board does.
func (b *Board) volatile(ctx context.Context) {
	if b.row.State != store.Done {
		markVolatile(ctx)
	}
}

// State is where the precompute stands.
func (b *Board) State(ctx context.Context) store.BoardState {
	b.volatile(ctx)
	return b.row.State
}

// StoresSolutions says whether the precompute keeps the solutions.
func (b *Board) StoresSolutions(ctx context.Context) bool {
	b.volatile(ctx)
	return b.row.StoresSolutions
}

// PagesSource says where the board's pages come from.
func (b *Board) PagesSource(ctx context.Context) Source {
	b.volatile(ctx)
	return b.source
}

// Error is why the board failed.
func (b *Board) Error(ctx context.Context) *string {
	b.volatile(ctx)
	if b.row.LastError == "" {
		return nil
	}
	e := b.row.LastError
	return &e
}

// RequestedBy is who asked for the board's precompute.
func (b *Board) RequestedBy(ctx context.Context) *string {
	b.volatile(ctx) // an UNKNOWN board gets one when asked for
	if b.row.RequestedBy == "" {
		return nil
	}
	name := b.row.RequestedBy
	return &name
}

// Progress is how far the precompute has come.
func (b *Board) Progress(ctx context.Context) *Progress {
	b.volatile(ctx)
	st := b.row
	p := &Progress{ChunksDone: st.ChunksDone, ChunksTotal: st.ChunksTotal, SolutionsFound: BigInt(st.SolutionsDone)}
	switch {
	case st.State == store.Done:
		p.Fraction = 1
	case st.ChunksTotal > 0:
		p.Fraction = float64(st.ChunksDone) / float64(st.ChunksTotal)
	}
	if st.State == store.Running && p.Fraction > 0 && p.Fraction < 1 && !st.StartedAt.IsZero() && !st.UpdatedAt.IsZero() {
		elapsed := st.UpdatedAt.Sub(st.StartedAt)
		left := time.Duration(float64(elapsed) * (1 - p.Fraction) / p.Fraction)
		eta := st.UpdatedAt.Add(left).UTC()
		secs := time.Until(eta).Seconds()
		p.Eta, p.EtaSeconds = &eta, &secs
	}
	return p
}

// Timings says when the precompute happened.
func (b *Board) Timings(ctx context.Context) *Timings {
	b.volatile(ctx)
	st := b.row
	t := &Timings{
		StartedAt:  timePtr(st.StartedAt),
		FinishedAt: timePtr(st.FinishedAt),
		UpdatedAt:  timePtr(st.UpdatedAt),
	}
	if st.State == store.Pending {
		// The store keeps no request time: a pending row's UpdatedAt is
		// when it was requested.
		t.RequestedAt = timePtr(st.UpdatedAt)
	}
	if !st.StartedAt.IsZero() && !st.FinishedAt.IsZero() {
		d := st.FinishedAt.Sub(st.StartedAt).Seconds()
		t.DurationSeconds = &d
	}
	return t
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// CountResult is the answer of count(n).
type CountResult struct {
	N       int
	Total   *BigInt
	Unique  *BigInt
	Classes *OrbitClasses
	Source  *Source
	Board   *Board
	// Filter is count's where: what squareCounts tallies over.
	Filter solver.Filter
}

// State is the board's state.
func (c *CountResult) State(ctx context.Context) store.BoardState { return c.Board.State(ctx) }

func classesOf(c solver.Counts) *OrbitClasses {
	return &OrbitClasses{Orbit1: BigInt(c.Orbit1), Orbit2: BigInt(c.Orbit2), Orbit4: BigInt(c.Orbit4), Orbit8: BigInt(c.Orbit8)}
}

// Solution is the GraphQL Solution: a solution of N ≤ 32 queens. Its
// forms are computed from the placement; rank and uniqueRank are resolved
// through the board's Listing (solution.resolvers.go).
type Solution struct {
	N int
	p solver.Placement

	// Set on the solutions of a page: the ranks of the page's items in
	// their listing, found once per page when asked for, give this
	// solution's rank (the item at offset) without a lookup of its own.
	page   *pageRank
	offset int
}

func newSolution(p solver.Placement) *Solution {
	return &Solution{N: len(p), p: p}
}

// pageRank finds the ranks of a page's items once: the rank of its first
// item (find), the others following by their offset, or, for a filtered
// page, whose items are not consecutive in the listing, the rank of each
// (findEach).
type pageRank struct {
	unique   bool // the listing: canonical solutions only
	once     sync.Once
	find     func(ctx context.Context) (uint64, error)
	findEach func(ctx context.Context) ([]uint64, error)
	rank     uint64
	ranks    []uint64
	err      error
}

// at returns the rank of the page's item at offset.
func (pr *pageRank) at(ctx context.Context, offset int) (uint64, error) {
	pr.once.Do(func() {
		if pr.findEach != nil {
			pr.ranks, pr.err = pr.findEach(ctx)
		} else {
			pr.rank, pr.err = pr.find(ctx)
		}
	})
	switch {
	case pr.err != nil:
		return 0, pr.err
	case pr.findEach != nil:
		return pr.ranks[offset], nil
	}
	return pr.rank + uint64(offset), nil
}

// ID is the solution's global id.
func (s *Solution) ID() string { return SolutionID(s.p) }

// GetID implements Node.
func (s *Solution) GetID() string { return s.ID() }

// IsNode implements Node.
func (*Solution) IsNode() {}

// Placement returns the columns, top row first.
func (s *Solution) Placement() []int { return s.p }

// Compact returns one base-36 digit per row.
func (s *Solution) Compact() string { return s.p.Compact() }

// Rows draws the board as strings.
func (s *Solution) Rows() []string { return s.p.Rows() }

// Matrix returns the 0/1 matrix.
func (s *Solution) Matrix() [][]int { return s.p.Matrix() }

// Chess returns the chess notation.
func (s *Solution) Chess() string { return s.p.Chess() }

// Svg draws the board as an SVG document of size×size pixels.
func (s *Solution) Svg(size int) (string, error) {
	if size < boardsvg.MinSize || size > boardsvg.MaxSize {
		return "", badInput("svg(size: %d): the size is in pixels, from %d to %d", size, boardsvg.MinSize, boardsvg.MaxSize)
	}
	return boardsvg.Render(s.p, size), nil
}

// IsCanonical reports whether the solution names its class.
func (s *Solution) IsCanonical() bool { return solver.IsCanonical(s.p) }

// OrbitSize is the size of its symmetry class.
func (s *Solution) OrbitSize() int { return solver.OrbitSize(s.p) }

// Canonical returns the class's canonical solution.
func (s *Solution) Canonical() *Solution {
	c := solver.Canonical(s.p)
	if c.Compare(s.p) == 0 {
		return s
	}
	return newSolution(c)
}

// symmetryEnum maps the solver's symmetries to the schema's enum.
var symmetryEnum = map[solver.Symmetry]Symmetry{
	solver.Identity:            SymmetryIdentity,
	solver.Rot90:               SymmetryRot90,
	solver.Rot180:              SymmetryRot180,
	solver.Rot270:              SymmetryRot270,
	solver.ReflectVertical:     SymmetryReflectVertical,
	solver.ReflectHorizontal:   SymmetryReflectHorizontal,
	solver.ReflectDiagonal:     SymmetryReflectDiagonal,
	solver.ReflectAntiDiagonal: SymmetryReflectAntiDiagonal,
}

// Symmetries returns the 8 images, identity first.
func (s *Solution) Symmetries() []*SymmetryImage {
	images := solver.Images(s.p)
	out := make([]*SymmetryImage, len(images))
	for i, im := range images {
		same := im.Placement.Compare(s.p) == 0
		sol := s
		if !same {
			sol = newSolution(im.Placement)
		}
		out[i] = &SymmetryImage{
			Symmetry:  symmetryEnum[im.Symmetry],
			Name:      im.Symmetry.String(),
			Placement: im.Placement,
			IsSame:    same,
			Solution:  sol,
		}
	}
	return out
}

// SolutionConnection is a page of a listing as a Relay connection.
type SolutionConnection struct {
	Edges    []*SolutionEdge
	Nodes    []*Solution
	PageInfo *PageInfo
	Source   Source

	n      int
	unique bool
	board  store.Board
	filter solver.Filter // the zero filter: the whole listing
}

// placementArg checks a placement given as an argument: one queen per row
// of an N×N board, N from 1 to maxN.
func placementArg(name string, cols []int, n *int, maxN int) (solver.Placement, error) {
	if len(cols) == 0 {
		return nil, badInput("%s: the placement is empty; give the 0-based column of the queen in each row, e.g. [1, 3, 0, 2]", name)
	}
	if n != nil {
		if *n < 1 || *n > maxN {
			return nil, badInput("%s: n must be from 1 to %d, got %d", name, maxN, *n)
		}
		if len(cols) != *n {
			return nil, badInput("%s: a placement for N=%d needs %s, one per row; got %d", name, *n, plural(*n, "column"), len(cols))
		}
	}
	if len(cols) > maxN {
		return nil, badInput("%s: %d columns; boards of 1 to %d rows are accepted here", name, len(cols), maxN)
	}
	p := solver.Placement(cols)
	if err := solver.ValidateN(len(p), p); err != nil {
		if se, ok := err.(*solver.ShapeError); ok {
			return nil, badInput("%s: %s; each column is from 0 to N-1 (N = the number of rows)", name, strings.TrimSpace(se.Msg))
		}
		return p, err // a *solver.Conflict: well formed, not a solution
	}
	return p, nil
}

// conflictKinds maps the solver's conflict kinds to the schema's enum.
var conflictKinds = map[solver.ConflictKind]ConflictKind{
	solver.SameColumn:       ConflictKindColumn,
	solver.SameDiagonal:     ConflictKindDiagonal,
	solver.SameAntiDiagonal: ConflictKindAntiDiagonal,
}

func conflictModel(c *solver.Conflict) *Conflict {
	return &Conflict{
		RowA: c.RowA, RowB: c.RowB, ColA: c.ColA, ColB: c.ColB,
		Kind:    conflictKinds[c.Kind],
		Message: c.Error(),
	}
}

// describeValue names an argument's value without Go's words for it: the
// value when it is short and simple, else what kind of JSON value it is.
func describeValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case string:
		if len(v) > 40 {
			return "a string of " + plural(len(v), "byte")
		}
		return strconv.Quote(v)
	case json.Number, int, int32, int64, float64:
		return shortNumber(fmt.Sprint(v))
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "this value"
}

func shortNumber(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// pluralOf is n with the noun that fits it, one or many.
func pluralOf(n uint64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}
