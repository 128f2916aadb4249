package store

import (
	"errors"
	"fmt"

	"github.com/nqueens/nqueens"
)

// ErrSchemaBehind is in the chain of SchemaBehind's errors.
var ErrSchemaBehind = errors.New("the schema is behind")

// SchemaBehind is what a backend answers when the database lacks a table
// or column this binary reads: it was never migrated, or by an older
// binary (an API-only process, which does not migrate, meets this). The
// cause is the backend's own error. No retry helps until an operator
// migrates, so the API says so instead of "try again".
func SchemaBehind(cause error) error {
	return &nqueens.Error{Code: nqueens.EUNAVAILABLE,
		Message: "the database's schema is missing or older than this binary's; run `nqueens migrate up` (from a process whose role may write)",
		Err:     fmt.Errorf("%w: %w", ErrSchemaBehind, cause)}
}
