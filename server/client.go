package server

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/nqueens/nqueens/internal/configcheck"
)

// Clients are told apart by their address, for every share a client has
// of the server (connections, websockets, exports, memory, solver turns)
// and for the rate limit. An IPv4 client is its address. An IPv6 client is
// the network of its address's first Config.ClientIPv6Prefix bits (64 by
// default): a host is given a whole /64 and may pick any address in it, so
// counting addresses would give one host 2^64 shares.
//
// Behind a proxy (Config.TrustedProxies) every request comes from the
// proxy's address, and counted so the proxy would be one client whose
// share every client behind it is refused by. A request from a trusted
// proxy is therefore its client's: the address the proxy appended to
// X-Forwarded-For, the right-most one that is not a trusted proxy itself
// (those to its left anybody may have written). From any other address
// X-Forwarded-For is ignored.

// clientKey names the client at remoteAddr ("host:port", or a bare
// host); an address that does not parse is its own client.
func clientKey(remoteAddr string, ipv6Prefix int) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	addr = addr.Unmap().WithZone("") // ::ffff:192.0.2.1 is 192.0.2.1
	if addr.Is4() || ipv6Prefix >= 128 {
		return addr.String()
	}
	prefix, err := addr.Prefix(ipv6Prefix)
	if err != nil {
		return addr.String()
	}
	return prefix.String()
}

// client names the client of r.
func (s *Server) client(r *http.Request) string {
	return clientKey(forwardedFor(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), s.cfg.TrustedProxies), s.cfg.ClientIPv6Prefix)
}

// forwardedFor is the address of the client that sent a request received
// from remoteAddr with the X-Forwarded-For header lines xff: remoteAddr
// unless it is a trusted proxy; else, going from the right of xff, the
// first address that is not a trusted proxy. A list that holds none (or a
// value that is not an address, where a trusted proxy wrote it) leaves
// the request to the last trusted hop, which is then its own client.
func forwardedFor(remoteAddr string, xff []string, trusted []netip.Prefix) string {
	if len(trusted) == 0 || !isTrusted(remoteAddr, trusted) {
		return remoteAddr
	}
	client := remoteAddr
	for i := len(xff) - 1; i >= 0; i-- {
		hops := strings.Split(xff[i], ",")
		for j := len(hops) - 1; j >= 0; j-- {
			addr, err := netip.ParseAddr(strings.TrimSpace(hops[j]))
			if err != nil {
				return client
			}
			if !inPrefixes(addr, trusted) {
				return addr.String()
			}
			client = addr.String()
		}
	}
	return client
}

// isTrusted reports whether remoteAddr ("host:port" or a bare host) is
// one of the trusted proxies.
func isTrusted(remoteAddr string, trusted []netip.Prefix) bool {
	if len(trusted) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && inPrefixes(addr, trusted)
}

func inPrefixes(addr netip.Addr, prefixes []netip.Prefix) bool {
	addr = addr.Unmap().WithZone("")
	for _, p := range prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// checkPrefixes refuses a list of networks with one that is not valid.
func checkPrefixes(field string, prefixes []netip.Prefix) error {
	for _, p := range prefixes {
		if !p.IsValid() {
			return configcheck.Errorf(field, "holds %q, which is not an address or a network (10.0.0.5, 172.18.0.0/16, fd00::/8)", p.String())
		}
	}
	return nil
}

type clientCtxKey struct{}

// withClient records who sends a request (client's name) for the shares
// that the request's operations take later (solver slots, answer turns).
func withClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientCtxKey{}, client)
}

// clientOf is the client withClient recorded ("" for none).
func clientOf(ctx context.Context) string {
	c, _ := ctx.Value(clientCtxKey{}).(string)
	return c
}
