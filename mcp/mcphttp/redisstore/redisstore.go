package redisstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// Defaults of Options.
const (
	DefaultPrefix        = "mcp:"
	DefaultMaxEvents     = mcphttp.DefaultHistory
	DefaultMaxEventBytes = mcphttp.DefaultStoreEventBytes
	DefaultMaxStreams    = mcphttp.DefaultStoreStreams
	DefaultMaxRelayBytes = 8 << 20
	DefaultKeep          = 2
	DefaultRefresh       = 10 * time.Second
)

// Options configure the stores on one Redis.
type Options struct {
	// Prefix starts every key and channel name, so that several servers
	// can share one Redis. Zero means DefaultPrefix ("mcp:").
	Prefix string
	// MaxEvents bounds the events kept per stream; the oldest go first.
	// Zero means DefaultMaxEvents (256).
	MaxEvents int
	// MaxEventBytes bounds the bytes of the events kept per stream, as
	// stored (each event's data and a few bytes of its own); the oldest
	// go first, but the newest is kept whatever its size (a large result
	// can still be resumed). Zero means DefaultMaxEventBytes (4 MiB).
	MaxEventBytes int
	// MaxStreams bounds the streams kept per session; the least recently
	// started go first. Zero means DefaultMaxStreams (64).
	MaxStreams int
	// MaxRelayBytes bounds a message on the Relay (a client's answer to
	// another replica's request); Send refuses larger ones. Redis drops
	// a subscriber whose pub/sub output passes its
	// client-output-buffer-limit (32 MiB by default, and 8 MiB for a
	// minute), cutting every replica off the bus and the Relay: keep it
	// well below that limit. Zero means DefaultMaxRelayBytes (8 MiB).
	MaxRelayBytes int
	// Keep is how many requestState keys the keyring accepts, the sealing
	// key included. Zero means DefaultKeep (2), and so does 1: a rotated
	// key is staged beside the one sealing until it seals itself.
	Keep int
	// Refresh is how often the keyring reloads its keys, and how long a
	// rotated key waits before it seals: every replica has loaded it by
	// then, so none refuses state sealed with it. Zero means
	// DefaultRefresh (10 s).
	Refresh time.Duration
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Stores are the four stores on one Redis.
type Stores struct {
	client *redis.Client
	opts   Options
	log    *slog.Logger

	Sessions *SessionStore
	Events   *EventStore
	Bus      *Bus
	Relay    *Relay
	Keyring  *Keyring
}

// Open connects to the Redis at url (redis://[user:password@]host:port/db,
// rediss:// for TLS, unix:///path/to/socket) and loads the keyring,
// creating its first key if Redis holds none. Close releases it all.
func Open(ctx context.Context, url string, opts *Options) (*Stores, error) {
	ro, err := redis.ParseURL(url)
	if err != nil {
		// ParseURL's errors quote the URL, which may hold a password.
		return nil, errors.New("redisstore: malformed Redis URL")
	}
	// Without it go-redis ignores a context's deadline while it waits
	// for Redis's answer: a request's store call on a Redis that stopped
	// answering would outlast the request's deadline by the read timeout.
	ro.ContextTimeoutEnabled = true
	return New(ctx, redis.NewClient(ro), opts)
}

// New is Open with a client of the caller's making; Close closes it.
// The client should set ContextTimeoutEnabled, as Open's does: without
// it a call waits for a Redis that stopped answering for the client's
// ReadTimeout, whatever its context's deadline.
func New(ctx context.Context, client *redis.Client, opts *Options) (*Stores, error) {
	s := &Stores{client: client}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.MaxEvents <= 0 {
		o.MaxEvents = DefaultMaxEvents
	}
	if o.MaxEventBytes <= 0 {
		o.MaxEventBytes = DefaultMaxEventBytes
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.MaxRelayBytes <= 0 {
		o.MaxRelayBytes = DefaultMaxRelayBytes
	}
	if o.Keep < 2 {
		o.Keep = DefaultKeep
	}
	if o.Refresh <= 0 {
		o.Refresh = DefaultRefresh
	}
	s.log = o.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	var err error
	if err = client.Ping(ctx).Err(); err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("redisstore: reaching Redis: %w", err)
	}
	s.Sessions = &SessionStore{s}
	s.Events = &EventStore{s}
	if s.Bus, err = newBus(ctx, s); err != nil {
		_ = client.Close()
		return nil, err
	}
	s.Relay = &Relay{s.Bus}
	k, err := newKeyring(ctx, s)
	if err != nil {
		s.Bus.close()
		_ = client.Close()
		return nil, err
	}
	s.Keyring = k
	return s, nil
}

// Close stops the bus and the keyring's refresh and closes the client.
func (s *Stores) Close() error {
	s.Keyring.close()
	s.Bus.close()
	return s.client.Close()
}

// ServerOptions sets the bus and keyring of a Server's options.
func (s *Stores) ServerOptions(o *mcp.ServerOptions) {
	o.Bus = s.Bus
	o.StateKeys = s.Keyring
}

// HandlerOptions sets the session and event stores and the relay of a
// Handler's options.
func (s *Stores) HandlerOptions(o *mcphttp.HandlerOptions) {
	o.Sessions = s.Sessions
	o.Events = s.Events
	o.Relay = s.Relay
}

func (s *Stores) key(parts ...string) string {
	k := s.opts.Prefix
	for i, p := range parts {
		if i > 0 {
			k += ":"
		}
		k += p
	}
	return k
}

// onceScripter runs appendSession at most once per call. go-redis sends a command again after its
// connection closed or its reply timed out (Options.MaxRetries, 3 by
// default): right for a read, but one of these scripts may have run
// before its reply was lost, and run again it appends again, a session's
// state change then applied twice by every replica. The call fails instead; the Handler looks in the record
// for what the store did. A call that failed before it reached Redis is
// still sent again (go-redis retries a command marked so only then).
type onceScripter struct{ *redis.Client }

func (c onceScripter) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return c.once(ctx, "eval", script, keys, args)
}

