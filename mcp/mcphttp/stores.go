package mcphttp

import (
	"context"
	"errors"
	"time"
)

// A server that runs as several replicas behind a load balancer keeps the
// state of legacy sessions (2024-11-05 to 2025-11-25) in stores that every
// replica reaches (HandlerOptions.Sessions, HandlerOptions.Events), so
// that a session initialized on one replica is served by any other and a
// stream is resumed on any. List changes and resource updates cross
// replicas on an mcp.Bus, and requestState is sealed with an mcp.Keyring;
// the stateless revision (2026-07-28) needs nothing else. docs/DEPLOY.md
// says which revision needs what. A nil store means one process, as
// without replicas: everything stays in this Handler's memory.

// ErrNotFound is what a store returns for a session or stream it does not
// hold: it never existed, expired, or was deleted. SessionStore.Append
// returns it, storing nothing, for a session it does not hold.
var ErrNotFound = errors.New("mcphttp: not found in the store")

// ErrRecordFull is what SessionStore.Create and Append return, storing
// nothing, for a message that would make a session's record hold more
// than MaxStateMessages messages or MaxStateBytes bytes.
var ErrRecordFull = errors.New("mcphttp: the session's record is full")

// SessionStore keeps the legacy sessions of all replicas. A session is
// kept as the messages that made its state (its initialize request, with
// the identity whose token opened the session, the
// notifications/initialized, then resources/subscribe,
// resources/unsubscribe and logging/setLevel requests, in order): a
// replica that has not served the session yet, or has served an older
// state of it, replays them into a session of its own. Implementations
// must be safe for concurrent use; storetest.TestSessionStore checks one
// against this contract.
type SessionStore interface {
	// Create starts session id with head as its only message, in place
	// of anything held under id, and keeps it for ttl from now. A head
	// larger than MaxStateBytes is refused with ErrRecordFull. Sending
	// it again after a lost reply is harmless: the Handler creates a
	// session before any replica knows its id.
	Create(ctx context.Context, id string, head []byte, ttl time.Duration) error
	// Append adds msg to the end of session id's messages, keeps the
	// session for ttl from now, and returns how many messages the
	// session holds with msg (msg's position, from 1). A session the
	// store does not hold (never created, expired, or deleted) is
	// refused with ErrNotFound, storing nothing: an append that races
	// the session's Delete must not leave a record without its head,
	// which reads as no session but occupies the store until its ttl.
	// A message that would make the session hold more than
	// MaxStateMessages messages, or MaxStateBytes bytes in all, is
	// refused with ErrRecordFull: the bound holds in the store. Both
	// checks are one step with the append, not made as each replica last
	// saw the record. An error may leave it unknown whether msg was
	// stored (a lost reply): the Handler then loads the session to see.
	Append(ctx context.Context, id string, msg []byte, ttl time.Duration) (int, error)
	// Load returns session id's messages in order, copies the caller
	// may keep and change, and keeps the session for ttl from now, or
	// ErrNotFound. A ttl of 0 leaves the session's
	// expiry as it is: a replica that does not serve the session yet
	// reads who opened it before it keeps the session for a request.
	Load(ctx context.Context, id string, ttl time.Duration) ([][]byte, error)
	// Delete forgets session id; deleting a session not held is no error.
	Delete(ctx context.Context, id string) error
}

// Relay carries messages between the replicas' Handlers: a client's
// response to a request that another replica's session sent it
// (sampling, elicitation, roots in a legacy session), and its
// notifications/cancelled for a request another replica runs, reach the
// replica that waits for them. Send delivers msg to every Receive of
// every replica, this one's included; the Handler encodes what it needs.
// storetest.TestRelay checks an implementation.
type Relay interface {
	Send(ctx context.Context, msg []byte) error
	// Receive calls deliver for each message sent, until stop is called.
	// deliver must not block for long.
	Receive(deliver func(msg []byte)) (stop func())
}

// StoredEvent is one event of a stream in an EventStore.
type StoredEvent struct {
	N    int    // its number in the stream, from 1
	Data []byte // the JSON-RPC message
}

// EventStore keeps the events of legacy sessions' POST streams so that a
// client can resume one with Last-Event-ID on any replica, including
// after the replica that served it is gone. Implementations must bound
// what they hold: at most a number of events and of bytes per stream
// (the oldest go first; the newest may be kept whatever its size, so
// that a large result can still be resumed), at most a number of
// streams per session (those started longest ago go first: a client
// opens one with each call), and each stream only for its ttl after its
// last event. storetest.TestEventStore checks an implementation against
// this contract.
type EventStore interface {
	// Append stores event ev of stream in session, final if it is the
	// stream's last, and keeps the stream for ttl from now. A stream's
	// events are appended in order, so an event numbered at or below the
	// newest stored is one sent again (a retry after a lost reply) and
	// is not stored twice.
	Append(ctx context.Context, session, stream string, ev StoredEvent, final bool, ttl time.Duration) error
	// Replay returns the stored events of stream after number after, in
	// order, as copies, and whether the stream's final event is stored;
	// ErrNotFound if the store holds no such stream.
	Replay(ctx context.Context, session, stream string, after int) (evs []StoredEvent, final bool, err error)
}
