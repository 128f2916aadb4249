package server

import (
	"context"
	"net"
	"net/http"
	"net/netip"

	"github.com/realclientip/realclientip-go"

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
	return clientKey(s.proxies.clientAddr(r.RemoteAddr, r.Header), s.cfg.ClientIPv6Prefix)
}

// trustedProxies are Config.TrustedProxies, and how a request from one of
// them names its client: realclientip's rightmost-trusted-range strategy
// over X-Forwarded-For.
type trustedProxies struct {
	prefixes []netip.Prefix
	xff      realclientip.RightmostTrustedRangeStrategy
}

func newTrustedProxies(prefixes []netip.Prefix) trustedProxies {
	nets := make([]net.IPNet, len(prefixes))
	for i, p := range prefixes {
		nets[i] = net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
	}
	xff, err := realclientip.NewRightmostTrustedRangeStrategy("X-Forwarded-For", nets)
	if err != nil {
		panic(err) // the header's name is one it takes
	}
	return trustedProxies{prefixes: prefixes, xff: xff}
}

// clientAddr is the address of the client that sent a request received
// from remoteAddr with header: remoteAddr unless that is a trusted proxy;
// else the right-most address of X-Forwarded-For that is not a trusted
// proxy. A list that holds none, or where a value read before it is not
// an address, leaves the request to the proxy, which is then its client.
func (tp trustedProxies) clientAddr(remoteAddr string, header http.Header) string {
	if !tp.contains(remoteAddr) {
		return remoteAddr
	}
	if addr := tp.xff.ClientIP(header, remoteAddr); addr != "" {
		return addr
	}
	return remoteAddr
}

// contains reports whether remoteAddr ("host:port" or a bare host) is one
// of the trusted proxies.
func (tp trustedProxies) contains(remoteAddr string) bool {
	if len(tp.prefixes) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	addr = addr.Unmap().WithZone("")
	for _, p := range tp.prefixes {
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
