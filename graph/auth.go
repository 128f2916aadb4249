package graph

import (
	"context"
	"crypto/subtle"

	"github.com/nqueens/nqueens/internal/apierror"
)

// The admin token that mutations need.

// authorize checks the admin token of a request that starts work.
func (r *Resolver) authorize(ctx context.Context) error {
	want := r.opts.AdminToken
	got := bearerToken(ctx)
	switch {
	case want == "":
		return newError(apierror.Unauthenticated, "mutations are turned off: the server was started without an admin token (NQUEENS_ADMIN_TOKEN)")
	case got == "":
		return newError(apierror.Unauthenticated, "this mutation needs the admin token: send the header \"Authorization: Bearer <token>\"")
	case subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1:
		return newError(apierror.Unauthenticated, "the bearer token is not the admin token")
	}
	return nil
}
