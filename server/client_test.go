package server

import (
	"net/http"
	"net/netip"
	"testing"
)

// TestClientKey: IPv4 clients are their address, IPv6 clients their /64
// (or the prefix set), mapped IPv4 addresses IPv4, zones ignored.
func TestClientKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr   string
		prefix int
		want   string
	}{
		{"192.0.2.7:4711", 64, "192.0.2.7"},
		{"192.0.2.7", 64, "192.0.2.7"},
		{"[::ffff:192.0.2.7]:80", 64, "192.0.2.7"},
		{"[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:443", 64, "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", 64, "2001:db8:1:2::/64"},
		{"[2001:db8:1:3::1]:443", 64, "2001:db8:1:3::/64"},
		{"[2001:db8:1:2:aaaa::1]:443", 48, "2001:db8:1::/48"},
		{"[2001:db8::1]:443", 128, "2001:db8::1"},
		{"[fe80::1%eth0]:443", 64, "fe80::/64"},
		{"[::1]:8080", 64, "::/64"},
		{"not an address", 64, "not an address"},
		{"@", 64, "@"},
	}
	for _, tt := range tests {
		if got := clientKey(tt.addr, tt.prefix); got != tt.want {
			t.Errorf("clientKey(%q, %d) = %q, want %q", tt.addr, tt.prefix, got, tt.want)
		}
	}
}

// TestForwardedFor: behind a trusted proxy a request is the client's that
// the proxy appended to X-Forwarded-For (the right-most address that is
// not a trusted proxy); anything else sent in the header is ignored.
func TestForwardedFor(t *testing.T) {
	t.Parallel()
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("fd00::/64")}
	tests := []struct {
		name    string
		remote  string
		xff     []string // the header's lines
		trusted []netip.Prefix
		want    string
	}{
		{"no proxy trusted: the header is ignored", "192.0.2.7:4711", []string{"198.51.100.1"}, nil, "192.0.2.7:4711"},
		{"not from a trusted proxy: ignored", "192.0.2.7:4711", []string{"198.51.100.1"}, trusted, "192.0.2.7:4711"},
		{"from the proxy: the address it appended", "10.0.0.5:4711", []string{"198.51.100.1"}, trusted, "198.51.100.1"},
		{"a forged address on the left is not believed", "10.0.0.5:4711", []string{"203.0.113.9, 198.51.100.1"}, trusted, "198.51.100.1"},
		{"two trusted hops are passed over", "10.0.0.5:4711", []string{"198.51.100.1, 10.0.0.6"}, trusted, "198.51.100.1"},
		{"header lines read right to left", "10.0.0.5:4711", []string{"203.0.113.9", "198.51.100.1"}, trusted, "198.51.100.1"},
		{"IPv6 proxy and client", "[fd00::2]:443", []string{"2001:db8::1"}, trusted, "2001:db8::1"},
		{"no header: the proxy itself", "10.0.0.5:4711", nil, trusted, "10.0.0.5:4711"},
		{"only trusted hops: the proxy itself", "10.0.0.5:4711", []string{"10.0.0.6"}, trusted, "10.0.0.5:4711"},
		{"garbage on the right: the proxy itself", "10.0.0.5:4711", []string{"198.51.100.1, not-an-ip"}, trusted, "10.0.0.5:4711"},
	}
	for _, tt := range tests {
		header := http.Header{"X-Forwarded-For": tt.xff}
		if got := newTrustedProxies(tt.trusted).clientAddr(tt.remote, header); got != tt.want {
			t.Errorf("%s: clientAddr(%q, X-Forwarded-For %q) = %q, want %q", tt.name, tt.remote, tt.xff, got, tt.want)
		}
	}
}
