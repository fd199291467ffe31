package mcphttp

import (
	"math/rand/v2"
	"sync"
)

// Shutdown must reach the stateless requests in progress, whose sessions
// it does not know by name, and end them, which cancels their handlers.
// Registering each one in a single place (a map, or context.AfterFunc on
// one handler-wide context) made every stateless request take one mutex
// twice: under 64 callers they queued on it. statelessSet spreads them
// over shards, each a mutex and an intrusive list: registering costs no
// allocation, and callers rarely meet on a shard.

// statelessShards is the number of shards: enough that 64 callers on a
// few cores rarely share one.
const statelessShards = 16

type statelessSet struct {
	shards [statelessShards]statelessShard
}

type statelessShard struct {
	mu     sync.Mutex
	head   *httpSession // the list of live sessions, through statelessLink
	closed bool         // Shutdown has ended the shard's sessions: take no more
	_      [40]byte     // a cache line of its own (with mu, head and closed)
}

// statelessLink links a stateless session into its shard's list. shard is
// set by add, on the request's goroutine, and read by remove on the same;
// the rest is guarded by the shard's mutex.
type statelessLink struct {
	shard      *statelessShard
	prev, next *httpSession
	in         bool // in the list: remove has not, nor closeAll, taken it out
}

// add registers a stateless session for Shutdown, and reports false if
// Shutdown has begun: the caller then ends the session itself.
func (set *statelessSet) add(s *httpSession) bool {
	sh := &set.shards[rand.Uint32()%statelessShards]
	s.link.shard = sh
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.closed {
		return false
	}
	s.link.prev, s.link.next, s.link.in = nil, sh.head, true
	if sh.head != nil {
		sh.head.link.prev = s
	}
	sh.head = s
	return true
}

// remove unregisters a session add registered. It reports false if it
// was not registered, or Shutdown took it (closeAll) to end it.
func (set *statelessSet) remove(s *httpSession) bool {
	sh := s.link.shard
	if sh == nil {
		return false
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !s.link.in {
		return false
	}
	if s.link.prev != nil {
		s.link.prev.link.next = s.link.next
	} else {
		sh.head = s.link.next
	}
	if s.link.next != nil {
		s.link.next.link.prev = s.link.prev
	}
	s.link.prev, s.link.next, s.link.in = nil, nil, false
	return true
}

// closeAll takes every registered session and refuses new ones, for
// Shutdown to end them.
func (set *statelessSet) closeAll() []*httpSession {
	var all []*httpSession
	for i := range set.shards {
		sh := &set.shards[i]
		sh.mu.Lock()
		sh.closed = true
		for s := sh.head; s != nil; {
			next := s.link.next
			s.link.prev, s.link.next, s.link.in = nil, nil, false
			all = append(all, s)
			s = next
		}
		sh.head = nil
		sh.mu.Unlock()
	}
	return all
}
