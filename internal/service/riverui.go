package service

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
)

// adminOnly lets through requests that carry the admin token: as a bearer
// token (Authorization: Bearer …), as API clients send it, or as the
// password of HTTP basic authentication (any user name), which is how a
// browser sends it after asking for it. Without a token nobody passes.
// A browser sends basic credentials with requests that other sites make
// it send too, so requests that change something (River UI cancels and
// retries jobs) must come from a page of this server.
func adminOnly(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if token == "" {
			http.Error(w, "River UI is off: the server has no admin token (NQUEENS_ADMIN_TOKEN)", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !sameOrigin(r) {
			http.Error(w, "River UI takes changes from its own pages only", http.StatusForbidden)
			return
		}
		given := bearerToken(r.Header.Get("Authorization"))
		if _, password, ok := r.BasicAuth(); ok {
			given = password
		}
		if subtle.ConstantTimeCompare([]byte(given), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="nqueens River UI (password: the admin token)"`)
			http.Error(w, "River UI needs the admin token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether a request comes from a page of this server:
// its Origin header, when it has one, names this host.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return r.Header.Get("Sec-Fetch-Site") != "cross-site"
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}

func bearerToken(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
