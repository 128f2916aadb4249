package server

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
)

// refuse answers a request that a share or a cap of the server refused
// (a *quota.Refusal, or the *apierror.Error made of one): 429 when the
// client holds its share (other clients are served), 503 when the server
// holds its total, 400 for a request that can never fit; with
// Retry-After, and the GraphQL error that says which bound and what it is.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, err error) {
	var e *apierror.Error
	if !errors.As(err, &e) {
		var ref *quota.Refusal
		if !errors.As(err, &ref) {
			panic("server.refuse: not a refusal: " + err.Error())
		}
		e = apierror.Refused(ref)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(apierror.RetryAfterSeconds(e.RetryAfter)))
	}
	s.fail(w, r, refusalStatus(e.Code), e.Code, e.Reason, e.Message)
}

// refusalStatus is the HTTP status of a refusal's code.
func refusalStatus(code apierror.Code) int {
	switch code {
	case apierror.RateLimited:
		return http.StatusTooManyRequests
	case apierror.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}
