package mcp

import (
	"sync"

	"github.com/winbridge/winbridge/transport"
)

// ConnectDirect returns a session whose requests a transport hands over
// itself, through ServeDirect, and whose connection (jsonrpc2 on the
// Stream open returns, with its read loop) starts only when the session
// first needs it: to send a notification or a request of its own (progress,
// a log message, sampling), or to read a message ServeDirect does not take.
// A session that only answers the requests ServeDirect hands it, as most
// stateless HTTP requests do, never starts one. Close ends it either way.
//
// The transport's framer must still carry what the session writes once the
// connection has started, as for Connect; open is called at most once.
func (s *Server) ConnectDirect(open func() *transport.Stream) *ServerSession {
	ss := newSession(s, true)
	ss.lazy.open = open
	ss.shard, _ = s.sessions.Add(ss)
	return ss
}

// lazyConn is how a ConnectDirect session starts its connection.
type lazyConn struct {
	open    func() *transport.Stream
	once    sync.Once
	started bool // under ServerSession.mu
	closed  bool // Close was called; under ServerSession.mu
}

// connection returns the session's connection, starting it first in a
// ConnectDirect session. One started after Close is closed at once, so
// what is sent on it fails as on any closed session.
func (ss *ServerSession) connection() *transport.Conn {
	if !ss.direct {
		return ss.conn
	}
	ss.lazy.once.Do(func() {
		// The workers' hand-off, which only requests read by the
		// connection use: made before it can read one.
		ss.work = make(chan func())
		c := ss.srv.newConn(ss, ss.lazy.open())
		ss.mu.Lock()
		ss.conn = c
		ss.lazy.started = true
		closed := ss.lazy.closed
		ss.mu.Unlock()
		go func() {
			<-c.Done()
			ss.ended()
		}()
		if closed {
			_ = c.Close()
		}
	})
	return ss.conn
}

// connFor returns the connection that answers r: none for a direct
// request, whose answer goes to the transport without one.
func (ss *ServerSession) connFor(r *transport.Request) *transport.Conn {
	if r.IsDirect() {
		return nil // Conn's answering methods never touch it for r
	}
	return ss.connection()
}

// closeLazy closes a ConnectDirect session: its connection if it started,
// or else the session itself.
func (ss *ServerSession) closeLazy() error {
	ss.mu.Lock()
	ss.lazy.closed = true
	c := ss.conn
	if !ss.lazy.started {
		c = nil
	}
	ss.mu.Unlock()
	if c != nil {
		return c.Close()
	}
	ss.ended()
	return nil
}
