package mcphttp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

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

// Defaults of HandlerOptions.
const (
	DefaultMaxBody   = transport.DefaultMaxMessageSize
	DefaultKeepAlive = 15 * time.Second
	DefaultRetry     = time.Second
	DefaultHistory   = 256
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
	// SessionTimeout closes a legacy session that has seen no request and
	// has no open stream or pending request for this long. Zero means
	// sessions live until deleted or until Shutdown.
	SessionTimeout time.Duration
	// Logger receives the handler's diagnostics; nil means the server's.
	Logger *slog.Logger
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

	mu       sync.Mutex
	sessions map[string]*httpSession
	closed   bool
	active   sync.WaitGroup // ServeHTTP calls in progress; Add only under mu while !closed
	done     chan struct{}  // closed by Shutdown
}

// NewHandler returns a handler that serves srv. Mount it on one path,
// for example mux.Handle("/mcp", h), and listen on a loopback address
// unless AllowedHosts and AllowedOrigins say otherwise.
func NewHandler(srv *mcp.Server, opts *HandlerOptions) *Handler {
	h := &Handler{srv: srv, sessions: map[string]*httpSession{}, done: make(chan struct{})}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.MaxBodyBytes <= 0 {
		h.opts.MaxBodyBytes = DefaultMaxBody
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
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.enter() {
		writeHTTPError(w, httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError, "server is shutting down"))
		return
	}
	defer h.active.Done()
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

// enter registers a request unless the handler is shutting down.
func (h *Handler) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.active.Add(1)
	return true
}

// Shutdown stops accepting requests, closes every session (which ends
// their SSE streams and fails their pending requests), and waits for the
// requests in progress to return or for ctx to end. Call it before
// http.Server.Shutdown, which would otherwise wait for SSE streams that
// never end on their own (or register it with http.Server.RegisterOnShutdown).
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
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
	idle := make(chan struct{})
	go func() {
		h.active.Wait()
		close(idle)
	}()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SessionCount returns the number of open legacy sessions.
func (h *Handler) SessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

func (h *Handler) session(id string) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// register adds a legacy session under a fresh id.
func (h *Handler) register(s *httpSession) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errShuttingDown
	}
	h.sessions[s.id] = s
	return nil
}

func (h *Handler) unregister(s *httpSession) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
	}
	h.mu.Unlock()
}

var errShuttingDown = errors.New("mcphttp: handler is shutting down")

// newSessionID returns 128 random bits in hex: visible ASCII, as the
// transport requires, and unguessable, since the id is all that ties a
// request to a session.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
