package graph_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
)

// TestCountsOnlyRanks precomputes N=12..14 with their counts only through
// the real server, engine and workers over a real store, on both backends,
// with the solver's walk from the first solution turned off
// (RankWalkMaxN 0): before a board's rank index is counted solutionAt is
// UNAVAILABLE; then solutionAt (all and unique) answers sampled
// ranks, first and last included, with the solver's ordered listing's
// item of that rank, solution(placement).rank and uniqueRank give the rank
// back, and a rank past the last is NOT_FOUND.
func TestCountsOnlyRanks(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"postgres", "sqlite"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			const token = "rank-token"
			api, j := setupEngine(t, backend, token, func(c *server.Config) { c.Graph.RankWalkMaxN = 0 })
			auth := []string{"Authorization", "Bearer " + token}
			ns := []int{12, 13, 14}
			for _, n := range ns {
				r := api.Post(t, apitest.Request{Query: `mutation($n: Int!) { precompute(n: $n, storeSolutions: false) { n } }`,
					Variables: map[string]any{"n": n}}, auth...)
				if len(r.Errors) > 0 {
					t.Fatalf("precompute(n: %d, storeSolutions: false): %s", n, r.Raw)
				}
			}
			at := func(n int, rank uint64, unique bool) *apitest.Response {
				return api.Post(t, apitest.Request{Query: `query($n: Int!, $r: BigInt!, $u: Boolean) { solutionAt(n: $n, rank: $r, unique: $u) { placement rank uniqueRank } }`,
					Variables: map[string]any{"n": n, "r": fmt.Sprint(rank), "u": unique}})
			}
			// No job has run: N=14 has no index yet, and may not be walked.
			if r := at(14, 1, false); r.Code() != "UNAVAILABLE" {
				t.Errorf("solutionAt(n: 14) before the board is counted: %s; want UNAVAILABLE", r.Raw)
			}
			if err := j.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { j.Shutdown() })
			for _, n := range ns {
				eventually.True(t, 5*time.Minute, func() string {
					if r := at(n, 1, true); len(r.Errors) > 0 {
						return string(r.Raw)
					}
					return ""
				})
			}
			for _, n := range ns {
				for _, unique := range []bool{false, true} {
					checkRanks(t, api, n, unique, at)
				}
			}
			checkFilteredRanks(t, api, 13)
		})
	}
}

// checkFilteredRanks compares the ranks of a filtered page of N, whose
// items lie in several chunks of the rank index, with their places in the
// solver's listing, all and unique.
func checkFilteredRanks(t *testing.T, api *apitest.Bundle, n int) {
	t.Helper()
	for _, unique := range []bool{false, true} {
		field, rank, seq := "solutions", "rank", solver.All(n)
		if unique {
			field, rank, seq = "uniqueSolutions", "uniqueRank", solver.AllUnique(n)
		}
		var listing []solver.Placement
		for p := range seq {
			listing = append(listing, p.Clone())
		}
		var data map[string]struct {
			Edges []struct {
				Node struct {
					Placement []int
					Rank      *string
				}
			}
		}
		api.Query(t, fmt.Sprintf(`query($n: Int!) { %s(n: $n, first: 40, where: {queens: [{row: 3, col: 6}]}) { edges { node { placement rank: %s } } } }`, field, rank),
			map[string]any{"n": n}, &data)
		edges := data[field].Edges
		if len(edges) < 2 {
			t.Fatalf("%s(n: %d) with a queen on (3, 6): %d edges", field, n, len(edges))
		}
		for _, e := range edges {
			want := slices.IndexFunc(listing, func(p solver.Placement) bool { return slices.Equal(p, e.Node.Placement) }) + 1
			if e.Node.Rank == nil || *e.Node.Rank != fmt.Sprint(want) {
				t.Errorf("%s(n: %d, where): %v has %s %v, want %d", field, n, e.Node.Placement, rank, e.Node.Rank, want)
			}
		}
	}
}

// checkRanks compares solutionAt(n, k, unique) with item k of the
// solver's listing for sampled k (the first, the last and random ones),
// and the solution's rank with k; a rank past the last is NOT_FOUND.
func checkRanks(t *testing.T, api *apitest.Bundle, n int, unique bool, at func(int, uint64, bool) *apitest.Response) {
	t.Helper()
	seq := solver.All(n)
	if unique {
		seq = solver.AllUnique(n)
	}
	var listing []solver.Placement
	for p := range seq {
		listing = append(listing, p.Clone())
	}
	total := uint64(len(listing))
	ranks := []uint64{1, 2, total - 1, total}
	for range 12 {
		ranks = append(ranks, 1+rand.Uint64N(total))
	}
	for _, k := range ranks {
		r := at(n, k, unique)
		var data struct {
			SolutionAt *struct {
				Placement        []int
				Rank, UniqueRank *string
			}
		}
		if len(r.Errors) > 0 || json.Unmarshal(r.Data, &data) != nil || data.SolutionAt == nil {
			t.Errorf("solutionAt(n: %d, rank: %d, unique: %t): %s", n, k, unique, r.Raw)
			continue
		}
		want := listing[k-1]
		if !slices.Equal(data.SolutionAt.Placement, want) {
			t.Errorf("solutionAt(n: %d, rank: %d, unique: %t) = %v; the solver's listing has %v", n, k, unique, data.SolutionAt.Placement, want)
			continue
		}
		// The rank back, from the placement alone.
		var back struct {
			Solution struct{ Rank, UniqueRank *string }
		}
		api.Query(t, `query($p: [Int!]!) { solution(placement: $p) { rank uniqueRank } }`, map[string]any{"p": want}, &back)
		got := back.Solution.Rank
		if unique {
			got = back.Solution.UniqueRank
		}
		if got == nil || *got != fmt.Sprint(k) {
			t.Errorf("solution(placement: %v) rank (unique %t) = %v; want %d", want, unique, got, k)
		} else if data.SolutionAt.Rank == nil && !unique || data.SolutionAt.UniqueRank == nil && unique {
			t.Errorf("solutionAt(n: %d, rank: %d, unique: %t): no rank in %s", n, k, unique, r.Raw)
		}
	}
	if r := at(n, total+1, unique); r.Code() != "NOT_FOUND" {
		t.Errorf("solutionAt(n: %d, rank: %d, unique: %t), past the last: %s; want NOT_FOUND", n, total+1, unique, r.Raw)
	}
}
