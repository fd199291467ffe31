package mcphttp

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winbridge/winbridge/internal/smallmap"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// httpSession is one ServerSession served over HTTP, and the
// transport.Framer under it: POSTed messages are its input, and what the
// server writes is routed to the HTTP response waiting for it.
//
// Routing of what the server writes:
//   - a response goes to the POST of the request it answers: as the body
//     of a JSON response, or as the last event of its SSE stream;
//   - progress goes to the stream of the request that set the token;
//   - log messages and requests to the client (sampling, elicitation,
//     roots) sent about a request (transport.Conn.WithRequest) go to its
//     stream, or the standalone stream when it has none; others go to
//     the stream of the one request in flight with an open stream, when
//     there is exactly one; with several, which one they belong to
//     cannot be told, and they take the standalone stream;
//   - anything else (list changes, resource updates) goes to the
//     standalone stream, which a GET serves and which buffers meanwhile.
//
// A stateless session (2026-07-28) serves a single POST and has no
// standalone stream: what cannot go to the POST's stream is dropped.
type httpSession struct {
	h  *Handler
	id string // "" for a stateless session
	ss *mcp.ServerSession
	// auth is what RequireAuth verified of the request that opened the
	// session; set before its first message is delivered, then read-only.
	auth *AuthInfo
	// owner is who the session counts against (ownerOf), "" for none;
	// under h.mu.
	owner string

	untracked atomic.Bool // stateless: untrack was called
	connected atomic.Bool // stateless: its ServerSession started its connection

	// busy counts the POSTs and GETs in progress and lastUsed is when it
	// last changed (h.now, in Unix nanoseconds): atomics, since every
	// request of a session moves them, and 64 callers of one session
	// queued on its mutex for them.
	busy     atomic.Int64
	lastUsed atomic.Int64

	in chan []byte
	// done holds the channel closed when the session ends (doneChan):
	// doneCell, made when the session starts if it has an id, or when
	// first asked for if it is stateless (which nothing usually waits on),
	// or closedChan if it ends first. Set under mu; read without.
	done     atomic.Pointer[chan struct{}]
	doneCell chan struct{}
	doneOnce sync.Once

	mu         sync.Mutex
	pending    smallmap.Map[*pendingCall] // by request id key: one inline, as a stateless session has
	tokens     map[string]string          // progress token key -> request id key; nil until the first
	streams    map[string]*eventStream    // POST streams that can be resumed, by stream id; nil until the first
	standalone *eventStream               // nil for stateless sessions
	nextStream int
	replicated                 // its state in HandlerOptions.Sessions
	asked      map[string]bool // ids of this replica's requests to the client, with a Relay
	// adrift counts the POSTs whose clients walked away while their
	// handlers run, given back from MaxInFlight while the session lives
	// (adrift.go); it may go below zero for a moment.
	adrift int
	// adriftBy are the adrift POSTs by the identity they count against
	// for MaxInFlightPerSubject; nil while there are none.
	adriftBy map[string]int
	timer    *time.Timer
}

// pendingCall is a client request waiting for the server's response.
type pendingCall struct {
	resp   chan []byte  // JSON mode: the response (buffered, 1); nil with a stream
	stream *eventStream // SSE mode
	token  string       // its progress token key, if any
}

func (h *Handler) newSession(id string) *httpSession {
	s := &httpSession{
		h:  h,
		id: id,
	}
	if id != "" {
		// Only a legacy session has a record to catch up with; a
		// stateless request's session is made per request, and the lock
		// would be one more allocation on each.
		s.catchSem = make(chan struct{}, 1)
	}
	if id != "" {
		// A stateless session is never delivered anything (its one
		// request goes through ServeDirect, and it takes no responses):
		// its read loop, if it starts, waits on a nil channel for done.
		s.in = make(chan []byte)
		s.doneCell = make(chan struct{})
		s.done.Store(&s.doneCell)
	}
	s.lastUsed.Store(h.now().UnixNano())
	if id != "" {
		s.standalone = newEventStream("0", h.opts.History, h.now)
		if h.opts.SessionTimeout > 0 {
			s.timer = time.AfterFunc(h.opts.SessionTimeout, s.idle)
		}
	}
	if id != "" {
		s.ss = h.srv.Connect(transport.NewStream(s, &transport.StreamOptions{Logger: h.log}))
	} else {
		// A stateless session takes its one request through ServeDirect;
		// its connection starts only if the request sends something
		// before its response.
		s.ss = h.srv.ConnectDirect(func() *transport.Stream {
			s.connected.Store(true)
			return transport.NewStream(s, &transport.StreamOptions{Logger: h.log})
		})
	}
	if id != "" {
		h.track(s.ss)
	} else {
		h.tracking() // until endLater has waited for its handler
	}
	return s
}

