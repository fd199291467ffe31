package mcphttp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winbridge/winbridge/internal/delayq"
	"github.com/winbridge/winbridge/internal/shardset"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// HTTP header names of the Streamable HTTP transport.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderLastEventID     = "Last-Event-Id"
)

// Defaults of HandlerOptions. docs/HTTP.md has the table of limits.
const (
	DefaultMaxBody               = transport.DefaultMaxMessageSize
	DefaultKeepAlive             = 15 * time.Second
	DefaultRetry                 = time.Second
	DefaultHistory               = 256
	DefaultMaxRetainedStreams    = 16
	DefaultMaxRetainedBytes      = 8 << 20
	DefaultRetainFor             = 5 * time.Minute
	DefaultSessionTimeout        = 10 * time.Minute
	DefaultMaxSessions           = 100
	DefaultMaxSessionsPerSubject = 10
	DefaultMaxBodyMemory         = 2 * DefaultMaxBody
	DefaultBodyWait              = 5 * time.Second
	DefaultBodyTimeout           = 30 * time.Second
	DefaultWriteTimeout          = 30 * time.Second
	DefaultMaxInFlight           = 256
)

// HandlerOptions configure a Handler. The zero value is ready to use and
// safe for a server bound to a loopback address: only loopback Host and
// Origin headers are accepted.
type HandlerOptions struct {
	// AllowedHosts are the values of the Host header the handler accepts:
	// a host name or address matches any port, "host:port" only that port,
	// and "*" any host. Nil means loopback only: localhost, 127.0.0.1 and
	// [::1]. Checking Host defeats DNS rebinding, in which a web page
	// reaches a local server through a name its attacker controls.
	AllowedHosts []string
	// AllowedOrigins are the values of the Origin header the handler accepts,
	// as scheme://host[:port], or "*" for any. Nil means origins on a
	// loopback host. Requests without Origin (not from a browser) are
	// always accepted.
	AllowedOrigins []string
	// MaxBodyBytes bounds a POST body; larger ones get 413. Zero means
	// DefaultMaxBody (32 MiB).
	MaxBodyBytes int64
	// MaxBodyMemory bounds the bytes of all POST bodies being read at
	// once, so that many concurrent large bodies cannot exhaust memory
	// before any of them is refused. A body reserves room as it arrives,
	// 64 KiB first and then as much again as it holds (never past its
	// Content-Length), so that a declared length nobody sends holds
	// nothing; one that finds no room within BodyWait gets 503 with
	// Retry-After. A body is always admitted when no other is being
	// read. Over HTTP/2 a body that finds no room while another body of
	// its connection holds some is refused at once: waiting, its unread
	// bytes would hold the connection's flow-control window, and that
	// other body could not arrive. Zero means DefaultMaxBodyMemory
	// (64 MiB).
	MaxBodyMemory int64
	// BodyWait is how long a POST waits for room under MaxBodyMemory, in
	// all, counted from the first time its body has to wait (a body
	// reserves room step by step as it arrives, and may wait for each).
	// Zero means DefaultBodyWait (5 s).
	BodyWait time.Duration
	// BodyTimeout is how long a request's body may take to arrive, from
	// the start of ServeHTTP: a client that sends it slowly (slowloris)
	// gets 408 and its connection is closed (over HTTP/2, its stream).
	// A POST's body waits in one queue the handler keeps for all of
	// them, which sets the connection's read deadline in the past
	// (through http.ResponseController) if the body is late; other
	// requests, a body left unread, and a POST under an http.Server
	// ReadTimeout get the read deadline itself, lifted once the body is
	// read so that SSE streams and long calls are not cut. Writers that
	// do not support deadlines are served without. Zero means
	// DefaultBodyTimeout (30 s).
	BodyTimeout time.Duration
	// WriteTimeout bounds each write to a client (an SSE event, a
	// keep-alive, a JSON answer, the header of an answer without a body
	// or of a stream, the end of a stream, which net/http writes after
	// the handler returns): a client that stops reading is cut off
	// after it, and its stream stays retained for resumption. It is a
	// deadline per write, not per response, because SSE responses live
	// as long as their session; set no http.Server.WriteTimeout, which
	// would end every stream after that long. Zero means
	// DefaultWriteTimeout (30 s); negative sets no deadline.
	WriteTimeout time.Duration
	// JSONResponse makes every POST answer with one JSON object, never an
	// SSE stream; messages the server sends before the result then go to
	// the session's GET stream (legacy sessions) or are dropped.
	JSONResponse bool
	// KeepAlive is the interval of SSE comments that keep idle streams
	// open through proxies. Zero means DefaultKeepAlive; negative
	// disables them.
	KeepAlive time.Duration
	// Retry is the reconnection delay announced to clients in SSE "retry:"
	// fields. Zero means DefaultRetry.
	Retry time.Duration
	// History is how many events each SSE stream of a session keeps for
	// clients resuming with Last-Event-ID. Zero means DefaultHistory.
	History int
	// MaxRetainedStreams bounds the POST streams a session keeps with no
	// client attached (the client went away, or has not come back to
	// resume yet): beyond it the stream left longest ago is dropped.
	// Resuming a dropped stream gets 410 Gone. Zero or negative means
	// DefaultMaxRetainedStreams (16).
	MaxRetainedStreams int
	// MaxRetainedBytes bounds the bytes of the events a session holds
	// in all its streams. Beyond it, streams with no client attached are
	// dropped, the one left longest ago first; if live streams alone
	// exceed it, the stream written to loses its oldest events (its
	// newest one, such as a large result, is always delivered). Zero or
	// negative means DefaultMaxRetainedBytes (8 MiB).
	MaxRetainedBytes int64
	// RetainFor is how long a POST stream with no client attached is
	// kept for resumption; expired streams are dropped when the session
	// is next used, and all of them when the session ends. Zero or
	// negative means DefaultRetainFor (5 minutes).
	RetainFor time.Duration
	// SessionTimeout closes a legacy session that has had no HTTP
	// request in progress (no POST, no open GET stream) for this long.
	// Requests still running in it are cancelled: a client that went
	// away does not keep its work alive. Zero means
	// DefaultSessionTimeout (10 minutes); negative means sessions live
	// until deleted or until Shutdown, which only a server whose clients
	// are all trusted should choose.
	SessionTimeout time.Duration
	// MaxSessions bounds the live legacy sessions. An initialize beyond
	// it gets 503 with Retry-After (when the idlest session would
	// expire) and a JSON-RPC error: existing sessions are never evicted
	// for a new one, so a flood of initializes cannot log out working
	// clients. Sessions past SessionTimeout are closed first. One client
	// could still hold them all: MaxSessionsPerSubject bounds those of
	// one authenticated identity. Zero means DefaultMaxSessions (100);
	// negative means no limit.
	MaxSessions int
	// MaxSessionsPerSubject bounds the live legacy sessions opened with
	// one identity that RequireAuth verified: the AuthInfo's Subject,
	// whatever OAuth client it came through (or its ClientID, for a token
	// without a subject), so that registering clients buys no more
	// sessions, while a user with several MCP hosts open shares the
	// allowance. An initialize beyond it gets 429 Too Many Requests with
	// Retry-After (when that identity's idlest session would expire) and
	// a JSON-RPC error telling the client to end unused sessions; as with
	// MaxSessions, its sessions past SessionTimeout are closed first and
	// no other is evicted. Sessions opened without
	// authorization have no identity: MaxSessions is their only bound, so
	// a server reached by clients it does not trust should require
	// authorization or restrict who may connect. A session a replica
	// adopts from Sessions is counted but never refused. Zero means
	// DefaultMaxSessionsPerSubject (10); negative means no limit.
	MaxSessionsPerSubject int
	// MaxInFlight bounds the POST requests served at once, over all
	// sessions and stateless requests together: each holds a goroutine,
	// a connection and whatever its call holds until it answers. Beyond
	// it a POST gets 503 with Retry-After and a JSON-RPC error before its
	// body is read. MaxSessions does not bound this: one session can
	// POST many calls at once, and every stateless POST (2026-07-28) is a
	// session of its own. A POST whose client went away while its
	// legacy session's request runs stops counting while the session
	// lives, and counts again from the session's end until its handler
	// returns: handlers slow to honour cancellation cannot pile up
	// behind sessions opened and deleted one after another. Zero means
	// DefaultMaxInFlight (256); negative means no limit.
	MaxInFlight int
	// MaxInFlightPerSubject bounds the POST requests served at once for
	// one identity that RequireAuth verified, counted as for
	// MaxSessionsPerSubject (the AuthInfo's Subject, or its ClientID for
	// a token without one), over its sessions and stateless requests
	// together: without it one user's long calls or open
	// subscriptions/listen streams could take every MaxInFlight place and
	// starve the others. Beyond it a POST gets 429 Too Many Requests with
	// Retry-After and a JSON-RPC error before its body is read. Its POSTs
	// whose clients walked away count as for MaxInFlight: not while their
	// legacy session lives, again from its end until their handlers
	// return. Requests without authorization have no identity and are not
	// counted: MaxInFlight is their only bound. Zero means a quarter of
	// MaxInFlight (64 by default), at least 1, or no limit when
	// MaxInFlight is negative; negative means no limit.
	MaxInFlightPerSubject int
	// Logger receives the handler's diagnostics; nil means the server's.
	Logger *slog.Logger
	// Sessions, if set, keeps legacy sessions where every replica of the
	// server reaches them, so that a session initialized on one replica
	// is served by any (the replica replays the session's state into a
	// session of its own). Each request of a session then loads it from
	// the store and keeps it there for SessionTimeout (or
	// DefaultSessionTimeout when SessionTimeout is negative), and an open
	// GET stream does so every third of that; a store
	// that fails gets 503 with Retry-After. A session holds at most
	// MaxStateMessages state changes (subscriptions, log levels), and
	// MaxStateBytes with its initialize request. Nil means this process
	// only.
	Sessions SessionStore
	// Events, if set, keeps the events of legacy sessions' POST streams
	// where every replica reaches them, for RetainFor after the last,
	// so that a client resumes a stream with Last-Event-ID on any
	// replica, even after the one that served it is gone. A stream
	// resumed on a replica that does not serve it is written up to its
	// stored end and closed; the client resumes again for more. An
	// event is appended before its writer goes on, within a second; a
	// store that fails or stops answering costs only resumption
	// elsewhere, for 30 s after each failure, and delays the stream
	// here once. Nil means this process only.
	Events EventStore
	// Relay, with Sessions, carries a client's responses to the requests
	// of a legacy session (sampling, elicitation, roots), and its
	// cancellations, to the replica that serves the request, when the
	// load balancer sends them to another. Nil means this process only:
	// such requests then need a load balancer with session affinity.
	Relay Relay
}

