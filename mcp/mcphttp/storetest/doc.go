// Package storetest checks that an implementation of the stores that
// replicas of one server share (mcphttp.SessionStore, mcphttp.EventStore,
// mcphttp.Relay and mcp.Bus) keeps the contract the Handler and the
// Server rely on: order, copies, bounds that hold in the store, no
// append to a session that is gone (not even racing its deletion),
// expiry, retries that store nothing twice, and delivery to every
// replica.
//
// Call its functions from a test of your own store, as testing/fstest's
// TestFS is called for a file system:
//
//	func TestMyStore(t *testing.T) {
//		s := mystore.New(...)
//		storetest.TestSessionStore(t, s)
//		storetest.TestEventStore(t, s.Events(), storetest.Limits{MaxEvents: 8, MaxEventBytes: 4096, MaxStreams: 4})
//	}
//
// Each check runs as a subtest on session IDs of its own, so that a store
// shared with other tests (one Redis) can be checked as it is. The checks
// of expiry wait for the store's clock, about a second each, in parallel.
// mcphttp's own tests run the suite on its in-memory stores, and
// redisstore's on Redis.
package storetest
