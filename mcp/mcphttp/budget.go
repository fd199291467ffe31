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

// acquire takes n more bytes for a body that holds held already,
// waiting until they fit, ctx ends or expire fires. A body is admitted
// whatever its size when no other is being read (all that is used is
// its own), so that a budget below MaxBodyBytes still serves the largest
// body, one at a time.
func (b *budget) acquire(ctx context.Context, n, held int64, expire <-chan time.Time) bool {
	for {
		b.mu.Lock()
		if b.fitsLocked(n, held) {
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

// tryAcquire takes n more bytes for a body that holds held already, if
// they fit now, as acquire would.
func (b *budget) tryAcquire(n, held int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fitsLocked(n, held) {
		b.used += n
		return true
	}
	return false
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