// Handler serves an mcp.Server over the Streamable HTTP transport on one
// endpoint. Legacy clients (2024-11-05 to 2025-11-25) get a session per
// initialize, named by the Mcp-Session-Id header, with a GET stream for
// messages not tied to a request. Stateless clients (2026-07-28) send
// self-describing requests; each POST is served on a session of its own
// that ends with the response.
type Handler struct {
	srv  *mcp.Server
	opts HandlerOptions
	log  *slog.Logger

	now     func() time.Time // the clock of timeouts; tests replace it
	bodies  budget           // MaxBodyMemory
	posts   atomic.Int64     // POSTs being served, for MaxInFlight
	flights subjectFlights   // the same by identity, for MaxInFlightPerSubject
	replica string           // prefix of stream ids, unique to this Handler when Events is set
	// eventsRest is until when (h.now, Unix nanoseconds) no event is
	// appended to HandlerOptions.Events, after one failed.
	eventsRest atomic.Int64
	adoptMu    sync.Mutex // one adoption of a stored session at a time

	// mu guards sessions, owned, closed and idle; every request looks a
	// session up, so lookups share it.
	mu       sync.RWMutex
	sessions map[string]*httpSession
	owned    map[string]map[*httpSession]struct{} // sessions by owner (owners.go)
	closed   bool
	closing  atomic.Bool // closed, readable without mu
	// busy counts what Shutdown waits for: ServeHTTP calls in progress,
	// except while they run a request's handler (those are awaited as
	// handlers, at most ServerOptions.ShutdownTimeout), and stateless
	// sessions being closed. idle is closed when it drops to 0 after
	// Shutdown. An atomic: every request moves it twice, and 64 callers
	// queued on mu for it.
	busy atomic.Int64
	idle chan struct{}
	done chan struct{} // closed by Shutdown
	// stateless holds the stateless sessions in progress, for Shutdown to
	// end them: their handlers run on their POSTs' goroutines. Sharded:
	// one registry (a map under h.mu, or context.AfterFunc on one
	// handler-wide context) made every stateless request take one mutex
	// twice, and under 64 callers they queued on it.
	stateless shardset.Set[*httpSession]
	// The waits of every request, one queue each, on one timer each
	// (internal/delayq): a legacy POST's watch (watchAfter), a POST
	// body's BodyTimeout, and a whole answer's WriteTimeout (nil if
	// none).
	late, bodyWaits, flushes *delayq.Queue
	// testHookAbandoned, if set by a test, is called once a POST whose
	// client went away has let go of its session (streamer.go).
	testHookAbandoned atomic.Pointer[func()]
	// testHookCatchWait, if set by a test, is called as a request or a
	// relayed catch-up starts waiting for a session's catch-up lock
	// (replicas.go).
	testHookCatchWait atomic.Pointer[func()]
	// draining counts the sessions whose handlers may still run
	// (drain.go): an atomic, as busy is, since every stateless request
	// moves it twice. drained is closed when it drops to 0 after Shutdown
	// began; under mu.
	draining atomic.Int64
	drained  chan struct{}
}

