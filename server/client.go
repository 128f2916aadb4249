package server

import (
	"context"
	"net"
	"net/http"
	"net/netip"
)

// Clients are told apart by their address, for every share a client has
// of the server (connections, websockets, exports, memory, solver turns)
// and for the rate limit. An IPv4 client is its address. An IPv6 client is
// the network of its address's first Config.ClientIPv6Prefix bits (64 by
// default): a host is given a whole /64 and may pick any address in it, so
// counting addresses would give one host 2^64 shares.

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
	return clientKey(r.RemoteAddr, s.cfg.ClientIPv6Prefix)
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