// closedChan is a closed channel: the done of a stateless session that
// ended before anything asked for it.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// doneChan returns the channel closed when the session ends.
func (s *httpSession) doneChan() <-chan struct{} {
	if p := s.done.Load(); p != nil {
		return *p
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.done.Load(); p != nil {
		return *p
	}
	s.doneCell = make(chan struct{})
	s.done.Store(&s.doneCell)
	return s.doneCell
}

// ended reports whether the session has ended, without making its done
// channel.
func (s *httpSession) ended() bool {
	p := s.done.Load()
	if p == nil {
		return false
	}
	select {
	case <-*p:
		return true
	default:
		return false
	}
}

// ReadFrame implements transport.Framer: the next POSTed message.
func (s *httpSession) ReadFrame() ([]byte, error) {
	select {
	case m := <-s.in:
		return m, nil
	case <-s.doneChan():
		return nil, io.EOF
	}
}

// WriteFrame implements transport.Framer: it routes what the server sends
// and never blocks on a client.
func (s *httpSession) WriteFrame(msg []byte) error { return s.writeFrame(msg, nil) }

var _ transport.RelatedWriter = (*httpSession)(nil)

// WriteFrameRelated implements transport.RelatedWriter: a request or log
// message about one of the client's requests goes on that request's
// stream, so that the client knows whose call it is about, even while
// other requests of the session are in progress.
func (s *httpSession) WriteFrameRelated(msg []byte, about transport.ID) error {
	return s.writeFrame(msg, &about)
}

// writeFrame routes msg, about the client's request about if not nil.
func (s *httpSession) writeFrame(msg []byte, about *transport.ID) error {
	if s.ended() {
		return io.ErrClosedPipe
	}
	msg = append([]byte(nil), msg...)
	env := peekEnvelope(msg)
	var kept storedPush // appended to HandlerOptions.Events once unlocked
	defer func() { s.store(kept) }()
	s.mu.Lock()
	defer s.mu.Unlock()
	if env.Method != nil && s.id != "" && s.h.opts.Relay != nil {
		s.askingLocked(env.ID)
	}
	if env.Method == nil {
		id, err := transport.ParseID(env.ID)
		if err != nil {
			s.h.log.Debug("mcphttp: dropped a response nobody waits for", s.logRef(), "id", string(env.ID))
			return nil
		}
		kept = s.answerLocked(id.Key(), msg)
		return nil
	}
	target := s.standalone
	switch *env.Method {
	case "notifications/progress":
		if key, ok := s.tokens[tokenKey(env.ProgressToken)]; ok {
			if p, _ := s.pending.Get(key); p != nil && p.stream != nil {
				target = p.stream
			}
		}
	case "notifications/message", "sampling/createMessage", "elicitation/create", "roots/list":
		switch {
		case about != nil:
			// On its request's stream, or else (a request answered as
			// JSON, or one that has ended) the standalone one: on
			// another request's stream the client would take it for
			// one about that request.
			if p := s.aboutLocked(about); p != nil {
				target = p.stream
			}
		default:
			if p := s.soleStreamLocked(); p != nil {
				target = p.stream
			}
		}
	}
	if target == nil && s.id == "" {
		if p := s.soleStreamLocked(); p != nil {
			target = p.stream
		}
	}
	if target == nil {
		s.h.log.Debug("mcphttp: dropped a message with no stream to carry it", "method", *env.Method)
		return nil
	}
	kept = storedPush{target, target.push(msg, false), msg, false}
	s.retainLocked(target)
	return nil
}

// answer routes the response to the request of id key, which the session
// produced through ServeDirect, as WriteFrame routes responses.
func (s *httpSession) answer(key string, msg []byte) {
	if s.ended() {
		return
	}
	s.mu.Lock()
	kept := s.answerLocked(key, msg)
	s.mu.Unlock()
	s.store(kept)
}

// answerLocked hands a response to the POST that waits for it: as its
// JSON body, or as the last event of its stream.
func (s *httpSession) answerLocked(key string, msg []byte) storedPush {
	p, _ := s.pending.Get(key)
	if p == nil {
		s.h.log.Debug("mcphttp: dropped a response nobody waits for", s.logRef(), "id", key)
		return storedPush{}
	}
	s.forgetLocked(key)
	if p.stream == nil {
		p.resp <- msg
		return storedPush{}
	}
	kept := storedPush{p.stream, p.stream.push(msg, true), msg, true}
	s.retainLocked(p.stream)
	return kept
}

// soleStreamLocked returns the only pending request with an SSE stream.
func (s *httpSession) soleStreamLocked() *pendingCall {
	var found *pendingCall
	for _, p := range s.pending.All() {
		if p.stream != nil {
			if found != nil {
				return nil
			}
			found = p
		}
	}
	return found
}

// Close implements transport.Framer; the connection calls it as it ends.
func (s *httpSession) Close() error {
	s.doneOnce.Do(func() {
		s.mu.Lock()
		if p := s.done.Load(); p != nil {
			close(*p)
		} else {
			s.done.Store(&closedChan)
		}
		s.reclaimLocked()
		s.mu.Unlock()
		if s.id != "" {
			s.h.unregister(s)
		}
		s.mu.Lock()
		for _, es := range s.streams {
			es.close()
		}
		if s.standalone != nil {
			s.standalone.close()
		}
		for key, p := range s.pending.All() {
			if p.stream != nil {
				p.stream.close()
			}
			s.pending.Delete(key)
		}
		if s.timer != nil {
			s.timer.Stop()
		}
		s.mu.Unlock()
	})
	return nil
}

// untrack stops the Handler counting a stateless session once its
// handlers are done (Handler.untrack), once.
func (s *httpSession) untrack() {
	if s.untracked.CompareAndSwap(false, true) {
		s.h.untrack(s.ss)
	}
}

// end closes the session: its ServerSession, and through it this framer.
func (s *httpSession) end() {
	_ = s.ss.Close()
	_ = s.Close()
}

// idle ends a session that has had nothing to do for SessionTimeout: no
// HTTP request in progress. Pending requests do not keep it: their client
// is gone, and ending the session cancels them.
func (s *httpSession) idle() {
	if s.ended() {
		return // ended meanwhile: keep no timer for it
	}
	left, expired := s.idleFor(s.h.now())
	if !expired {
		s.mu.Lock()
		s.timer.Reset(left)
		s.mu.Unlock()
		return
	}
	// Claimed, not only found idle: a request that looked the session up
	// just now and enters after this sees the claim (enter) and answers
	// 404, as for a session already gone, so that its client initializes
	// anew instead of retrying into a 503.
	if !s.busy.CompareAndSwap(0, idleClaim) {
		s.mu.Lock()
		s.timer.Reset(s.h.opts.SessionTimeout)
		s.mu.Unlock()
		return
	}
	s.h.log.Debug("mcphttp: closing an idle session", s.logRef())
	s.end()
}

// idleClaim is what idle puts in busy as it ends a session: far enough
// below zero that no count of requests entering brings it back up.
const idleClaim = math.MinInt64 / 2

// idleFor reports how long the session may still idle, and whether it
// has idled past SessionTimeout.
func (s *httpSession) idleFor(now time.Time) (left time.Duration, expired bool) {
	timeout := s.h.opts.SessionTimeout
	if s.busy.Load() > 0 {
		return timeout, false
	}
	left = time.Unix(0, s.lastUsed.Load()).Add(timeout).Sub(now)
	return left, left <= 0
}

// enter and leave bracket an HTTP request on the session, which keeps it
// from idling out. The idle timer is not reset here: when it fires, idle
// finds how long the session has really been idle and waits the rest.
// enter reports false when the session has idled out since it was looked
// up; the request must not go on, and must not leave.
func (s *httpSession) enter() bool {
	if s.busy.Add(1) < 0 {
		return false
	}
	s.lastUsed.Store(s.h.now().UnixNano())
	return true
}

// gone reports whether the session ended, or was claimed to end as idle.
func (s *httpSession) gone() bool {
	if s.busy.Load() < 0 {
		return true
	}
	return s.ended()
}

func (s *httpSession) leave() {
	s.lastUsed.Store(s.h.now().UnixNano())
	s.busy.Add(-1)
}

// expect registers a request before it is handed to the server, so that
// the response cannot overtake the registration.
func (s *httpSession) expect(m *rpcMessage, sse bool) (*pendingCall, *httpError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := m.id.Key()
	if _, dup := s.pending.Get(key); dup {
		return nil, httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest, "invalid request: id "+m.id.String()+" is already in use by a request in progress").withID(m)
	}
	p := &pendingCall{}
	if !sse {
		p.resp = make(chan []byte, 1)
	} else {
		id := ""
		if s.id != "" {
			s.nextStream++
			// Unique across replicas: each numbers its own streams.
			id = s.h.replica + strconv.Itoa(s.nextStream)
		}
		// The POST that asks owns its stream until it is done with it,
		// so retention never drops a stream that a request still serves.
		p.stream = newEventStream(id, s.h.opts.History, s.h.now)
		p.stream.attached = true
		if id != "" {
			if s.streams == nil {
				s.streams = map[string]*eventStream{}
			}
			s.streams[id] = p.stream
			s.retainLocked(nil)
		}
	}
	if tok, ok := m.meta.get(mcp.MetaProgressToken); ok {
		p.token = tokenKey(tok)
		if s.tokens == nil {
			s.tokens = map[string]string{}
		}
		s.tokens[p.token] = key
	}
	s.pending.Set(key, p)
	return p, nil
}