// NewHandler returns a handler that serves srv. Mount it on one path,
// for example mux.Handle("/mcp", h), and listen on a loopback address
// unless AllowedHosts and AllowedOrigins say otherwise.
func NewHandler(srv *mcp.Server, opts *HandlerOptions) *Handler {
	h := &Handler{srv: srv, sessions: map[string]*httpSession{}, done: make(chan struct{}), now: time.Now}
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBody
	}
	if o.MaxBodyMemory <= 0 {
		o.MaxBodyMemory = DefaultMaxBodyMemory
	}
	if o.BodyWait <= 0 {
		o.BodyWait = DefaultBodyWait
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.MaxRetainedStreams <= 0 {
		o.MaxRetainedStreams = DefaultMaxRetainedStreams
	}
	if o.MaxRetainedBytes <= 0 {
		o.MaxRetainedBytes = DefaultMaxRetainedBytes
	}
	if o.RetainFor <= 0 {
		o.RetainFor = DefaultRetainFor
	}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxSessionsPerSubject == 0 {
		o.MaxSessionsPerSubject = DefaultMaxSessionsPerSubject
	}
	if o.MaxInFlight == 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxInFlightPerSubject == 0 && o.MaxInFlight > 0 {
		o.MaxInFlightPerSubject = max(1, o.MaxInFlight/4)
	}
	h.bodies.init(o.MaxBodyMemory)
	h.late, h.bodyWaits = delayq.New(watchAfter), delayq.New(o.BodyTimeout)
	if o.WriteTimeout > 0 {
		h.flushes = delayq.New(o.WriteTimeout)
	}
	if h.opts.KeepAlive == 0 {
		h.opts.KeepAlive = DefaultKeepAlive
	}
	if h.opts.Retry <= 0 {
		h.opts.Retry = DefaultRetry
	}
	if h.opts.History <= 0 {
		h.opts.History = DefaultHistory
	}
	h.log = h.opts.Logger
	if h.log == nil {
		h.log = srv.Logger()
	}
	if h.opts.Events != nil || h.opts.Relay != nil {
		h.replica = newSessionID()[:8] + "-"
	}
	if h.opts.Relay != nil {
		stop := h.opts.Relay.Receive(h.relayed)
		go func() { <-h.done; stop() }()
	}
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.enter() {
		writeHTTPError(w, httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError, "server is shutting down"))
		return
	}
	defer h.exit()
	// Until the body is read (readBody and get lift it): a client sending
	// its body slowly, or a refusal's unread body, holds no connection
	// past BodyTimeout.
	dw := h.newDeadlineWriter(w, r)
	defer dw.finish()
	w = dw
	if e := h.checkHost(r); e != nil {
		writeHTTPError(w, e)
		return
	}
	if e := h.checkOrigin(r); e != nil {
		writeHTTPError(w, e)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeHTTPError(w, httpErr(http.StatusMethodNotAllowed, mcp.CodeInvalidRequest, "method "+r.Method+" is not allowed; use POST, GET or DELETE"))
	}
}

