package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/eventually"
)

// TestPrecomputeMutationStoresSolutions asks serve for boards with the
// mutation: each answer says whether the board will keep its solutions,
// as the storage limit or storeSolutions decide, and the boards, once
// computed by serve's workers, are as it said.
func TestPrecomputeMutationStoresSolutions(t *testing.T) {
	t.Parallel()
	const token = "plans-token"
	s := startServe(t, []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db"),
		"NQUEENS_ADMIN_TOKEN=" + token, "NQUEENS_STORE_MAX_N=10"})
	said := map[int]bool{}
	for _, ask := range []struct {
		n      int
		args   string
		stores bool
	}{{9, "", true}, {8, ", storeSolutions: false", false}, {11, "", false}} {
		var r struct {
			Data struct {
				Precompute struct {
					State           string
					StoresSolutions bool
				}
			}
		}
		body := s.postAs(t, token, fmt.Sprintf(`{"query":"mutation { precompute(n: %d%s) { state storesSolutions } }"}`, ask.n, ask.args))
		if err := json.Unmarshal([]byte(body), &r); err != nil || r.Data.Precompute.StoresSolutions != ask.stores || r.Data.Precompute.State == "" {
			t.Errorf("precompute(n: %d%s): %s; want storesSolutions %t", ask.n, ask.args, body, ask.stores)
		}
		said[ask.n] = ask.stores
	}
	eventually.True(t, time.Minute, func() string {
		body := s.post(t, `{"query":"{ boards(state: DONE) { n storesSolutions } }"}`)
		for n, stores := range said {
			if !strings.Contains(body, fmt.Sprintf(`{"n":%d,"storesSolutions":%t}`, n, stores)) {
				return "boards done: " + body
			}
		}
		return ""
	})
	s.stop(t)
}