func (c onceScripter) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return c.once(ctx, "evalsha", sha1, keys, args)
}

func (c onceScripter) once(ctx context.Context, name, payload string, keys []string, args []any) *redis.Cmd {
	a := make([]any, 0, 3+len(keys)+len(args))
	a = append(a, name, payload, len(keys))
	for _, k := range keys {
		a = append(a, k)
	}
	cmd := onceCmd{redis.NewCmd(ctx, append(a, args...)...)}
	_ = c.Process(ctx, cmd)
	return cmd.Cmd
}

// onceCmd is a command go-redis does not send again once it may have
// reached Redis.
type onceCmd struct{ *redis.Cmd }

func (onceCmd) NoRetry() bool { return true }

// SessionStore is an mcphttp.SessionStore: a session is a Redis list of
// its messages, expiring with the session.
type SessionStore struct{ s *Stores }

// appendSession appends a message (ARGV[1]) to session KEYS[1], which
// then expires ARGV[2] ms from now, and returns the session's length;
// or 0, appending nothing, if the session would hold more than ARGV[3]
// messages or ARGV[4] bytes; or -1, appending nothing, if there is no
// such session. The checks and the append are one step: replicas
// appending at once cannot pass the bounds between them, and an append
// that races the session's deletion cannot re-create the list (RPUSH
// would) without its head, which no replica reads as a session but
// which would occupy Redis until it expired. The sum reads the record,
// as every request loads it anyway; a state change is rare beside those
// loads.
var appendSession = redis.NewScript(`
local len = redis.call('LLEN', KEYS[1])
if len == 0 then
  return -1
end
if len >= tonumber(ARGV[3]) then
  return 0
end
local size = #ARGV[1]
for _, m in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  size = size + #m
end
if size > tonumber(ARGV[4]) then
  return 0
end
local n = redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n
`)

