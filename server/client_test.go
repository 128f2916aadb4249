package server

import "testing"

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