// enter registers a request unless the handler is shutting down. The
// second look at closing settles a race with Shutdown: a request counted
// before Shutdown set it is seen by Shutdown's read of busy, which comes
// after; one counted after it gives its count back.
func (h *Handler) enter() bool {
	if h.closing.Load() {
		return false
	}
	h.busy.Add(1)
	if h.closing.Load() {
		h.addBusy(-1)
		return false
	}
	return true
}

// exit undoes enter.
func (h *Handler) exit() { h.addBusy(-1) }

// addBusy changes the count Shutdown waits for. Only a drop to 0 after
// Shutdown began takes the lock, to wake Shutdown: before it, Shutdown
// finds the count at 0 itself.
func (h *Handler) addBusy(n int64) {
	if h.busy.Add(n) != 0 || !h.closing.Load() {
		return
	}
	h.mu.Lock()
	if h.idle != nil && h.busy.Load() == 0 {
		close(h.idle)
		h.idle = nil
	}
	h.mu.Unlock()
}

// Shutdown stops accepting requests, closes every session (which ends
// their SSE streams, fails their pending requests and cancels their
// handlers), and waits for the requests in progress to return and for
// every session's handlers to return, or for ctx to end. A session's
// handlers are awaited at most the server's ShutdownTimeout
// (mcp.ServerOptions) after it ended, as mcp.Server.Run does on stdio, so
// that a program exiting after Shutdown leaves no tool's process tree
// behind. A request whose handler runs on its POST's goroutine is awaited
// as a handler: the POST may still be writing its answer (or closing a
// stateless session) when Shutdown returns, which http.Server.Shutdown,
// called next, waits for. Call it before http.Server.Shutdown, which
// would otherwise wait for SSE streams that never end on their own (or
// register it with http.Server.RegisterOnShutdown).
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		h.closing.Store(true)
		close(h.done)
	}
	sessions := make([]*httpSession, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	h.mu.Unlock()
	for _, s := range sessions {
		s.end()
	}
	for _, s := range h.stateless.Close() {
		s.end()
		// Awaited within ShutdownTimeout by awaitHandlers, as for the
		// legacy sessions, not one after another here.
		go s.untrack()
	}
	h.mu.Lock()
	idle := h.idle
	if h.busy.Load() > 0 && idle == nil {
		idle = make(chan struct{})
		h.idle = idle
	}
	h.mu.Unlock()
	if idle != nil {
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return h.awaitHandlers(ctx)
}

// SessionCount returns the number of open legacy sessions.
func (h *Handler) SessionCount() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.sessions)
}

