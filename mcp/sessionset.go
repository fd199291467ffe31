package mcp

import (
	"math/rand/v2"
	"sync"
)

// sessionSet is the Server's live sessions. Over Streamable HTTP every
// stateless request is a session, added and removed once each: under one
// mutex, concurrent requests queued on it (and on whatever else it
// guards). The set spreads them over shards, each session remembering
// its own.
type sessionSet struct {
	shards [sessionShards]sessionShard
}

const sessionShards = 16

type sessionShard struct {
	mu sync.Mutex
	m  map[*ServerSession]struct{}
	_  [40]byte // a cache line of its own
}

// add adds ss to a shard picked at random, which ss remembers.
func (set *sessionSet) add(ss *ServerSession) {
	sh := &set.shards[rand.Uint32()%sessionShards]
	ss.shard = sh
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = map[*ServerSession]struct{}{}
	}
	sh.m[ss] = struct{}{}
	sh.mu.Unlock()
}

// remove removes ss, if add added it.
func (set *sessionSet) remove(ss *ServerSession) {
	sh := ss.shard
	if sh == nil {
		return
	}
	sh.mu.Lock()
	delete(sh.m, ss)
	sh.mu.Unlock()
}

// all returns every session in the set.
func (set *sessionSet) all() []*ServerSession {
	var out []*ServerSession
	for i := range set.shards {
		sh := &set.shards[i]
		sh.mu.Lock()
		for ss := range sh.m {
			out = append(out, ss)
		}
		sh.mu.Unlock()
	}
	return out
}
