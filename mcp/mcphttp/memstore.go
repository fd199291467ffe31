package mcphttp

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// DefaultStoreEvents is how many events of each stream a MemoryStore keeps
// when MaxEvents is not set.
const DefaultStoreEvents = DefaultHistory

// DefaultStoreEventBytes is how many bytes of events each stream of a
// MemoryStore keeps when MaxEventBytes is not set: with MaxEvents alone,
// a stream of large events (tool results up to the server's limits)
// would hold MaxEvents times their size.
const DefaultStoreEventBytes = 4 << 20

// DefaultStoreStreams is how many streams of each session a MemoryStore
// keeps when MaxStreams is not set: every replica that serves the
// session adds its own, each keeping DefaultMaxRetainedStreams.
const DefaultStoreStreams = 4 * DefaultMaxRetainedStreams

// MemoryStore is a SessionStore and EventStore in this process's memory:
// several Handlers of one process (replicas in a test) can share it. The
// zero value is ready to use. Expired entries are freed as they are
// met and by a sweep every sweepEvery writes.
type MemoryStore struct {
	// MaxEvents bounds the events kept per stream; the oldest go first.
	// Zero means DefaultStoreEvents.
	MaxEvents int
	// MaxEventBytes bounds the bytes of the events' data kept per
	// stream; the oldest go first, but the newest is kept whatever its
	// size (a large result can still be resumed). Zero means
	// DefaultStoreEventBytes.
	MaxEventBytes int
	// MaxStreams bounds the streams kept per session; the least recently
	// started go first. Zero means DefaultStoreStreams.
	MaxStreams int
	// Now is the clock of expiry; nil means time.Now.
	Now func() time.Time

	mu       sync.Mutex
	sessions map[string]*memSession
	streams  map[[2]string]*memStream
	started  map[string][]string // a session's streams, in the order they started
	writes   int
}

type memSession struct {
	msgs    [][]byte
	bytes   int // of msgs
	expires time.Time
}

type memStream struct {
	evs     []StoredEvent
	bytes   int // of evs' data
	final   bool
	expires time.Time
}

const sweepEvery = 1024

func (m *MemoryStore) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// wroteLocked counts a write and sweeps expired entries now and then, so
// that entries nobody asks for again are freed too.
func (m *MemoryStore) wroteLocked(now time.Time) {
	if m.sessions == nil {
		m.sessions = map[string]*memSession{}
		m.streams = map[[2]string]*memStream{}
		m.started = map[string][]string{}
	}
	m.writes++
	if m.writes%sweepEvery != 0 {
		return
	}
	for id, s := range m.sessions {
		if !now.Before(s.expires) {
			delete(m.sessions, id)
		}
	}
	for k, s := range m.streams {
		if !now.Before(s.expires) {
			delete(m.streams, k)
		}
	}
	for session, ids := range m.started {
		ids = slices.DeleteFunc(ids, func(id string) bool { return m.streams[[2]string{session, id}] == nil })
		if len(ids) == 0 {
			delete(m.started, session)
		} else {
			m.started[session] = ids
		}
	}
}

// startLocked counts a new stream of session, and drops the session's
// streams started longest ago beyond MaxStreams: a client opens a stream
// with each call, and its streams, each bounded, must be bounded in
// number too.
func (m *MemoryStore) startLocked(session, stream string, now time.Time) {
	ids := slices.DeleteFunc(m.started[session], func(id string) bool {
		s := m.streams[[2]string{session, id}]
		return id == stream || s == nil || !now.Before(s.expires)
	})
	ids = append(ids, stream)
	max := m.MaxStreams
	if max <= 0 {
		max = DefaultStoreStreams
	}
	if drop := len(ids) - max; drop > 0 {
		for _, id := range ids[:drop] {
			delete(m.streams, [2]string{session, id})
		}
		ids = slices.Clone(ids[drop:])
	}
	m.started[session] = ids
}

// Create implements SessionStore.
func (m *MemoryStore) Create(_ context.Context, id string, head []byte, ttl time.Duration) error {
	if len(head) > MaxStateBytes {
		return ErrRecordFull
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.wroteLocked(now)
	m.sessions[id] = &memSession{msgs: [][]byte{slices.Clone(head)}, bytes: len(head), expires: now.Add(ttl)}
	return nil
}

// Append implements SessionStore.
func (m *MemoryStore) Append(_ context.Context, id string, msg []byte, ttl time.Duration) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	s := m.sessions[id]
	if s == nil || !now.Before(s.expires) {
		// Deleted or expired, maybe just now by another replica: not
		// re-created without its head.
		delete(m.sessions, id)
		return 0, ErrNotFound
	}
	m.wroteLocked(now)
	// The record's bounds, checked under the lock that makes the
	// append one step: replicas appending at once cannot pass them.
	if len(s.msgs) >= MaxStateMessages || s.bytes+len(msg) > MaxStateBytes {
		return 0, ErrRecordFull
	}
	s.msgs = append(s.msgs, slices.Clone(msg))
	s.bytes += len(msg)
	s.expires = now.Add(ttl)
	return len(s.msgs), nil
}