func (h *Handler) session(id string) *httpSession {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.sessions[id]
}

// register adds a legacy session under its id unless MaxSessions are
// open or, for a new one (opening), MaxSessionsPerSubject of its owner's.
// At a bound, the sessions it counts that are idle past SessionTimeout
// (their timers may not have caught up) are closed first and the session
// tried again. Looking only then keeps an initialize with room O(1): the
// timers close the others.
func (h *Handler) register(s *httpSession, opening bool) *httpError {
	e, counted := h.registerOnce(s, opening)
	if counted != nil {
		h.expire(counted)
		e, _ = h.registerOnce(s, opening)
	}
	return e
}

// registerOnce adds s, or says why not; refused at a bound, it also
// returns the sessions that bound counts.
func (h *Handler) registerOnce(s *httpSession, opening bool) (*httpError, []*httpSession) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError, "server is shutting down"), nil
	}
	if max := h.opts.MaxSessions; max > 0 && len(h.sessions) >= max {
		e := httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError,
			"server busy: "+strconv.Itoa(max)+" sessions are open, the most it serves; retry later, or end an unused session with DELETE")
		e.retryAfter = h.retryAfterLocked()
		return e, h.sessionsLocked()
	}
	if e := h.ownLocked(s, opening); e != nil {
		return e, h.ownedLocked(s)
	}
	if old := h.sessions[s.id]; old != nil {
		// An adopted session replacing its gone copy: the copy's
		// unregister will not find itself, so it is disowned here.
		h.disownLocked(old)
	}
	h.sessions[s.id] = s
	return nil, nil
}

// sessionsLocked lists the live sessions. Under h.mu.
func (h *Handler) sessionsLocked() []*httpSession {
	all := make([]*httpSession, 0, len(h.sessions))
	for _, s := range h.sessions {
		all = append(all, s)
	}
	return all
}

// expireSessions closes the sessions idle past SessionTimeout. Their
// timers do it too; this is what tests call with their own clock.
func (h *Handler) expireSessions() {
	h.mu.Lock()
	all := h.sessionsLocked()
	h.mu.Unlock()
	h.expire(all)
}

// expire closes those of sessions idle past SessionTimeout.
func (h *Handler) expire(sessions []*httpSession) {
	if h.opts.SessionTimeout <= 0 {
		return
	}
	now := h.now()
	for _, s := range sessions {
		if _, ok := s.idleFor(now); !ok {
			continue
		}
		if !s.busy.CompareAndSwap(0, idleClaim) {
			continue // a request came in since: not idle after all
		}
		h.log.Debug("mcphttp: closing an idle session", s.logRef())
		s.end()
	}
}

// retryAfterLocked is when a session slot is likely to free up: when the
// idlest session expires, or after a whole SessionTimeout if none idles.
func (h *Handler) retryAfterLocked() time.Duration {
	wait := h.opts.SessionTimeout
	if wait <= 0 {
		return time.Minute
	}
	now := h.now()
	for _, s := range h.sessions {
		if left, _ := s.idleFor(now); left < wait {
			wait = left
		}
	}
	return wait
}

func (h *Handler) unregister(s *httpSession) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
		h.disownLocked(s)
	}
	h.mu.Unlock()
}

// newSessionID returns 128 random bits in hex: visible ASCII, as the
// transport requires, and unguessable, since the id is all that ties a
// request to a session.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
