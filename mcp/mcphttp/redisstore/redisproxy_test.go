package redisstore

import (
	"net"
	"sync"
	"testing"
)

// A verdict says what becomes of one read a redisProxy carries.
type verdict int

const (
	pass verdict = iota // forward it
	drop                // forward nothing; the connection stays open
	cut                 // close the connection, forwarding nothing
)

// A hook judges each read of one direction of a connection.
type hook func(b []byte) verdict

// startRedisProxy starts a TCP proxy to the Redis listening on socket and
// returns its address. A test puts it between a client and Redis to
// break their connections as a network can. For each connection it
// accepts, it calls hooks for the two hooks of that connection: toRedis
// judges what the client sends, toClient what Redis answers; nil passes
// everything. The proxy stops when the test ends.
func startRedisProxy(t *testing.T, socket string, hooks func() (toRedis, toClient hook)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		closed bool
		conns  []net.Conn
	)
	// track keeps c and r for the end of the test, or closes them if it
	// came: a connection still open then would keep wg.Wait waiting.
	track := func(c, r net.Conn) bool {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			c.Close()
			r.Close()
			return false
		}
		conns = append(conns, c, r)
		return true
	}
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		closed = true
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			r, err := net.Dial("unix", socket)
			if err != nil {
				c.Close()
				continue
			}
			if !track(c, r) {
				return
			}
			toRedis, toClient := hooks()
			wg.Go(func() { forward(r, c, toRedis) })
			wg.Go(func() { forward(c, r, toClient) })
		}
	})
	return l.Addr().String()
}

// forward copies src to dst, each read judged by h first, until either
// fails or h cuts; it then closes both, so that the other direction
// ends too.
func forward(dst, src net.Conn, h hook) {
	defer dst.Close()
	defer src.Close()
	b := make([]byte, 64<<10)
	for {
		n, err := src.Read(b)
		if n > 0 {
			v := pass
			if h != nil {
				v = h(b[:n])
			}
			switch v {
			case cut:
				return
			case pass:
				if _, err := dst.Write(b[:n]); err != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}