// Create implements mcphttp.SessionStore. It is sent again after a lost
// reply, as a read is: it replaces whatever the key holds, so a second
// run leaves what the first did.
func (st *SessionStore) Create(ctx context.Context, id string, head []byte, ttl time.Duration) error {
	if len(head) > mcphttp.MaxStateBytes {
		return mcphttp.ErrRecordFull
	}
	k := st.s.key("session", id)
	_, err := st.s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, k)
		p.RPush(ctx, k, head)
		p.PExpire(ctx, k, max(ttl, time.Millisecond))
		return nil
	})
	if err != nil {
		return fmt.Errorf("redisstore: create session: %w", err)
	}
	return nil
}

// Append implements mcphttp.SessionStore.
func (st *SessionStore) Append(ctx context.Context, id string, msg []byte, ttl time.Duration) (int, error) {
	k := st.s.key("session", id)
	n, err := appendSession.Run(ctx, onceScripter{st.s.client}, []string{k}, msg, max(ttl.Milliseconds(), 1),
		mcphttp.MaxStateMessages, mcphttp.MaxStateBytes).Int()
	if err != nil {
		return 0, fmt.Errorf("redisstore: append to session: %w", err)
	}
	switch {
	case n == -1:
		return 0, mcphttp.ErrNotFound
	case n == 0:
		return 0, mcphttp.ErrRecordFull
	}
	return n, nil
}

// Load implements mcphttp.SessionStore.
func (st *SessionStore) Load(ctx context.Context, id string, ttl time.Duration) ([][]byte, error) {
	k := st.s.key("session", id)
	var msgs *redis.StringSliceCmd
	_, err := st.s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		msgs = p.LRange(ctx, k, 0, -1)
		if ttl > 0 {
			// 0 leaves the expiry as it is (PEXPIRE 0 would delete).
			p.PExpire(ctx, k, ttl)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("redisstore: load session: %w", err)
	}
	if len(msgs.Val()) == 0 {
		return nil, mcphttp.ErrNotFound
	}
	out := make([][]byte, len(msgs.Val()))
	for i, m := range msgs.Val() {
		out[i] = []byte(m)
	}
	return out, nil
}

// Delete implements mcphttp.SessionStore.
func (st *SessionStore) Delete(ctx context.Context, id string) error {
	if err := st.s.client.Del(ctx, st.s.key("session", id)).Err(); err != nil {
		return fmt.Errorf("redisstore: delete session: %w", err)
	}
	return nil
}

// EventStore is an mcphttp.EventStore: a stream is a Redis list of its
// events, trimmed to MaxEvents and MaxEventBytes and expiring RetainFor
// after its last; the list "<Prefix>streams:<session>" names a session's
// streams in the order they started, MaxStreams at most, and expires
// with the last of them, as does the hash "<Prefix>streambytes:<session>"
// of the bytes each holds.
type EventStore struct{ s *Stores }

