// Package shardset is a set that many goroutines add to and remove from
// at once without meeting on one mutex.
//
// A Streamable HTTP server makes a session for every stateless request,
// and the places that must find every live one (the Server's session
// list, the handler's Shutdown) registered each under one mutex: under 64
// concurrent callers, requests queued there twice each. A Set spreads its
// members over shards, each with a mutex on a cache line of its own; a
// member remembers its shard (a Ref), so that removal takes that shard's
// mutex only.
package shardset
