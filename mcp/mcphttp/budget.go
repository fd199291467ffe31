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
}

func (b *budget) init(max int64) {
	b.max = max
	b.changed = make(chan struct{})
}

// acquire takes n bytes, waiting until they fit, ctx ends or expire
// fires. A request is admitted whatever its size when nothing else is
// being read, so that a budget below MaxBodyBytes still serves the
// largest body, one at a time.
func (b *budget) acquire(ctx context.Context, n int64, expire <-chan time.Time) bool {
	for {
		b.mu.Lock()
		if b.used == 0 || b.used+n <= b.max {
			b.used += n
			b.mu.Unlock()
			return true
		}
		changed := b.changed
		b.waiters++
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
		b.mu.Unlock()
		if !ok {
			return false
		}
	}
}

// tryAcquire takes n bytes if they fit now, as acquire would.
func (b *budget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used == 0 || b.used+n <= b.max {
		b.used += n
		return true
	}
	return false
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
