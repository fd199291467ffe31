package httpserve

import (
	"net"
	"testing"
)

// TestListenHostileAddresses: spellings that might pass for loopback.
// Whatever the resolver makes of them, a listener on an address other
// hosts can reach is never returned without -http-allow-remote and a
// token: the decision is on the address bound. (Names the resolver would
// send to DNS are left out: tests do not use the network.)
func TestListenHostileAddresses(t *testing.T) {
	for _, addr := range []string{
		"0:0", "[::ffff:0.0.0.0]:0", "[0:0:0:0:0:0:0:0]:0", "[::ffff:127.0.0.1]:0", "127.1:0", "0177.0.0.1:0",
		"2130706433:0", "[::1%lo]:0", "[::]:0", "[::ffff:7f00:1]:0",
	} {
		c := &Config{Addr: addr}
		ep, err := c.Listen()
		if err != nil {
			t.Logf("%s: %v", addr, err)
			continue // refused, or not an address: nothing listens
		}
		bound := ep.Listener.Addr().(*net.TCPAddr)
		ep.Listener.Close()
		t.Logf("%s: listened on %s", addr, bound)
		if !bound.IP.IsLoopback() || ep.Remote {
			t.Errorf("%s: listening on %s (remote %v) without -http-allow-remote", addr, bound, ep.Remote)
		}
	}
}
