package mcphttp

import (
	"context"
	"sync"
	"time"
)

// budget is a semaphore of bytes: the memory of request bodies being
// read at once (HandlerOptions.MaxBodyMemory).
type budget struct {
	mu      sync.Mutex
	max     int64
	used    int64
	changed chan struct{} // closed, and replaced, when bytes are released while waiters > 0
	// waiters counts the acquires waiting on changed: without any, a
	// release replaces no channel (an allocation on every POST).
	waiters int
	// conns holds the bodies being read over each HTTP/2 connection
	// (connOf), for as long as any is.
	conns map[string]*connBodies
}

// connBodies are the bodies being read at once over one HTTP/2
// connection. There a body that waits for room does not stop its
// client sending: what it sent already, up to the connection's
// flow-control window (net/http's 1 MiB by default), stays unread in
// net/http's buffer and holds the window, and every other body of the
// connection stops arriving. One of them holding room could then never
// finish and release it, and the two waited for each other until
// BodyWait ended the wait (a 503, where over HTTP/1.1, a connection per
// body, both were served at once). So a body over HTTP/2 does not wait
// while another of its connection holds room: it is refused at once,
// which frees the window. A body waiting for room held elsewhere waits
// as over HTTP/1.1; should a body of its connection take room
// meanwhile, the waiter is woken to be refused.
type connBodies struct {
	key     string
	bodies  int // being read: entered and not left
	holding int // of those, the ones holding room
	waiting int // of those, the ones waiting for room
}

func (b *budget) init(max int64) {
	b.max = max
	b.changed = make(chan struct{})
}

// enter counts a body about to be read over the HTTP/2 connection
// named key (connOf), and returns what leave takes; nil for key "".
func (b *budget) enter(key string) *connBodies {
	if key == "" {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.conns[key]
	if c == nil {
		if b.conns == nil {
			b.conns = make(map[string]*connBodies)
		}
		c = &connBodies{key: key}
		b.conns[key] = c
	}
	c.bodies++
	return c
}

// leave ends enter's count of a body, which held room if held > 0 (it
// releases that room itself, with release).
func (b *budget) leave(c *connBodies, held int64) {
	if c == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if held > 0 {
		c.holding--
	}
	if c.bodies--; c.bodies == 0 {
		delete(b.conns, c.key)
	}
}

// tookLocked notes that a body of c that held held takes room: if it is
// its first, the bodies of c waiting for room are woken, to be refused
// (connBodies).
func (b *budget) tookLocked(c *connBodies, held int64) {
	if c == nil || held > 0 {
		return
	}
	c.holding++
	if c.waiting > 0 {
		close(b.changed)
		b.changed = make(chan struct{})
	}
}

// acquire takes n more bytes for a body that holds held already,
// waiting until they fit, ctx ends or expire fires. A body is admitted
// whatever its size when no other is being read (all that is used is
// its own), so that a budget below MaxBodyBytes still serves the largest
// body, one at a time. A body over HTTP/2 (c not nil) does not wait
// while another body of its connection holds room (connBodies).
func (b *budget) acquire(ctx context.Context, n, held int64, expire <-chan time.Time, c *connBodies) bool {
	for {
		b.mu.Lock()
		if b.fitsLocked(n, held) {
			b.used += n
			b.tookLocked(c, held)
			b.mu.Unlock()
			return true
		}
		if c != nil && c.holding > holds(held) {
			b.mu.Unlock()
			return false
		}
		changed := b.changed
		b.waiters++
		if c != nil {
			c.waiting++
		}
		b.mu.Unlock()
		ok := true
		select {
		case <-changed:
		case <-ctx.Done():
			ok = false
		case <-expire:
			ok = false
		}
		b.mu.Lock()
		b.waiters--
		if c != nil {
			c.waiting--
		}
		b.mu.Unlock()
		if !ok {
			return false
		}
	}
}

// tryAcquire takes n more bytes for a body that holds held already, if
// they fit now, as acquire would.
func (b *budget) tryAcquire(n, held int64, c *connBodies) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fitsLocked(n, held) {
		b.used += n
		b.tookLocked(c, held)
		return true
	}
	return false
}

// holds is how many holders of room a body that holds held is: 0 or 1.
func holds(held int64) int {
	if held > 0 {
		return 1
	}
	return 0
}

// fitsLocked reports whether n more bytes may be taken by a body that
// holds held of what is used.
func (b *budget) fitsLocked(n, held int64) bool {
	return b.used == held || b.used+n <= b.max
}

func (b *budget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	if b.waiters > 0 {
		close(b.changed)
		b.changed = make(chan struct{})
	}
	b.mu.Unlock()
}

func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}