// Load implements SessionStore.
func (m *MemoryStore) Load(_ context.Context, id string, ttl time.Duration) ([][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	s := m.sessions[id]
	if s == nil || !now.Before(s.expires) {
		delete(m.sessions, id)
		return nil, ErrNotFound
	}
	if ttl > 0 {
		s.expires = now.Add(ttl)
	}
	// Copies, as a store across the network returns: what a caller does
	// with them cannot reach what other replicas load.
	out := make([][]byte, len(s.msgs))
	for i, msg := range s.msgs {
		out[i] = slices.Clone(msg)
	}
	return out, nil
}

// Delete implements SessionStore.
func (m *MemoryStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	delete(m.sessions, id)
	m.mu.Unlock()
	return nil
}

// appendEvent is Events().Append.
func (m *MemoryStore) appendEvent(session, stream string, ev StoredEvent, final bool, ttl time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.wroteLocked(now)
	k := [2]string{session, stream}
	s := m.streams[k]
	if s == nil || !now.Before(s.expires) {
		s = &memStream{}
		m.streams[k] = s
		m.startLocked(session, stream, now)
	}
	// After the final event, or an event already stored (an append sent
	// again), nothing is appended: appends come in order.
	if s.final || len(s.evs) > 0 && ev.N <= s.evs[len(s.evs)-1].N {
		return
	}
	s.evs = append(s.evs, StoredEvent{N: ev.N, Data: slices.Clone(ev.Data)})
	s.bytes += len(ev.Data)
	maxEvents := cmp.Or(max(m.MaxEvents, 0), DefaultStoreEvents)
	maxBytes := cmp.Or(max(m.MaxEventBytes, 0), DefaultStoreEventBytes)
	drop := 0
	for len(s.evs)-drop > 1 && (len(s.evs)-drop > maxEvents || s.bytes > maxBytes) {
		s.bytes -= len(s.evs[drop].Data)
		drop++
	}
	s.evs = slices.Delete(s.evs, 0, drop)
	s.final = final
	s.expires = now.Add(ttl)
}

func (m *MemoryStore) replay(session, stream string, after int) ([]StoredEvent, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{session, stream}
	s := m.streams[k]
	if s == nil || !m.now().Before(s.expires) {
		delete(m.streams, k)
		return nil, false, ErrNotFound
	}
	var out []StoredEvent
	for _, e := range s.evs {
		if e.N > after {
			out = append(out, StoredEvent{N: e.N, Data: slices.Clone(e.Data)})
		}
	}
	return out, s.final, nil
}

// Events returns m as an EventStore (its method names are SessionStore's).
func (m *MemoryStore) Events() EventStore { return memEvents{m} }

type memEvents struct{ m *MemoryStore }

func (e memEvents) Append(_ context.Context, session, stream string, ev StoredEvent, final bool, ttl time.Duration) error {
	e.m.appendEvent(session, stream, ev, final, ttl)
	return nil
}

func (e memEvents) Replay(_ context.Context, session, stream string, after int) ([]StoredEvent, bool, error) {
	return e.m.replay(session, stream, after)
}

// MemoryBus is an mcp.Bus in this process: the Servers of several
// replicas in one process (a test) that share it hear each other's
// changes. The zero value is ready to use.
type MemoryBus struct {
	mu   sync.Mutex
	subs map[int]func(mcp.Change)
	next int
}

// Publish implements mcp.Bus: it calls every subscriber before returning.
func (b *MemoryBus) Publish(_ context.Context, c mcp.Change) error {
	b.mu.Lock()
	subs := make([]func(mcp.Change), 0, len(b.subs))
	for _, f := range b.subs {
		subs = append(subs, f)
	}
	b.mu.Unlock()
	for _, f := range subs {
		f(c)
	}
	return nil
}

// Subscribe implements mcp.Bus.
func (b *MemoryBus) Subscribe(deliver func(mcp.Change)) (stop func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[int]func(mcp.Change){}
	}
	id := b.next
	b.next++
	b.subs[id] = deliver
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

// Keyring is an mcp.Keyring held in memory: the keys of requestState, the
// sealing key first. Replicas that are given the same keys (from their
// configuration) accept each other's state. The zero value holds no key
// and seals nothing; Rotate adds one.
type Keyring struct {
	// Keep is how many keys are accepted, the sealing key included; older
	// ones are retired by Rotate. Zero means 2: a rotation leaves the
	// previous key accepted while state sealed with it is in flight.
	Keep int

	mu   sync.RWMutex
	keys [][]byte
}

// NewKeyring returns a keyring of keys, the sealing key first.
func NewKeyring(keys ...[]byte) *Keyring {
	k := &Keyring{}
	for _, key := range keys {
		k.keys = append(k.keys, slices.Clone(key))
	}
	return k
}

// StateKeys implements mcp.Keyring.
func (k *Keyring) StateKeys() [][]byte {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.keys
}

// Rotate makes key the sealing key and retires the keys beyond Keep.
func (k *Keyring) Rotate(key []byte) {
	keep := k.Keep
	if keep <= 0 {
		keep = 2
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	// A new slice: StateKeys' callers hold the old one without the lock.
	keys := append([][]byte{slices.Clone(key)}, k.keys...)
	k.keys = keys[:min(len(keys), keep)]
}

// MemoryRelay is a Relay in this process, for the Handlers of replicas in
// one process (a test). The zero value is ready to use.
type MemoryRelay struct {
	mu   sync.Mutex
	subs map[int]func([]byte)
	next int
}

// Send implements Relay: it calls every receiver before returning.
func (r *MemoryRelay) Send(_ context.Context, msg []byte) error {
	r.mu.Lock()
	subs := make([]func([]byte), 0, len(r.subs))
	for _, f := range r.subs {
		subs = append(subs, f)
	}
	r.mu.Unlock()
	for _, f := range subs {
		f(slices.Clone(msg))
	}
	return nil
}

// Receive implements Relay.
func (r *MemoryRelay) Receive(deliver func([]byte)) (stop func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subs == nil {
		r.subs = map[int]func([]byte){}
	}
	id := r.next
	r.next++
	r.subs[id] = deliver
	return func() {
		r.mu.Lock()
		delete(r.subs, id)
		r.mu.Unlock()
	}
}