// forget drops a pending request whose response will not be waited for.
func (s *httpSession) forget(m *rpcMessage) {
	s.mu.Lock()
	s.forgetLocked(m.id.Key())
	s.mu.Unlock()
}

// unexpect undoes expect for a request that will not be delivered.
func (s *httpSession) unexpect(m *rpcMessage, p *pendingCall) {
	s.forget(m)
	if p.stream != nil {
		s.dropStream(p.stream)
	}
}

func (s *httpSession) forgetLocked(key string) {
	if p, _ := s.pending.Get(key); p != nil {
		if p.token != "" && s.tokens[p.token] == key {
			delete(s.tokens, p.token)
		}
		s.pending.Delete(key)
	}
}

// dropStream forgets a POST stream that was written to its end.
func (s *httpSession) dropStream(es *eventStream) {
	s.mu.Lock()
	if s.streams[es.id] == es {
		delete(s.streams, es.id)
	}
	s.mu.Unlock()
}

// stream finds a stream by id for a resuming GET: the standalone stream
// is "0". Streams past RetainFor are dropped first.
func (s *httpSession) stream(id string) *eventStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "0" {
		return s.standalone
	}
	s.retainLocked(nil)
	return s.streams[id]
}

// deliver hands a message to the server.
func (s *httpSession) deliver(ctx context.Context, msg []byte) bool {
	select {
	case s.in <- msg:
		return true
	case <-s.doneChan():
		return false
	case <-ctx.Done():
		return false
	}
}

// tokenKey is the map key of a progress token: tokens are strings or
// numbers, and equal tokens must meet whatever their spelling.
func tokenKey(raw json.RawMessage) string {
	if id, err := transport.ParseID(raw); err == nil {
		return id.Key()
	}
	return "r" + string(raw)
}

// aboutLocked returns the request in progress that about names, if it
// has a stream to carry what is about it.
func (s *httpSession) aboutLocked(about *transport.ID) *pendingCall {
	if about == nil {
		return nil
	}
	if p, _ := s.pending.Get(about.Key()); p != nil && p.stream != nil {
		return p
	}
	return nil
}
