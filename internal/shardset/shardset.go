package shardset

import (
	"math/rand/v2"
	"sync"
)

// shards is enough that 64 callers on a few cores rarely share one.
const shards = 16

// Ref is where Add put a member. Its zero value is "not in the set".
type Ref uint8

// Set is a set of T spread over shards. Its zero value is an empty, open
// set. A Set must not be copied after first use.
type Set[T comparable] struct {
	shards [shards]shard[T]
}

type shard[T comparable] struct {
	mu     sync.Mutex
	m      map[T]struct{}
	closed bool     // Close took the members: take no more
	_      [48]byte // a cache line of its own (with mu, m and closed)
}

// Add adds x to a shard picked at random and returns where it went, for
// Remove. It reports false, adding nothing, once Close has begun.
func (s *Set[T]) Add(x T) (Ref, bool) {
	i := rand.Uint32() % shards
	sh := &s.shards[i]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.closed {
		return 0, false
	}
	if sh.m == nil {
		sh.m = make(map[T]struct{})
	}
	sh.m[x] = struct{}{}
	return Ref(i + 1), true
}

// Remove removes x, which Add put at r. It reports whether x was there:
// false for the zero Ref, and when Close took x first.
func (s *Set[T]) Remove(x T, r Ref) bool {
	if r == 0 {
		return false
	}
	sh := &s.shards[r-1]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.m[x]; !ok {
		return false
	}
	delete(sh.m, x)
	return true
}

// All returns the members, shard by shard: a member added or removed
// meanwhile may or may not be among them.
func (s *Set[T]) All() []T {
	var out []T
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for x := range sh.m {
			out = append(out, x)
		}
		sh.mu.Unlock()
	}
	return out
}

// Close takes every member out of the set and returns them; from then on
// Add adds nothing. The caller owns what it took: Remove of a taken
// member reports false.
func (s *Set[T]) Close() []T {
	var out []T
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		sh.closed = true
		for x := range sh.m {
			out = append(out, x)
		}
		clear(sh.m)
		sh.mu.Unlock()
	}
	return out
}