// appendEvent appends an event (ARGV[1]) to stream KEYS[1], trimmed to
// ARGV[2] events and ARGV[5] bytes (the oldest first, the newest kept),
// the keys expiring ARGV[3] ms from now. A stream that starts is added
// to its session's index KEYS[2], and the session's streams started
// longest ago beyond ARGV[4] are deleted: a client opens a stream with
// each call, and its streams, each bounded, must be bounded in number
// too. The index names keys of one session only (of the form of
// KEYS[1]); streams that expired leave it as it is rewritten. The hash
// KEYS[3] holds each stream's bytes under its key, so that an append
// does not read the stream to know them; a stream without its count (one
// stored before counts were kept) is read once.
//
// An event whose number (ARGV[6]) is not above that of the stream's
// newest is not appended, and the call succeeds: go-redis sends the
// script again after its reply was lost, and the event is there
// already. A stream's appends come in order, so its newest event is the
// only one to look at; its number is read from the start of its JSON,
// which json.Marshal writes first, rather than by decoding an event that
// may be megabytes (or nested deeper than cjson decodes). A stream gone
// meanwhile (expired, or dropped for ARGV[4]) starts again with the
// event.
var appendEvent = redis.NewScript(`
local newest = redis.call('LINDEX', KEYS[1], -1)
if newest then
  local n = tonumber(string.match(newest, '^{"n":(%d+)[,}]'))
  if n and n >= tonumber(ARGV[6]) then
    return 1
  end
end
if not newest then
  local live = {}
  for _, k in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
    if k ~= KEYS[1] and redis.call('EXISTS', k) == 1 then
      table.insert(live, k)
    else
      redis.call('HDEL', KEYS[3], k)
    end
  end
  redis.call('HDEL', KEYS[3], KEYS[1])
  table.insert(live, KEYS[1])
  local drop = #live - tonumber(ARGV[4])
  redis.call('DEL', KEYS[2])
  for i, k in ipairs(live) do
    if i <= drop then
      redis.call('DEL', k)
      redis.call('HDEL', KEYS[3], k)
    else
      redis.call('RPUSH', KEYS[2], k)
    end
  end
end
local size = tonumber(redis.call('HGET', KEYS[3], KEYS[1]))
if not size then
  size = 0
  for _, e in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
    size = size + #e
  end
end
local n = redis.call('RPUSH', KEYS[1], ARGV[1])
size = size + #ARGV[1]
while n > 1 and (n > tonumber(ARGV[2]) or size > tonumber(ARGV[5])) do
  size = size - #redis.call('LPOP', KEYS[1])
  n = n - 1
end
redis.call('HSET', KEYS[3], KEYS[1], size)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
`)

type storedEvent struct {
	N     int             `json:"n"`
	Final bool            `json:"f,omitempty"`
	Data  json.RawMessage `json:"d"`
}

// Append implements mcphttp.EventStore.
func (st *EventStore) Append(ctx context.Context, session, stream string, ev mcphttp.StoredEvent, final bool, ttl time.Duration) error {
	b, err := json.Marshal(storedEvent{N: ev.N, Final: final, Data: ev.Data})
	if err != nil {
		return fmt.Errorf("redisstore: encode event: %w", err)
	}
	keys := []string{st.s.key("stream", session, stream), st.s.key("streams", session), st.s.key("streambytes", session)}
	// Run, not run once: appendEvent skips an event already stored, so
	// go-redis may send it again after a lost reply (an error would stop
	// the Handler storing events for 30 s).
	err = appendEvent.Run(ctx, st.s.client, keys, b, st.s.opts.MaxEvents, max(ttl.Milliseconds(), 1),
		st.s.opts.MaxStreams, st.s.opts.MaxEventBytes, ev.N).Err()
	if err != nil {
		return fmt.Errorf("redisstore: append event: %w", err)
	}
	return nil
}

// Replay implements mcphttp.EventStore.
func (st *EventStore) Replay(ctx context.Context, session, stream string, after int) ([]mcphttp.StoredEvent, bool, error) {
	raw, err := st.s.client.LRange(ctx, st.s.key("stream", session, stream), 0, -1).Result()
	if err != nil {
		return nil, false, fmt.Errorf("redisstore: replay: %w", err)
	}
	if len(raw) == 0 {
		return nil, false, mcphttp.ErrNotFound
	}
	var out []mcphttp.StoredEvent
	final := false
	for _, r := range raw {
		var e storedEvent
		if err := json.Unmarshal([]byte(r), &e); err != nil {
			return nil, false, fmt.Errorf("redisstore: a stored event is malformed: %w", err)
		}
		final = final || e.Final
		if e.N > after {
			out = append(out, mcphttp.StoredEvent{N: e.N, Data: e.Data})
		}
	}
	// Appends come in order from one writer per stream, each event once;
	// sorting and dropping repeated numbers (the first stored is kept)
	// cost little and keep a replay right whatever the store holds, such
	// as an event appended twice before appendEvent skipped repeats.
	slices.SortStableFunc(out, func(a, b mcphttp.StoredEvent) int { return cmp.Compare(a.N, b.N) })
	out = slices.CompactFunc(out, func(a, b mcphttp.StoredEvent) bool { return a.N == b.N })
	return out, final, nil
}
